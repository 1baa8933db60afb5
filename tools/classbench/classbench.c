/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One line reader serves both file kinds: it splits each line on blanks
 * (spaces and tabs alike, so the space- and tab-separated rule files read
 * the same) and hands the fields to a per-kind parser, which fills one
 * array element or says what is wrong with the line.
 */
#include "classbench.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/range.h"

/* ipv4 code option key layout (docs/codeopt.md). */
/* src, dst, sp_lo, ':', sp_hi, dp_lo, ':', dp_hi, proto/mask; then optionally flags/mask. */
#define RULE_FIELDS 9
#define TRACE_FIELDS 6
#define MAX_FIELDS 16
#define FIELD_LEN 64
#define BLANKS " \t\r\n"
/* Leaves room in CB_ERR_LEN for "path:line: " before it. */
#define WHY_LEN (CB_ERR_LEN / 2)

/* Fill item from one line's fields; false with why set if the line is malformed. */
typedef bool (*line_parser)(char *const *field, unsigned int nb_fields, void *item,
			    char why[WHY_LEN]);

struct array {
	void *items;
	size_t n, cap, size;
};

/* Say why a line is malformed; false, for the parsers to return. */
static bool __attribute__((format(printf, 2, 3)))
fail(char why[WHY_LEN], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, WHY_LEN, fmt, ap);
	va_end(ap);
	return false;
}

/* A new zeroed element at the end, or NULL. */
static void *
array_add(struct array *a)
{
	size_t cap = a->cap != 0 ? 2 * a->cap : 1024;
	void *items;

	if (a->n == a->cap) {
		items = realloc(a->items, cap * a->size);
		if (items == NULL)
			return NULL;
		a->items = items;
		a->cap = cap;
	}
	return memset((char *)a->items + a->n++ * a->size, 0, a->size);
}

/* Split line in place at blanks; returns the number of fields, stores the first max. */
static unsigned int
split(char *line, char **field, unsigned int max)
{
	unsigned int n = 0;
	char *save, *f;

	for (f = strtok_r(line, BLANKS, &save); f != NULL; f = strtok_r(NULL, BLANKS, &save)) {
		if (n < max)
			field[n] = f;
		n++;
	}
	return n;
}

/* Parse every non-blank line of path into an array element of the given size. */
static int
load(const char *path, line_parser parse, size_t size, void **items, size_t *n,
     char err[CB_ERR_LEN])
{
	struct array a = {.size = size};
	char *line = NULL, *field[MAX_FIELDS], why[WHY_LEN];
	unsigned int nb_fields, lineno = 0;
	size_t cap = 0;
	void *item;
	FILE *f;
	int rc = 0;

	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		snprintf(err, CB_ERR_LEN, "%s: %s", path, strerror(errno));
		return rc;
	}
	while (rc == 0 && getline(&line, &cap, f) != -1) {
		lineno++;
		nb_fields = split(line, field, MAX_FIELDS);
		if (nb_fields == 0)
			continue;
		item = array_add(&a);
		if (item == NULL) {
			rc = -ENOMEM;
			snprintf(err, CB_ERR_LEN, "%s:%u: out of memory", path, lineno);
		} else if (!parse(field, nb_fields, item, why)) {
			rc = -EINVAL;
			snprintf(err, CB_ERR_LEN, "%s:%u: %s", path, lineno, why);
		}
	}
	if (rc == 0 && ferror(f)) {
		rc = -EIO;
		snprintf(err, CB_ERR_LEN, "%s: read error after line %u", path, lineno);
	}
	free(line);
	fclose(f);
	if (rc != 0) {
		free(a.items);
		return rc;
	}
	*items = a.items;
	*n = a.n;
	return 0;
}

/* A whole string as an unsigned number in base 10 or 16 ("0x" optional), at most max. */
static bool
number(const char *s, int base, unsigned long max, unsigned long *v)
{
	char *end;

	/* strtoul would also take blanks and a sign. */
	if (!(s[0] >= '0' && s[0] <= '9') && !(base == 16 && strchr("abcdefABCDEF", s[0]) != NULL))
		return false;
	errno = 0;
	*v = strtoul(s, &end, base);
	return errno == 0 && *end == '\0' && *v <= max;
}

/* "A/B" copied into buf, split there: *a and *b point into buf. */
static bool
pair(const char *field, char buf[FIELD_LEN], char **a, char **b)
{
	char *slash;

	if (strlen(field) >= FIELD_LEN)
		return false;
	strcpy(buf, field);
	slash = strchr(buf, '/');
	if (slash == NULL)
		return false;
	*slash = '\0';
	*a = buf;
	*b = slash + 1;
	return true;
}

static uint32_t
prefix_mask(unsigned int len)
{
	return len == 0 ? 0 : UINT32_MAX << (32 - len);
}

/* "a.b.c.d/len", host bits cleared. */
static bool
parse_prefix(const char *field, const char *name, uint32_t *addr, uint8_t *len,
	     char why[WHY_LEN])
{
	char buf[FIELD_LEN], *ip, *bits;
	struct in_addr in;
	unsigned long l;

	if (!pair(field, buf, &ip, &bits) || inet_pton(AF_INET, ip, &in) != 1 ||
	    !number(bits, 10, 32, &l))
		return fail(why, "bad %s prefix '%s': want a.b.c.d/LEN with LEN <= 32", name,
			    field);
	*len = (uint8_t)l;
	*addr = ntohl(in.s_addr) & prefix_mask(*len);
	return true;
}

/* field[0..2] = "lo", ":", "hi". */
static bool
parse_range(char *const *field, const char *name, uint16_t *lo, uint16_t *hi,
	    char why[WHY_LEN])
{
	unsigned long l, h;

	if (strcmp(field[1], ":") != 0 || !number(field[0], 10, UINT16_MAX, &l) ||
	    !number(field[2], 10, UINT16_MAX, &h) || l > h)
		return fail(why, "bad %s range '%s %s %s': want LO : HI with LO <= HI <= 65535",
			    name, field[0], field[1], field[2]);
	*lo = (uint16_t)l;
	*hi = (uint16_t)h;
	return true;
}

/* Hex "value/mask", both at most max. */
static bool
parse_value_mask(const char *field, const char *name, unsigned long max, unsigned long *value,
		 unsigned long *mask, char why[WHY_LEN])
{
	char buf[FIELD_LEN], *v, *m;

	if (!pair(field, buf, &v, &m) || !number(v, 16, max, value) || !number(m, 16, max, mask))
		return fail(why, "bad %s '%s': want hex VALUE/MASK, each at most %#lx", name, field,
			    max);
	return true;
}

static bool
parse_rule(char *const *field, unsigned int nb_fields, void *item, char why[WHY_LEN])
{
	struct cb_rule *r = item;
	unsigned long proto, proto_mask, flags, flags_mask;

	if (nb_fields != RULE_FIELDS && nb_fields != RULE_FIELDS + 1)
		return fail(why,
			    "%u blank-separated fields, want %u or %u: "
			    "@SRC/LEN DST/LEN SP_LO : SP_HI DP_LO : DP_HI PROTO/MASK [FLAGS/MASK]",
			    nb_fields, RULE_FIELDS, RULE_FIELDS + 1);
	if (field[0][0] != '@')
		return fail(why, "a rule starts with '@', not '%c'", field[0][0]);
	if (!parse_prefix(field[0] + 1, "source", &r->src, &r->src_len, why) ||
	    !parse_prefix(field[1], "destination", &r->dst, &r->dst_len, why) ||
	    !parse_range(&field[2], "source port", &r->sport_lo, &r->sport_hi, why) ||
	    !parse_range(&field[5], "destination port", &r->dport_lo, &r->dport_hi, why) ||
	    !parse_value_mask(field[8], "protocol", UINT8_MAX, &proto, &proto_mask, why))
		return false;
	/* TCP flags: checked so that a shifted column cannot pass, but not matched. */
	if (nb_fields > RULE_FIELDS &&
	    !parse_value_mask(field[9], "TCP flags", UINT16_MAX, &flags, &flags_mask, why))
		return false;
	r->proto = (uint8_t)(proto & proto_mask);
	r->proto_mask = (uint8_t)proto_mask;
	return true;
}

static const struct {
	const char *name;
	unsigned long min, max;
} trace_field[TRACE_FIELDS] = {
	{"source address", 0, UINT32_MAX}, {"destination address", 0, UINT32_MAX},
	{"source port", 0, UINT16_MAX},    {"destination port", 0, UINT16_MAX},
	{"protocol", 0, UINT8_MAX},        {"MATCH_ID (1-based)", 1, UINT32_MAX},
};

static bool
parse_packet(char *const *field, unsigned int nb_fields, void *item, char why[WHY_LEN])
{
	struct cb_packet *p = item;
	unsigned long v[TRACE_FIELDS];
	unsigned int i;

	if (nb_fields != TRACE_FIELDS)
		return fail(why, "%u blank-separated fields, want %u: %s", nb_fields, TRACE_FIELDS,
			    "SRC DST SPORT DPORT PROTO MATCH_ID");
	for (i = 0; i < TRACE_FIELDS; i++)
		if (!number(field[i], 10, trace_field[i].max, &v[i]) || v[i] < trace_field[i].min)
			return fail(why, "bad %s '%s': want a decimal number from %lu to %lu",
				    trace_field[i].name, field[i], trace_field[i].min,
				    trace_field[i].max);
	p->src = (uint32_t)v[0];
	p->dst = (uint32_t)v[1];
	p->sport = (uint16_t)v[2];
	p->dport = (uint16_t)v[3];
	p->proto = (uint8_t)v[4];
	p->match_id = (uint32_t)v[5];
	return true;
}

int
cb_rules_load(const char *path, struct cb_rule **rules, size_t *n, char err[CB_ERR_LEN])
{
	void *items;
	int rc = load(path, parse_rule, sizeof(**rules), &items, n, err);

	if (rc == 0)
		*rules = items;
	return rc;
}

int
cb_trace_load(const char *path, struct cb_packet **pkts, size_t *n, char err[CB_ERR_LEN])
{
	void *items;
	int rc = load(path, parse_packet, sizeof(**pkts), &items, n, err);

	if (rc == 0)
		*pkts = items;
	return rc;
}

/* The five fields in key order and network byte order; byte 13 zero. */
static void
put_fields(struct sp_key *k, uint32_t dst, uint32_t src, uint16_t sport, uint16_t dport,
	   uint8_t proto)
{
	uint32_t d = htonl(dst), s = htonl(src);
	uint16_t sp = htons(sport), dp = htons(dport);

	memcpy(&k->b[SP_IPV4_KEY_DST], &d, sizeof(d));
	memcpy(&k->b[SP_IPV4_KEY_SRC], &s, sizeof(s));
	memcpy(&k->b[SP_IPV4_KEY_SPORT], &sp, sizeof(sp));
	memcpy(&k->b[SP_IPV4_KEY_DPORT], &dp, sizeof(dp));
	k->b[SP_IPV4_KEY_PROTO] = proto;
	k->b[SP_IPV4_KEY_ZERO] = 0;
}

/*
 * Write r's filters to out (if not NULL) and return how many there are:
 * one per (source port prefix, destination port prefix) pair.
 */
static int
rule_filters(const struct cb_rule *r, struct sp_filter *out)
{
	struct sp_prefix16 sp[SP_RANGE_MAX_PREFIXES], dp[SP_RANGE_MAX_PREFIXES];
	struct sp_filter *f = out;
	int ns, nd, i, j;

	ns = sp_range_to_prefixes(r->sport_lo, r->sport_hi, sp, SP_RANGE_MAX_PREFIXES);
	nd = sp_range_to_prefixes(r->dport_lo, r->dport_hi, dp, SP_RANGE_MAX_PREFIXES);
	if (ns < 0 || nd < 0)
		return -EINVAL;
	if (out == NULL)
		return ns * nd;
	for (i = 0; i < ns; i++) {
		for (j = 0; j < nd; j++, f++) {
			memset(f, 0, sizeof(*f));
			put_fields(&f->key, r->dst, r->src, sp[i].value, dp[j].value, r->proto);
			put_fields(&f->mask, prefix_mask(r->dst_len), prefix_mask(r->src_len),
				   sp[i].mask, dp[j].mask, r->proto_mask);
		}
	}
	return ns * nd;
}

int
cb_expand(const struct cb_rule *rules, size_t n, struct cb_expansion *x)
{
	size_t i, total = 0;
	int nf;

	memset(x, 0, sizeof(*x));
	x->nb_rules = n;
	/* Count first: both arrays are allocated once, at their exact size. */
	for (i = 0; i < n; i++) {
		nf = rule_filters(&rules[i], NULL);
		if (nf < 0)
			return nf;
		total += (size_t)nf;
	}
	x->filters = calloc(total, sizeof(*x->filters));
	x->rule = calloc(total, sizeof(*x->rule));
	if (total != 0 && (x->filters == NULL || x->rule == NULL)) {
		cb_expansion_free(x);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		nf = rule_filters(&rules[i], &x->filters[x->n]);
		while (nf-- > 0)
			x->rule[x->n++] = (uint32_t)i;
	}
	return 0;
}

void
cb_expansion_free(struct cb_expansion *x)
{
	free(x->filters);
	free(x->rule);
	memset(x, 0, sizeof(*x));
}

void
cb_expansion_keep(struct cb_expansion *x, size_t max)
{
	size_t n = max;

	if (x->n <= n)
		return;
	while (n > 0 && x->rule[n - 1] == x->rule[n])
		n--;
	x->nb_rules = x->rule[n];
	x->n = n;
}

double
cb_expansion_factor(const struct cb_expansion *x)
{
	return x->nb_rules != 0 ? (double)x->n / (double)x->nb_rules : 0.0;
}

void
cb_packet_key(const struct cb_packet *p, struct sp_key *k)
{
	put_fields(k, p->dst, p->src, p->sport, p->dport, p->proto);
}

static bool
in_range(uint16_t v, uint16_t lo, uint16_t hi)
{
	return v >= lo && v <= hi;
}

bool
cb_rule_matches(const struct cb_rule *r, const struct cb_packet *p)
{
	return (p->src & prefix_mask(r->src_len)) == r->src &&
	       (p->dst & prefix_mask(r->dst_len)) == r->dst &&
	       in_range(p->sport, r->sport_lo, r->sport_hi) &&
	       in_range(p->dport, r->dport_lo, r->dport_hi) &&
	       (p->proto & r->proto_mask) == r->proto;
}
