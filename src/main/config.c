/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepathd configuration: JSON (jansson) into struct sp_config.
 *
 * One pass over the JSON tree. Every field is read through a few typed
 * helpers (get_uint, get_string, get_ipv4, ...) that know the field's JSON
 * path and write the one-line error message; the section parsers below them
 * add only the rules that tie fields together (uniqueness, references,
 * quotas). The format is documented in docs/config.md: keep both in step.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_config.h>

#include "config.h"

/* Longest JSON path we print, e.g. "slices[254].filters[1048575].result.next_hop". */
#define PATH_LEN 128

/* Return from the calling function on error (negative errno). */
#define TRY(expr)                                                                                  \
	do {                                                                                       \
		int rc_ = (expr);                                                                  \
		if (rc_ < 0)                                                                       \
			return rc_;                                                                \
	} while (0)

struct parser {
	struct sp_config *cfg;
	char *err;
	size_t errlen;
};

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

/* Append to the string in buf (truncating: paths and lists only feed messages). */
static void __attribute__((format(printf, 3, 4)))
append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* "parent.key"; just "key" at the top level; just "parent" without a key. */
static void
field_path(char *out, const char *parent, const char *key)
{
	out[0] = '\0';
	if (key == NULL)
		append(out, PATH_LEN, "%s", parent[0] != '\0' ? parent : "top level");
	else if (parent[0] == '\0')
		append(out, PATH_LEN, "%s", key);
	else
		append(out, PATH_LEN, "%s.%s", parent, key);
}

/* "parent.key[i]". */
static void
item_path(char *out, const char *parent, const char *key, size_t i)
{
	field_path(out, parent, key);
	append(out, PATH_LEN, "[%zu]", i);
}

/* Write the error (one line: control characters from quoted values become '?'). */
static void
set_error(struct parser *p, const char *fmt, va_list ap)
{
	if (p->err == NULL || p->errlen == 0)
		return;
	vsnprintf(p->err, p->errlen, fmt, ap);
	for (char *c = p->err; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

static void __attribute__((format(printf, 2, 3)))
set_error_f(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(p, fmt, ap);
	va_end(ap);
}

/* Write "path: message" as the error and return -EINVAL. */
static int __attribute__((format(printf, 4, 5)))
fail(struct parser *p, const char *parent, const char *key, const char *fmt, ...)
{
	char path[PATH_LEN];
	char msg[SP_CONFIG_ERR_LEN];
	va_list ap;

	field_path(path, parent, key);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	set_error_f(p, "%s: %s", path, msg);
	return -EINVAL;
}

static int
out_of_memory(struct parser *p, const char *path)
{
	fail(p, path, NULL, "out of memory; free some memory or shrink the config");
	return -ENOMEM;
}

static const char *
type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a real number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		break;
	}
	return "null";
}

/* ------------------------------------------------------------------ */
/* Text helpers (public ones are shared with the control plane)        */
/* ------------------------------------------------------------------ */

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
sp_parse_hex_bytes(const char *s, uint8_t *out, size_t max, size_t *n)
{
	size_t i;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (i = 0; s[2 * i] != '\0'; i++) {
		int hi = hex_digit(s[2 * i]);
		int lo = hi < 0 ? -1 : hex_digit(s[2 * i + 1]);

		if (lo < 0 || i == max)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*n = i;
	return 0;
}

int
sp_parse_ipv4(const char *s, uint32_t *ip_be)
{
	struct in_addr a;

	/* glibc accepts exactly four decimal parts and no leading zeros here. */
	if (s == NULL || ip_be == NULL || inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*ip_be = a.s_addr;
	return 0;
}

int
sp_parse_mac(const char *s, uint8_t mac[6])
{
	uint8_t m[6];

	if (s == NULL || mac == NULL)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		const char *c = s + 3 * i;
		int hi = hex_digit(c[0]);
		int lo = hi < 0 ? -1 : hex_digit(c[1]);

		if (lo < 0 || c[2] != (i < 5 ? ':' : '\0'))
			return -EINVAL;
		m[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(mac, m, sizeof(m));
	return 0;
}

/*
 * Decimal number with an optional fraction and an optional decimal suffix,
 * computed exactly in integers: "1.5k" is 1500, "1.5" (not a whole number of
 * bits) and anything that does not fit in 64 bits is refused.
 */
int
sp_parse_rate(const char *s, uint64_t *bps)
{
	static const char suffixes[] = "kKMGT";
	static const unsigned int exps[] = { 3, 3, 6, 9, 12 };
	unsigned int digits = 0, frac = 0, exp = 0;
	bool dot = false;
	uint64_t v = 0;
	const char *c;

	if (s == NULL || bps == NULL)
		return -EINVAL;
	for (c = s; *c != '\0'; c++) {
		if (*c >= '0' && *c <= '9') {
			uint64_t d = (uint64_t)(*c - '0');

			if (v > (UINT64_MAX - d) / 10)
				return -EINVAL;
			v = v * 10 + d;
			digits++;
			frac += dot;
		} else if (*c == '.' && !dot && digits > 0) {
			dot = true;
		} else {
			break;
		}
	}
	if (digits == 0 || (dot && frac == 0))
		return -EINVAL;
	if (*c != '\0') {
		const char *suffix = strchr(suffixes, *c);

		if (suffix == NULL || c[1] != '\0')
			return -EINVAL;
		exp = exps[suffix - suffixes];
	}
	for (; frac > exp; frac--) {
		if (v % 10 != 0)
			return -EINVAL;
		v /= 10;
	}
	for (; exp > frac; exp--) {
		if (v > UINT64_MAX / 10)
			return -EINVAL;
		v *= 10;
	}
	if (v == 0)
		return -EINVAL;
	*bps = v;
	return 0;
}

int
sp_parse_hex_key(const char *s, struct sp_key *k)
{
	struct sp_key tmp;
	size_t n;

	if (s == NULL || k == NULL || sp_parse_hex_bytes(s, tmp.b, SP_KEY_BYTES, &n) < 0 ||
	    n != SP_KEY_BYTES)
		return -EINVAL;
	*k = tmp;
	return 0;
}

int
sp_parse_next_hop(const char *s, uint32_t *ip_be, uint16_t *port_be)
{
	const char *colon = strrchr(s, ':');
	char ip[INET_ADDRSTRLEN];
	uint32_t port = 0;
	const char *c;

	if (colon == NULL || (size_t)(colon - s) >= sizeof(ip) || colon[1] == '\0')
		return -EINVAL;
	for (c = colon + 1; *c != '\0'; c++) {
		if (*c < '0' || *c > '9' || c - colon > 5)
			return -EINVAL;
		port = port * 10 + (uint32_t)(*c - '0');
	}
	if (port == 0 || port > 65535)
		return -EINVAL;
	memcpy(ip, s, (size_t)(colon - s));
	ip[colon - s] = '\0';
	if (sp_parse_ipv4(ip, ip_be) < 0)
		return -EINVAL;
	*port_be = htons((uint16_t)port);
	return 0;
}

const char *
sp_unusable_ipv4(uint32_t ip_be)
{
	uint32_t ip = ntohl(ip_be);

	if (ip == 0)
		return "is the unspecified address";
	if (ip == UINT32_MAX)
		return "is the broadcast address";
	if ((ip >> 28) == 0xe)
		return "is a multicast address";
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Typed field readers: each knows its path and writes its message     */
/* ------------------------------------------------------------------ */

/* v must be an object whose keys are all in valid (NULL-terminated). */
static int
check_object(struct parser *p, json_t *v, const char *path, const char *const *valid)
{
	if (!json_is_object(v))
		return fail(p, path, NULL, "expected an object {...}, got %s", type_name(v));
	for (void *it = json_object_iter(v); it != NULL; it = json_object_iter_next(v, it)) {
		const char *key = json_object_iter_key(it);
		char list[256] = "";
		size_t i;

		for (i = 0; valid[i] != NULL && strcmp(valid[i], key) != 0; i++)
			append(list, sizeof(list), "%s%s", i > 0 ? ", " : "", valid[i]);
		if (valid[i] == NULL)
			return fail(p, path, key, "unknown key; the keys allowed here are %s",
				    list);
	}
	return 0;
}

static int
missing(struct parser *p, const char *path, const char *key)
{
	return fail(p, path, key, "required key is missing; add \"%s\" to %s", key,
		    path[0] != '\0' ? path : "the top level");
}

/* A whole number within [min, max]; absent means def unless required. */
struct uint_spec {
	const char *key;
	uint64_t min, max, def;
	bool required;
	bool pow2;
};

#define MIB (UINT64_C(1) << 20)

#define OPT(k, lo, hi, d) { .key = k, .min = lo, .max = hi, .def = d }
#define REQ(k, lo, hi) { .key = k, .min = lo, .max = hi, .required = true }

static const struct uint_spec MBUFS = OPT("mbufs", 1024, 64 * MIB, 16384);
static const struct uint_spec RX_DESC = { "rx_desc", 64, 16384, 1024, false, .pow2 = true };
static const struct uint_spec TX_DESC = { "tx_desc", 64, 16384, 1024, false, .pow2 = true };
static const struct uint_spec OVERHEAD = OPT("overhead", 0, 255, 24);
static const struct uint_spec NPE_FILTERS = OPT("filters", 1, MIB, 131072);
static const struct uint_spec NPE_QUEUES = OPT("queues", 1, MIB, 65536);
static const struct uint_spec LCORE_ID = REQ("id", 1, RTE_MAX_LCORE - 1);
static const struct uint_spec SLICE_ID = REQ("id", 1, SP_MAX_SLICES - 1);
static const struct uint_spec SLICE_NPE = OPT("npe", 0, UINT16_MAX, 0);
static const struct uint_spec SLICE_MEMORY = OPT("memory", 0, 16 * MIB, 4096);
static const struct uint_spec FILTER_QUOTA = OPT("filter_quota", 1, MIB, 1024);
static const struct uint_spec QUEUE_QUOTA = OPT("queue_quota", 1, SP_MAX_SLICE_QUEUES, 16);
static const struct uint_spec UDP_PORT = REQ("udp_port", 1, UINT16_MAX);
static const struct uint_spec QUEUE_ID = REQ("id", 0, UINT16_MAX);
static const struct uint_spec ENDPOINT_REF = REQ("endpoint", 0, UINT16_MAX);
static const struct uint_spec THRESHOLD = OPT("threshold", 2048, UINT32_MAX, 65536);
static const struct uint_spec THRESHOLD_PKTS = OPT("threshold_packets", 1, MIB, 1024);
static const struct uint_spec BUFFER_QUOTA = OPT("buffer_quota", 1, 64 * MIB, 4096);
#define DEFAULT_BANDWIDTH UINT64_C(10000000) /* an endpoint's reservation */
#define DEFAULT_SHARE UINT64_C(1000000)      /* a queue's share */
#define MAX_RATE UINT64_C(10000000000000)    /* 10T: what the queue manager takes */
static const struct uint_spec POSITION = REQ("position", 0, UINT32_MAX);
static const struct uint_spec RESULT_QUEUE = REQ("queue", 0, UINT16_MAX);
/* An element of an lcore's "npes" list (checked against the NPE count). */
static const struct uint_spec NPE_INDEX = OPT(NULL, 0, UINT16_MAX, 0);

/* A JSON number as a whole number >= 0 (1e6 is a real in JSON: accept it);
 * text gets the number as written, for messages. */
static bool
whole_number(json_t *v, uint64_t *u, char text[32])
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		snprintf(text, 32, "%" JSON_INTEGER_FORMAT, i);
		*u = i >= 0 ? (uint64_t)i : 0;
		return i >= 0;
	}
	double d = json_real_value(v);

	snprintf(text, 32, "%g", d);
	*u = 0;
	if (d < 0 || d >= 0x1p64 || d != floor(d))
		return false;
	*u = (uint64_t)d;
	return true;
}

static int
uint_value(struct parser *p, json_t *v, const char *path, const char *key,
	   const struct uint_spec *s, uint64_t *out)
{
	char text[32];
	uint64_t u;

	if (!json_is_number(v))
		return fail(p, path, key, "expected a whole number, got %s", type_name(v));
	if (!whole_number(v, &u, text) || u < s->min || u > s->max)
		return fail(p, path, key, "%s is out of range; use a whole number from %" PRIu64
			    " to %" PRIu64, text, s->min, s->max);
	if (s->pow2 && (u & (u - 1)) != 0)
		return fail(p, path, key, "%s is not a power of two; use one of %" PRIu64
			    ", %" PRIu64 ", ... %" PRIu64, text, s->min, 2 * s->min, s->max);
	*out = u;
	return 0;
}

static int
get_uint(struct parser *p, json_t *obj, const char *path, const struct uint_spec *s,
	 uint64_t *out)
{
	json_t *v = json_object_get(obj, s->key);

	if (v == NULL) {
		if (s->required)
			return missing(p, path, s->key);
		*out = s->def;
		return 0;
	}
	return uint_value(p, v, path, s->key, s, out);
}

/* A nonempty string shorter than maxlen (the size of its destination). */
static int
string_value(struct parser *p, json_t *v, const char *path, const char *key, size_t maxlen,
	     const char **out)
{
	size_t len;

	if (!json_is_string(v))
		return fail(p, path, key, "expected a string, got %s", type_name(v));
	len = json_string_length(v);
	if (len == 0)
		return fail(p, path, key, "is empty; write a value");
	if (len >= maxlen)
		return fail(p, path, key, "is %zu characters long; shorten it to at most %zu", len,
			    maxlen - 1);
	*out = json_string_value(v);
	return 0;
}

/* 1 and *out set when present, 0 when absent and optional, else an error. */
static int
get_string(struct parser *p, json_t *obj, const char *path, const char *key, bool required,
	   size_t maxlen, const char **out)
{
	json_t *v = json_object_get(obj, key);

	if (v == NULL)
		return required ? missing(p, path, key) : 0;
	TRY(string_value(p, v, path, key, maxlen, out));
	return 1;
}

/* A required string copied into dst (of size dstlen). */
static int
get_text(struct parser *p, json_t *obj, const char *path, const char *key, char *dst,
	 size_t dstlen)
{
	const char *s;

	TRY(get_string(p, obj, path, key, true, dstlen, &s));
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

/* A required name: [A-Za-z0-9_], shorter than SP_NAME_LEN. Names key DPDK
 * telemetry dictionaries, which accept no other characters. */
static int
get_name(struct parser *p, json_t *obj, const char *path, const char *key, char *dst)
{
	TRY(get_text(p, obj, path, key, dst, SP_NAME_LEN));
	for (const char *c = dst; *c != '\0'; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '_';

		if (!ok)
			return fail(p, path, key, "\"%s\" contains '%c'; use only letters, digits "
				    "and '_'", dst, *c);
	}
	return 0;
}

/* Absent (optional) arrays leave *out NULL; present ones hold min..max entries. */
static int
get_array(struct parser *p, json_t *obj, const char *path, const char *key, bool required,
	  size_t min, size_t max, json_t **out)
{
	json_t *v = json_object_get(obj, key);
	size_t n;

	*out = NULL;
	if (v == NULL)
		return required ? missing(p, path, key) : 0;
	if (!json_is_array(v))
		return fail(p, path, key, "expected an array [...], got %s", type_name(v));
	n = json_array_size(v);
	if (n < min)
		return fail(p, path, key, "is empty; give at least %zu entr%s%s", min,
			    min == 1 ? "y" : "ies", required ? "" : " or remove the key");
	if (n > max)
		return fail(p, path, key, "has %zu entries; at most %zu are allowed", n, max);
	*out = v;
	return 0;
}

/* A required dotted-quad unicast address. */
static int
get_ipv4(struct parser *p, json_t *obj, const char *path, const char *key, uint32_t *ip_be)
{
	const char *s, *why;

	TRY(get_string(p, obj, path, key, true, SIZE_MAX, &s));
	if (sp_parse_ipv4(s, ip_be) < 0)
		return fail(p, path, key, "\"%s\" is not an IPv4 address; write it as a.b.c.d", s);
	why = sp_unusable_ipv4(*ip_be);
	if (why != NULL)
		return fail(p, path, key, "%s %s; use a unicast address", s, why);
	return 0;
}

/* A unicast MAC; *present tells whether the (optional) key was there. */
static int
get_mac(struct parser *p, json_t *obj, const char *path, const char *key, bool required,
	uint8_t mac[6], bool *present)
{
	static const uint8_t zero[6];
	const char *s;
	int rc;

	rc = get_string(p, obj, path, key, required, SIZE_MAX, &s);
	*present = rc > 0;
	if (rc <= 0)
		return rc;
	if (sp_parse_mac(s, mac) < 0)
		return fail(p, path, key, "\"%s\" is not a MAC address; write it as six hex "
			    "bytes like 02:00:00:00:00:01", s);
	if ((mac[0] & 1) != 0 || memcmp(mac, zero, sizeof(zero)) == 0)
		return fail(p, path, key, "%s is not a unicast MAC address; use one whose first "
			    "byte is even and that is not all zeros, like 02:00:00:00:00:01", s);
	return 0;
}

/* Bits/s: a number, or a string with an optional k/K, M, G or T suffix. */
static int
get_rate(struct parser *p, json_t *obj, const char *path, const char *key, uint64_t def,
	 uint64_t *bps)
{
	json_t *v = json_object_get(obj, key);
	char text[32];

	*bps = def;
	if (v == NULL)
		return 0;
	if (json_is_number(v) && (!whole_number(v, bps, text) || *bps == 0))
		return fail(p, path, key, "%s is not a rate; write a whole number of bits/s above "
			    "0, or a string like \"10G\" or \"1.5M\"", text);
	if (json_is_number(v))
		return 0;
	if (!json_is_string(v))
		return fail(p, path, key, "expected a rate such as \"10G\" or a number of bits/s, "
			    "got %s", type_name(v));
	if (sp_parse_rate(json_string_value(v), bps) < 0)
		return fail(p, path, key, "\"%s\" is not a rate; write a whole number of bits/s "
			    "above 0, optionally with a suffix k, M, G or T, like \"10G\" or "
			    "\"1.5M\"", json_string_value(v));
	return 0;
}

/* A rate as written in a config: with the largest suffix that keeps it whole. */
static const char *
rate_text(uint64_t bps, char buf[32])
{
	static const char suffixes[] = "TGMk";
	uint64_t div = UINT64_C(1000000000000);

	for (const char *c = suffixes; *c != '\0'; c++, div /= 1000) {
		if (bps >= div && bps % div == 0) {
			snprintf(buf, 32, "%" PRIu64 "%c", bps / div, *c);
			return buf;
		}
	}
	snprintf(buf, 32, "%" PRIu64, bps);
	return buf;
}

/* get_rate, within what the queue manager takes. */
static int
get_sched_rate(struct parser *p, json_t *obj, const char *path, const char *key, uint64_t def,
	       uint64_t *bps)
{
	char a[32], b[32];

	TRY(get_rate(p, obj, path, key, def, bps));
	if (*bps > MAX_RATE)
		return fail(p, path, key, "%s is above the %s a scheduler takes; write a lower "
			    "rate", rate_text(*bps, a), rate_text(MAX_RATE, b));
	return 0;
}

/* For "use one of ..." lists: the port names. */
static void
port_names(const struct sp_config *cfg, char *buf, size_t len)
{
	buf[0] = '\0';
	for (uint16_t i = 0; i < cfg->nb_ports; i++)
		append(buf, len, "%s%s", i > 0 ? ", " : "", cfg->ports[i].name);
}

static int
find_port(const struct sp_config *cfg, const char *name)
{
	for (uint16_t i = 0; i < cfg->nb_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return i;
	return -1;
}

/* A required reference to a port by name. */
static int
get_port_ref(struct parser *p, json_t *obj, const char *path, const char *key, uint16_t *port)
{
	char names[SP_MAX_PORTS * SP_NAME_LEN];
	const char *s;
	int i;

	TRY(get_string(p, obj, path, key, true, SIZE_MAX, &s));
	i = find_port(p->cfg, s);
	if (i < 0) {
		port_names(p->cfg, names, sizeof(names));
		return fail(p, path, key, "there is no port named \"%s\"; use one of %s", s, names);
	}
	*port = (uint16_t)i;
	return 0;
}

/* An index (read per s) into a list of count entries, named list in messages. */
static int
get_index(struct parser *p, json_t *obj, const char *path, const struct uint_spec *s,
	  unsigned int count, const char *what, const char *list, uint16_t *out)
{
	uint64_t v;

	TRY(get_uint(p, obj, path, s, &v));
	if (v >= count && count == 0)
		return fail(p, path, s->key, "%s %" PRIu64 " does not exist: %s is empty; define "
			    "it there first", what, v, list);
	if (v >= count)
		return fail(p, path, s->key, "%s %" PRIu64 " does not exist; %s has %u, so use 0 "
			    "to %u", what, v, list, count, count - 1);
	*out = (uint16_t)v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Sections                                                            */
/* ------------------------------------------------------------------ */

/* A top-level array of nonempty strings; store() keeps entry i. */
static int
parse_strings(struct parser *p, json_t *root, const char *key, size_t max, size_t maxlen,
	      int (*store)(struct sp_config *cfg, size_t i, const char *s))
{
	char path[PATH_LEN];
	json_t *arr, *v;
	const char *s;
	size_t i;

	TRY(get_array(p, root, "", key, false, 0, max, &arr));
	json_array_foreach(arr, i, v) {
		item_path(path, "", key, i);
		TRY(string_value(p, v, path, NULL, maxlen, &s));
		if (store(p->cfg, i, s) < 0)
			return out_of_memory(p, path);
	}
	return 0;
}

static int
store_eal_arg(struct sp_config *cfg, size_t i, const char *s)
{
	cfg->eal_argv[i] = strdup(s);
	if (cfg->eal_argv[i] == NULL)
		return -ENOMEM;
	cfg->eal_argc = (int)i + 1;
	return 0;
}

static int
store_codeopt_lib(struct sp_config *cfg, size_t i, const char *s)
{
	memcpy(cfg->codeopt_libs[i], s, strlen(s) + 1);
	cfg->nb_codeopt_libs = (uint16_t)(i + 1);
	return 0;
}

static const char *const PORT_KEYS[] = {
	"name", "device", "ipv4", "mac", "rate", "rx_desc", "tx_desc", "overhead", NULL,
};

static int
parse_port(struct parser *p, json_t *o, const char *path, struct sp_cfg_port *port)
{
	uint64_t v;

	TRY(check_object(p, o, path, PORT_KEYS));
	TRY(get_name(p, o, path, "name", port->name));
	TRY(get_text(p, o, path, "device", port->device, sizeof(port->device)));
	TRY(get_ipv4(p, o, path, "ipv4", &port->ipv4));
	TRY(get_mac(p, o, path, "mac", false, port->mac, &port->has_mac));
	TRY(get_sched_rate(p, o, path, "rate", UINT64_C(10000000000), &port->rate_bps));
	TRY(get_uint(p, o, path, &RX_DESC, &v));
	port->rx_desc = (uint16_t)v;
	TRY(get_uint(p, o, path, &TX_DESC, &v));
	port->tx_desc = (uint16_t)v;
	TRY(get_uint(p, o, path, &OVERHEAD, &v));
	port->overhead = (uint16_t)v;
	return 0;
}

/* Port i against the ports before it. */

/* The device is named by the devargs up to the first comma ("net_pcap0",
 * "0000:3b:00.0"); the arguments after it do not make another device. */
static bool
same_device(const char *a, const char *b)
{
	size_t la = strcspn(a, ","), lb = strcspn(b, ",");

	return la == lb && strncmp(a, b, la) == 0;
}

static int
check_port_unique(struct parser *p, const char *path, uint16_t i)
{
	const struct sp_cfg_port *a = &p->cfg->ports[i];

	for (uint16_t j = 0; j < i; j++) {
		const struct sp_cfg_port *b = &p->cfg->ports[j];
		char ip[INET_ADDRSTRLEN];

		if (strcmp(a->name, b->name) == 0)
			return fail(p, path, "name", "\"%s\" is already the name of ports[%u]; "
				    "give each port its own name", a->name, j);
		if (same_device(a->device, b->device))
			return fail(p, path, "device", "\"%s\" names the device of ports[%u] "
				    "(%s) again; each device can be opened once", a->device, j,
				    b->name);
		if (a->ipv4 == b->ipv4)
			return fail(p, path, "ipv4", "%s is already the address of ports[%u] (%s); "
				    "give each port its own address",
				    inet_ntop(AF_INET, &a->ipv4, ip, sizeof(ip)), j, b->name);
	}
	return 0;
}

static int
parse_ports(struct parser *p, json_t *root)
{
	struct sp_config *cfg = p->cfg;
	uint64_t descs = 0;
	char path[PATH_LEN];
	json_t *arr, *o;
	size_t i;

	TRY(get_array(p, root, "", "ports", true, 1, SP_MAX_PORTS, &arr));
	json_array_foreach(arr, i, o) {
		item_path(path, "", "ports", i);
		TRY(parse_port(p, o, path, &cfg->ports[i]));
		cfg->nb_ports = (uint16_t)(i + 1);
		TRY(check_port_unique(p, path, (uint16_t)i));
		descs += cfg->ports[i].rx_desc + cfg->ports[i].tx_desc;
	}
	/* Rings full of buffers leave none to receive into: the port stalls. */
	if (cfg->mbufs <= descs)
		return fail(p, "", "mbufs", "%u packet buffers cannot even fill the rx and tx "
			    "rings of the ports (%" PRIu64 " descriptors); raise mbufs above %"
			    PRIu64 " or lower rx_desc/tx_desc", cfg->mbufs, descs, descs);
	return 0;
}

static const char *const NEIGHBOR_KEYS[] = { "port", "ipv4", "mac", NULL };

static int
parse_neighbor(struct parser *p, json_t *o, const char *path, uint16_t i)
{
	struct sp_config *cfg = p->cfg;
	struct sp_cfg_neighbor *n = &cfg->neighbors[i];
	char ip[INET_ADDRSTRLEN];
	bool has_mac;

	TRY(check_object(p, o, path, NEIGHBOR_KEYS));
	TRY(get_port_ref(p, o, path, "port", &n->port));
	TRY(get_ipv4(p, o, path, "ipv4", &n->ipv4));
	TRY(get_mac(p, o, path, "mac", true, n->mac, &has_mac));
	inet_ntop(AF_INET, &n->ipv4, ip, sizeof(ip));
	for (uint16_t j = 0; j < cfg->nb_ports; j++)
		if (cfg->ports[j].ipv4 == n->ipv4)
			return fail(p, path, "ipv4", "%s is the address of port %s; a neighbor is "
				    "another node, so use its address", ip, cfg->ports[j].name);
	for (uint16_t j = 0; j < i; j++)
		if (cfg->neighbors[j].port == n->port && cfg->neighbors[j].ipv4 == n->ipv4)
			return fail(p, path, "ipv4", "%s on port %s is already in neighbors[%u]; "
				    "keep one entry", ip, cfg->ports[n->port].name, j);
	return 0;
}

static int
parse_neighbors(struct parser *p, json_t *root)
{
	char path[PATH_LEN];
	json_t *arr, *o;
	size_t i;

	TRY(get_array(p, root, "", "neighbors", false, 0, SP_MAX_NEIGHBORS, &arr));
	json_array_foreach(arr, i, o) {
		item_path(path, "", "neighbors", i);
		TRY(parse_neighbor(p, o, path, (uint16_t)i));
		p->cfg->nb_neighbors = (uint16_t)(i + 1);
	}
	return 0;
}

static const char *const NPE_KEYS[] = { "filters", "queues", "rates", NULL };

/* npes[i].rates: a rate per port name; rate_bps stays 0 for the ports it leaves out. */
static int
parse_npe_rates(struct parser *p, json_t *o, const char *npath, struct sp_cfg_npe *npe)
{
	json_t *rates = json_object_get(o, "rates"), *v;
	char path[PATH_LEN], names[SP_MAX_PORTS * (SP_NAME_LEN + 2)];
	const char *name;

	if (rates == NULL)
		return 0;
	if (!json_is_object(rates))
		return fail(p, npath, "rates", "expected an object of rates by port name, like "
			    "{\"p0\": \"800M\"}, got %s", type_name(rates));
	field_path(path, npath, "rates");
	json_object_foreach(rates, name, v) {
		int port = find_port(p->cfg, name);

		if (port < 0) {
			port_names(p->cfg, names, sizeof(names));
			return fail(p, path, name, "no port is named \"%s\"; use one of %s", name,
				    names);
		}
		TRY(get_sched_rate(p, rates, path, name, 0, &npe->rate_bps[port]));
	}
	return 0;
}

/*
 * Each port's rate is shared by the NPEs' schedulers: those a "rates"
 * names get what they ask for, the others split what is left evenly.
 */
static int
share_port_rates(struct parser *p)
{
	struct sp_config *cfg = p->cfg;
	char a[32], b[32], npath[PATH_LEN], path[PATH_LEN];

	for (uint16_t port = 0; port < cfg->nb_ports; port++) {
		const char *pname = cfg->ports[port].name;
		uint64_t rate = cfg->ports[port].rate_bps, named = 0;
		uint16_t others = 0;

		for (uint16_t n = 0; n < cfg->nb_npes; n++) {
			named += cfg->npes[n].rate_bps[port];
			others += cfg->npes[n].rate_bps[port] == 0;
			item_path(npath, "", "npes", n);
			field_path(path, npath, "rates");
			if (named > rate)
				return fail(p, path, pname, "the NPEs' schedulers on %s would send "
					    "%s in all but the port's rate is %s; lower their "
					    "rates or raise ports[%u].rate", pname,
					    rate_text(named, a), rate_text(rate, b), port);
		}
		for (uint16_t n = 0; n < cfg->nb_npes; n++) {
			if (cfg->npes[n].rate_bps[port] != 0)
				continue;
			cfg->npes[n].rate_bps[port] = (rate - named) / others;
			item_path(path, "", "npes", n);
			if (cfg->npes[n].rate_bps[port] == 0)
				return fail(p, path, "rates", "no rate is left on %s for NPE %u: the "
					    "other NPEs take all of its %s; give npes[%u] a rate "
					    "there and lower the others'", pname, n,
					    rate_text(rate, a), n);
		}
	}
	return 0;
}

static int
parse_npes(struct parser *p, json_t *root)
{
	struct sp_config *cfg = p->cfg;
	char path[PATH_LEN];
	json_t *arr, *o;
	uint64_t v;
	size_t i;

	TRY(get_array(p, root, "", "npes", false, 1, SP_MAX_NPES, &arr));
	if (arr == NULL) {
		cfg->nb_npes = 1;
		cfg->npes[0].filters = (uint32_t)NPE_FILTERS.def;
		cfg->npes[0].queues = (uint32_t)NPE_QUEUES.def;
		return share_port_rates(p);
	}
	json_array_foreach(arr, i, o) {
		item_path(path, "", "npes", i);
		TRY(check_object(p, o, path, NPE_KEYS));
		TRY(get_uint(p, o, path, &NPE_FILTERS, &v));
		cfg->npes[i].filters = (uint32_t)v;
		TRY(get_uint(p, o, path, &NPE_QUEUES, &v));
		cfg->npes[i].queues = (uint32_t)v;
		TRY(parse_npe_rates(p, o, path, &cfg->npes[i]));
		cfg->nb_npes = (uint16_t)(i + 1);
	}
	return share_port_rates(p);
}

static const char *const LCORE_KEYS[] = { "id", "lc", "npes", NULL };

/* owner[npe] is 1 + the index of the lcore running it, 0 for none yet. */
static int
parse_lcore(struct parser *p, json_t *o, const char *path, uint16_t i, uint16_t owner[])
{
	struct sp_config *cfg = p->cfg;
	struct sp_cfg_lcore *lc = &cfg->lcores[i];
	char npath[PATH_LEN];
	json_t *arr, *v, *lcv;
	uint64_t id;
	size_t j;

	TRY(check_object(p, o, path, LCORE_KEYS));
	TRY(get_uint(p, o, path, &LCORE_ID, &id));
	lc->id = (unsigned int)id;
	for (uint16_t k = 0; k < i; k++)
		if (cfg->lcores[k].id == lc->id)
			return fail(p, path, "id", "lcore %u is already lcores[%u]; give each "
				    "lcore its own id", lc->id, k);
	lcv = json_object_get(o, "lc");
	if (lcv != NULL && !json_is_boolean(lcv))
		return fail(p, path, "lc", "expected true or false, got %s", type_name(lcv));
	lc->lc = json_is_true(lcv);
	TRY(get_array(p, o, path, "npes", false, 0, SP_MAX_NPES, &arr));
	json_array_foreach(arr, j, v) {
		uint64_t npe;

		item_path(npath, path, "npes", j);
		TRY(uint_value(p, v, npath, NULL, &NPE_INDEX, &npe));
		if (npe >= cfg->nb_npes)
			return fail(p, npath, NULL, "NPE %" PRIu64 " does not exist; npes has %u, "
				    "so use 0 to %u", npe, cfg->nb_npes, cfg->nb_npes - 1);
		if (owner[npe] != 0)
			return fail(p, npath, NULL, "NPE %" PRIu64 " already runs on lcores[%u]; "
				    "every NPE runs on exactly one lcore, so list it once",
				    npe, owner[npe] - 1);
		owner[npe] = (uint16_t)(i + 1);
		lc->npes[lc->nb_npes++] = (uint16_t)npe;
	}
	if (!lc->lc && lc->nb_npes == 0)
		return fail(p, path, NULL, "lcore %u has no role; set \"lc\": true or give it "
			    "\"npes\", or remove it", lc->id);
	return 0;
}

static int
parse_lcores(struct parser *p, json_t *root)
{
	struct sp_config *cfg = p->cfg;
	uint16_t owner[SP_MAX_NPES] = { 0 };
	int lc_index = -1;
	char path[PATH_LEN];
	json_t *arr, *o;
	size_t i;

	TRY(get_array(p, root, "", "lcores", false, 1, SP_MAX_WORKERS, &arr));
	if (arr == NULL) {
		/* Run to completion: one lcore does everything. */
		cfg->nb_lcores = 1;
		cfg->lcores[0].id = 1;
		cfg->lcores[0].lc = true;
		for (uint16_t n = 0; n < cfg->nb_npes; n++)
			cfg->lcores[0].npes[cfg->lcores[0].nb_npes++] = n;
		return 0;
	}
	json_array_foreach(arr, i, o) {
		item_path(path, "", "lcores", i);
		TRY(parse_lcore(p, o, path, (uint16_t)i, owner));
		cfg->nb_lcores = (uint16_t)(i + 1);
		if (cfg->lcores[i].lc && lc_index >= 0)
			return fail(p, path, "lc", "lcores[%d] is already the LC lcore; in this "
				    "version one LC lcore owns all ports, so set \"lc\": true on "
				    "exactly one lcore", lc_index);
		if (cfg->lcores[i].lc)
			lc_index = (int)i;
	}
	if (lc_index < 0)
		return fail(p, "", "lcores", "no lcore has \"lc\": true; in this version one LC "
			    "lcore owns all ports, so set \"lc\": true on exactly one lcore");
	for (uint16_t n = 0; n < cfg->nb_npes; n++)
		if (owner[n] == 0)
			return fail(p, "", "lcores", "NPE %u runs on no lcore; add %u to the "
				    "\"npes\" of exactly one lcore", n, n);
	return 0;
}

/* ---- slices ---- */

static const char *const SLICE_KEYS[] = {
	"name", "id", "codeopt", "npe", "memory", "filter_quota", "queue_quota", "buffer_quota",
	"endpoints", "queues", "filters", NULL,
};
static const char *const ENDPOINT_KEYS[] = { "port", "udp_port", "bandwidth", NULL };
static const char *const QUEUE_KEYS[] = {
	"id", "endpoint", "threshold", "threshold_packets", "share", NULL,
};
static const char *const FILTER_KEYS[] = { "position", "key", "mask", "result", NULL };
static const char *const RESULT_KEYS[] = { "endpoint", "queue", "next_hop", "data", NULL };

/* What the slices on an NPE take of it. */
struct npe_use {
	uint64_t filters;
	uint64_t queues;
	uint64_t reserved_bps[SP_MAX_PORTS]; /* the slices' endpoints' bandwidth */
};

/* Slice si's endpoint ei against every endpoint before it, in all slices. */
static int
check_endpoint_unique(struct parser *p, const char *path, uint16_t si, uint16_t ei)
{
	const struct sp_config *cfg = p->cfg;
	const struct sp_cfg_endpoint *e = &cfg->slices[si].endpoints[ei];

	for (uint16_t s = 0; s <= si; s++) {
		uint16_t n = s < si ? cfg->slices[s].nb_endpoints : ei;

		for (uint16_t k = 0; k < n; k++) {
			const struct sp_cfg_endpoint *o = &cfg->slices[s].endpoints[k];

			if (o->port == e->port && o->udp_port == e->udp_port)
				return fail(p, path, "udp_port", "%s:%u is already reserved by "
					    "slices[%u].endpoints[%u]; pick another udp_port",
					    cfg->ports[e->port].name, e->udp_port, s, k);
		}
	}
	return 0;
}

/* Endpoint e of slice s reserves its bandwidth on its NPE's scheduler for its port. */
static int
reserve_bandwidth(struct parser *p, const char *path, const struct sp_cfg_slice *s,
		  const struct sp_cfg_endpoint *e, struct npe_use *use)
{
	uint64_t rate = p->cfg->npes[s->npe].rate_bps[e->port];
	const char *pname = p->cfg->ports[e->port].name;
	char a[32], b[32];

	use->reserved_bps[e->port] += e->bandwidth_bps;
	if (use->reserved_bps[e->port] > rate)
		return fail(p, path, "bandwidth", "the endpoints of NPE %u's slices on %s would "
			    "reserve %s in all but its scheduler there sends %s; lower their "
			    "bandwidth or raise npes[%u].rates.%s", s->npe, pname,
			    rate_text(use->reserved_bps[e->port], a), rate_text(rate, b), s->npe,
			    pname);
	return 0;
}

static int
parse_endpoints(struct parser *p, json_t *so, const char *spath, uint16_t si,
		struct npe_use use[])
{
	struct sp_cfg_slice *s = &p->cfg->slices[si];
	char path[PATH_LEN];
	json_t *arr, *o;
	uint64_t v;
	size_t i;

	TRY(get_array(p, so, spath, "endpoints", false, 0, SP_MAX_SLICE_ENDPOINTS, &arr));
	json_array_foreach(arr, i, o) {
		struct sp_cfg_endpoint *e = &s->endpoints[i];

		item_path(path, spath, "endpoints", i);
		TRY(check_object(p, o, path, ENDPOINT_KEYS));
		TRY(get_port_ref(p, o, path, "port", &e->port));
		TRY(get_uint(p, o, path, &UDP_PORT, &v));
		e->udp_port = (uint16_t)v;
		TRY(check_endpoint_unique(p, path, si, (uint16_t)i));
		TRY(get_sched_rate(p, o, path, "bandwidth", DEFAULT_BANDWIDTH, &e->bandwidth_bps));
		TRY(reserve_bandwidth(p, path, s, e, &use[s->npe]));
		s->nb_endpoints = (uint16_t)(i + 1);
	}
	return 0;
}

/* Queue i's share, with the shares of the slice's queues before it on the same port. */
static int
check_share(struct parser *p, const char *path, const struct sp_cfg_slice *s, size_t i)
{
	uint16_t port = s->endpoints[s->queues[i].endpoint].port;
	uint64_t shares = 0, reserved = 0;
	char a[32], b[32];

	for (uint16_t e = 0; e < s->nb_endpoints; e++)
		if (s->endpoints[e].port == port)
			reserved += s->endpoints[e].bandwidth_bps;
	for (size_t k = 0; k <= i; k++)
		if (s->endpoints[s->queues[k].endpoint].port == port)
			shares += s->queues[k].share_bps;
	if (shares > reserved)
		return fail(p, path, "share", "the slice's queues on %s would share %s but its "
			    "endpoints there reserve %s; lower the queues' shares or raise the "
			    "endpoints' bandwidth", p->cfg->ports[port].name, rate_text(shares, a),
			    rate_text(reserved, b));
	return 0;
}

static int
parse_queues(struct parser *p, json_t *so, const char *spath, struct sp_cfg_slice *s)
{
	char path[PATH_LEN], list[PATH_LEN];
	json_t *arr, *o;
	uint64_t v;
	size_t i;

	field_path(list, spath, "endpoints");
	TRY(get_array(p, so, spath, "queues", false, 0, SP_MAX_SLICE_QUEUES, &arr));
	json_array_foreach(arr, i, o) {
		struct sp_cfg_queue *q = &s->queues[i];

		item_path(path, spath, "queues", i);
		TRY(check_object(p, o, path, QUEUE_KEYS));
		TRY(get_uint(p, o, path, &QUEUE_ID, &v));
		if (v >= s->queue_quota)
			return fail(p, path, "id", "%" PRIu64 " is out of range: queue_quota is "
				    "%u, so use 0 to %u or raise queue_quota", v, s->queue_quota,
				    s->queue_quota - 1);
		q->id = (uint16_t)v;
		for (size_t k = 0; k < i; k++)
			if (s->queues[k].id == q->id)
				return fail(p, path, "id", "queue %u is already defined by "
					    "%s.queues[%zu]; give each queue its own id", q->id,
					    spath, k);
		TRY(get_index(p, o, path, &ENDPOINT_REF, s->nb_endpoints, "endpoint", list,
			      &q->endpoint));
		TRY(get_uint(p, o, path, &THRESHOLD, &v));
		q->threshold = (uint32_t)v;
		TRY(get_uint(p, o, path, &THRESHOLD_PKTS, &v));
		q->threshold_pkts = (uint32_t)v;
		TRY(get_sched_rate(p, o, path, "share", DEFAULT_SHARE, &q->share_bps));
		TRY(check_share(p, path, s, i));
		s->nb_queues = (uint16_t)(i + 1);
	}
	return 0;
}

static const struct sp_cfg_queue *
find_queue(const struct sp_cfg_slice *s, uint64_t id)
{
	for (uint16_t i = 0; i < s->nb_queues; i++)
		if (s->queues[i].id == id)
			return &s->queues[i];
	return NULL;
}

/* "queue" of a result: a queue the slice defines, feeding the result's port. */
static int
get_result_queue(struct parser *p, json_t *o, const char *path, const char *spath,
		 const struct sp_cfg_slice *s, struct sp_result *r)
{
	const struct sp_cfg_port *ports = p->cfg->ports;
	const struct sp_cfg_queue *q;
	char ids[SP_MAX_SLICE_QUEUES * 4] = "";
	uint16_t want, have;
	uint64_t v;

	TRY(get_uint(p, o, path, &RESULT_QUEUE, &v));
	q = find_queue(s, v);
	if (q == NULL && s->nb_queues == 0)
		return fail(p, path, "queue", "queue %" PRIu64 " is not defined: %s.queues is "
			    "empty; define it there", v, spath);
	if (q == NULL) {
		for (uint16_t i = 0; i < s->nb_queues; i++)
			append(ids, sizeof(ids), "%s%u", i > 0 ? ", " : "", s->queues[i].id);
		return fail(p, path, "queue", "queue %" PRIu64 " is not defined in %s.queues; "
			    "define it or use one of %s", v, spath, ids);
	}
	want = s->endpoints[r->endpoint].port;
	have = s->endpoints[q->endpoint].port;
	if (want != have)
		return fail(p, path, "queue", "queue %u feeds endpoint %u on port %s but the "
			    "result sends from endpoint %u on port %s; use a queue of an endpoint "
			    "on %s",
			    q->id, q->endpoint, ports[have].name, r->endpoint, ports[want].name,
			    ports[want].name);
	r->queue = q->id;
	return 0;
}

static int
parse_result(struct parser *p, json_t *fo, const char *fpath, const char *spath,
	     const struct sp_cfg_slice *s, struct sp_result *r)
{
	char path[PATH_LEN], list[PATH_LEN];
	json_t *o = json_object_get(fo, "result");
	const char *str, *why;
	size_t n;
	int rc;

	if (o == NULL)
		return missing(p, fpath, "result");
	field_path(path, fpath, "result");
	field_path(list, spath, "endpoints");
	TRY(check_object(p, o, path, RESULT_KEYS));
	TRY(get_index(p, o, path, &ENDPOINT_REF, s->nb_endpoints, "endpoint", list, &r->endpoint));
	TRY(get_result_queue(p, o, path, spath, s, r));
	TRY(get_string(p, o, path, "next_hop", true, SIZE_MAX, &str));
	if (sp_parse_next_hop(str, &r->nh_ip, &r->nh_port) < 0)
		return fail(p, path, "next_hop", "\"%s\" is not a next hop; write it as "
			    "a.b.c.d:port with a UDP port from 1 to 65535", str);
	why = sp_unusable_ipv4(r->nh_ip);
	if (why != NULL)
		return fail(p, path, "next_hop", "the address of %s %s; use the next node's "
			    "unicast address", str, why);
	rc = get_string(p, o, path, "data", false, SIZE_MAX, &str);
	if (rc > 0 && sp_parse_hex_bytes(str, r->data, SP_RESULT_DATA_BYTES, &n) < 0)
		return fail(p, path, "data", "\"%s\" is not result data; write up to %d hex "
			    "digits, two per byte", str, 2 * SP_RESULT_DATA_BYTES);
	return rc < 0 ? rc : 0;
}

static int
get_key(struct parser *p, json_t *o, const char *path, const char *key, struct sp_key *k)
{
	const char *s;

	TRY(get_string(p, o, path, key, true, SIZE_MAX, &s));
	if (sp_parse_hex_key(s, k) < 0)
		return fail(p, path, key, "\"%s\" is not a 112-bit value; write exactly %d hex "
			    "digits, optionally after 0x", s, 2 * SP_KEY_BYTES);
	return 0;
}

/* used[pos] is 1 + the index of the filter at pos, 0 if none yet. */
static int
parse_filter(struct parser *p, json_t *o, const char *path, const char *spath,
	     const struct sp_cfg_slice *s, uint32_t i, uint32_t *used, struct sp_cfg_filter *f)
{
	uint64_t v;

	TRY(check_object(p, o, path, FILTER_KEYS));
	TRY(get_uint(p, o, path, &POSITION, &v));
	if (v >= s->filter_quota)
		return fail(p, path, "position", "%" PRIu64 " is out of range: filter_quota is %u, "
			    "so use 0 to %u or raise filter_quota", v, s->filter_quota,
			    s->filter_quota - 1);
	if (used[v] != 0)
		return fail(p, path, "position", "%" PRIu64 " is already taken by %s.filters[%u]; "
			    "give each filter its own position", v, spath, used[v] - 1);
	used[v] = i + 1;
	f->position = (uint32_t)v;
	TRY(get_key(p, o, path, "key", &f->key));
	TRY(get_key(p, o, path, "mask", &f->mask));
	return parse_result(p, o, path, spath, s, &f->result);
}

static int
parse_filters(struct parser *p, json_t *so, const char *spath, struct sp_cfg_slice *s)
{
	char path[PATH_LEN];
	uint32_t *used;
	json_t *arr, *o;
	size_t i;
	int rc = 0;

	TRY(get_array(p, so, spath, "filters", false, 0, s->filter_quota, &arr));
	if (arr == NULL || json_array_size(arr) == 0)
		return 0;
	s->filters = calloc(json_array_size(arr), sizeof(*s->filters));
	used = calloc(s->filter_quota, sizeof(*used));
	if (s->filters == NULL || used == NULL) {
		free(used);
		return out_of_memory(p, spath);
	}
	json_array_foreach(arr, i, o) {
		item_path(path, spath, "filters", i);
		rc = parse_filter(p, o, path, spath, s, (uint32_t)i, used, &s->filters[i]);
		if (rc < 0)
			break;
		s->nb_filters = (uint32_t)(i + 1);
	}
	free(used);
	return rc;
}

/* Quotas of all slices on one NPE must fit the NPE's tables. */
static int
parse_slice_head(struct parser *p, json_t *o, const char *path, uint16_t si,
		 struct npe_use use[])
{
	struct sp_config *cfg = p->cfg;
	struct sp_cfg_slice *s = &cfg->slices[si];
	uint64_t v;

	TRY(check_object(p, o, path, SLICE_KEYS));
	TRY(get_name(p, o, path, "name", s->name));
	TRY(get_uint(p, o, path, &SLICE_ID, &v));
	s->id = (uint16_t)v;
	for (uint16_t k = 0; k < si; k++) {
		if (strcmp(cfg->slices[k].name, s->name) == 0)
			return fail(p, path, "name", "\"%s\" is already the name of slices[%u]; "
				    "give each slice its own name", s->name, k);
		if (cfg->slices[k].id == s->id)
			return fail(p, path, "id", "%u is already the id of slices[%u] (%s); give "
				    "each slice its own id", s->id, k, cfg->slices[k].name);
	}
	TRY(get_text(p, o, path, "codeopt", s->codeopt, sizeof(s->codeopt)));
	TRY(get_index(p, o, path, &SLICE_NPE, cfg->nb_npes, "NPE", "npes", &s->npe));
	TRY(get_uint(p, o, path, &SLICE_MEMORY, &v));
	s->mem_bytes = (uint32_t)v;
	TRY(get_uint(p, o, path, &FILTER_QUOTA, &v));
	s->filter_quota = (uint32_t)v;
	TRY(get_uint(p, o, path, &QUEUE_QUOTA, &v));
	s->queue_quota = (uint16_t)v;
	TRY(get_uint(p, o, path, &BUFFER_QUOTA, &v));
	s->buffer_quota = (uint32_t)v;

	use[s->npe].filters += s->filter_quota;
	if (use[s->npe].filters > cfg->npes[s->npe].filters)
		return fail(p, path, "filter_quota", "the slices on NPE %u need %" PRIu64
			    " filters in all but npes[%u].filters is %u; lower the slices' "
			    "filter_quota or raise npes[%u].filters", s->npe, use[s->npe].filters,
			    s->npe, cfg->npes[s->npe].filters, s->npe);
	use[s->npe].queues += s->queue_quota;
	if (use[s->npe].queues > cfg->npes[s->npe].queues)
		return fail(p, path, "queue_quota", "the slices on NPE %u need %" PRIu64 " queues "
			    "in all but npes[%u].queues is %u; lower the slices' queue_quota or "
			    "raise npes[%u].queues", s->npe, use[s->npe].queues, s->npe,
			    cfg->npes[s->npe].queues, s->npe);
	return 0;
}

static int
parse_slices(struct parser *p, json_t *root)
{
	struct sp_config *cfg = p->cfg;
	struct npe_use use[SP_MAX_NPES] = { { 0 } };
	char path[PATH_LEN];
	json_t *arr, *o;
	size_t i;

	TRY(get_array(p, root, "", "slices", false, 0, SP_MAX_SLICES - 1, &arr));
	json_array_foreach(arr, i, o) {
		struct sp_cfg_slice *s = &cfg->slices[i];

		/* Count it first, so sp_config_free() sees its filters on error. */
		cfg->nb_slices = (uint16_t)(i + 1);
		item_path(path, "", "slices", i);
		TRY(parse_slice_head(p, o, path, (uint16_t)i, use));
		TRY(parse_endpoints(p, o, path, (uint16_t)i, use));
		TRY(parse_queues(p, o, path, s));
		TRY(parse_filters(p, o, path, s));
	}
	return 0;
}

static const char *const TOP_KEYS[] = {
	"eal", "mbufs", "codeopt_libs", "mgmt_socket", "ports", "neighbors", "npes", "lcores",
	"slices", NULL,
};

/* Where the management socket listens: an absolute path that fits a sockaddr_un. */
static int
parse_mgmt_socket(struct parser *p, json_t *root)
{
	struct sp_config *cfg = p->cfg;
	const char *s;
	int rc = get_string(p, root, "", "mgmt_socket", false, SP_SOCKET_PATH_LEN, &s);

	if (rc < 0)
		return rc;
	if (rc == 0) {
		memcpy(cfg->mgmt_socket, SP_DEFAULT_MGMT_SOCKET, sizeof(SP_DEFAULT_MGMT_SOCKET));
		return 0;
	}
	if (s[0] != '/')
		return fail(p, "", "mgmt_socket", "\"%s\" is not an absolute path; write one like "
			    "\"%s\"", s, SP_DEFAULT_MGMT_SOCKET);
	memcpy(cfg->mgmt_socket, s, strlen(s) + 1);
	return 0;
}

static int
parse_root(struct parser *p, json_t *root)
{
	uint64_t v;

	TRY(check_object(p, root, "", TOP_KEYS));
	TRY(parse_strings(p, root, "eal", SP_MAX_EAL_ARGS, SIZE_MAX, store_eal_arg));
	TRY(get_uint(p, root, "", &MBUFS, &v));
	p->cfg->mbufs = (uint32_t)v;
	TRY(parse_strings(p, root, "codeopt_libs", SP_MAX_CODEOPT_LIBS, SP_PATH_LEN,
			  store_codeopt_lib));
	TRY(parse_mgmt_socket(p, root));
	TRY(parse_ports(p, root));
	TRY(parse_neighbors(p, root));
	TRY(parse_npes(p, root));
	TRY(parse_lcores(p, root));
	return parse_slices(p, root);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

static int
parse_buffer(const char *text, size_t len, struct sp_config *cfg, char *err, size_t errlen)
{
	struct parser p = { .cfg = cfg, .err = err, .errlen = errlen };
	json_error_t je;
	json_t *root;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL && je.line > 0) {
		set_error_f(&p, "line %d column %d: JSON syntax error: %s", je.line, je.column,
			    je.text);
		return -EINVAL;
	}
	if (root == NULL) {
		set_error_f(&p, "JSON syntax error: %s", je.text);
		return -EINVAL;
	}
	rc = parse_root(&p, root);
	json_decref(root);
	if (rc < 0)
		sp_config_free(cfg);
	return rc;
}

int
sp_config_parse(const char *json_text, struct sp_config *cfg, char *err, size_t errlen)
{
	if (cfg == NULL)
		return -EINVAL;
	if (json_text == NULL) {
		memset(cfg, 0, sizeof(*cfg));
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "no config text given; pass the JSON text");
		return -EINVAL;
	}
	return parse_buffer(json_text, strlen(json_text), cfg, err, errlen);
}

/* The whole file, NUL-terminated; NULL with errno set on failure. */
static char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0, n = 0, got;
	char *buf = NULL;
	int error = 0;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (n == cap) {
			char *grown = realloc(buf, (cap = cap != 0 ? 2 * cap : 65536) + 1);

			if (grown == NULL) {
				error = ENOMEM;
				break;
			}
			buf = grown;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			error = ferror(f) ? (errno != 0 ? errno : EIO) : 0;
			break;
		}
	}
	fclose(f);
	if (error != 0) {
		free(buf);
		errno = error;
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

int
sp_config_load(const char *path, struct sp_config *cfg, char *err, size_t errlen)
{
	char msg[SP_CONFIG_ERR_LEN];
	size_t len = 0;
	char *text;
	int rc;

	if (path == NULL || cfg == NULL)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	text = read_file(path, &len);
	if (text == NULL) {
		rc = -errno;
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: cannot read: %s", path, strerror(-rc));
		return rc;
	}
	rc = parse_buffer(text, len, cfg, msg, sizeof(msg));
	free(text);
	if (rc < 0 && err != NULL && errlen > 0)
		snprintf(err, errlen, "%s: %s", path, msg);
	return rc;
}

void
sp_config_free(struct sp_config *cfg)
{
	if (cfg == NULL)
		return;
	for (int i = 0; i < cfg->eal_argc; i++)
		free(cfg->eal_argv[i]);
	for (uint16_t i = 0; i < cfg->nb_slices; i++)
		free(cfg->slices[i].filters);
	memset(cfg, 0, sizeof(*cfg));
}
