/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A rule set and the keys to look up in it, each with the rule that must
 * answer it. Trace keys come with their rule (the trace's MATCH_ID); random
 * keys are drawn inside a random filter's box and get their rule from the
 * rules' own definition (cb_rule_matches()), so neither depends on an
 * engine.
 */
#include "bench.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

static int
fail(const char *what, const char *why)
{
	fprintf(stderr, "sp-bench-lookup: %s: %s\n", what, why);
	return -1;
}

static int
alloc_keys(struct bench_set *s, size_t n)
{
	size_t i;

	s->nb_keys = n;
	s->keys = aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_MAX(n, (size_t)1) * sizeof(*s->keys));
	s->sp_keys = calloc(RTE_MAX(n, (size_t)1), sizeof(*s->sp_keys));
	s->acl_keys = calloc(RTE_MAX(n, (size_t)1), sizeof(*s->acl_keys));
	s->expect = calloc(RTE_MAX(n, (size_t)1), sizeof(*s->expect));
	if (s->keys == NULL || s->sp_keys == NULL || s->acl_keys == NULL || s->expect == NULL)
		return -ENOMEM;
	memset(s->keys, 0, n * sizeof(*s->keys));
	for (i = 0; i < n; i++) {
		s->sp_keys[i] = &s->keys[i].k;
		s->acl_keys[i] = s->keys[i].k.b;
	}
	return 0;
}

static int
trace_keys(struct bench_set *s, const char *path)
{
	struct cb_packet *p;
	char err[CB_ERR_LEN];
	size_t n, i;
	int rc = 0;

	if (cb_trace_load(path, &p, &n, err) != 0) {
		fprintf(stderr, "sp-bench-lookup: %s\n", err);
		return -1;
	}
	if (alloc_keys(s, n) != 0) {
		free(p);
		return fail(path, "out of memory");
	}
	for (i = 0; i < n && rc == 0; i++) {
		if (p[i].match_id > s->file_rules) {
			fprintf(stderr, "sp-bench-lookup: %s: packet %zu names rule %u of %zu\n",
				path, i + 1, p[i].match_id, s->file_rules);
			rc = -1;
		}
		cb_packet_key(&p[i], &s->keys[i].k);
		/* The first match of the whole file is also the first of the loaded rules. */
		s->expect[i] = p[i].match_id - 1 < s->x.nb_rules ? p[i].match_id - 1 : BENCH_MISS;
	}
	free(p);
	s->from_trace = true;
	return rc;
}

static uint32_t
be32(const uint8_t *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint16_t
be16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* A packet inside filter f: its bits where f cares, random bits elsewhere. */
static struct cb_packet
packet_in(const struct sp_filter *f)
{
	uint8_t b[SP_KEY_BYTES];
	unsigned int i;

	for (i = 0; i < SP_KEY_BYTES; i++)
		b[i] = (uint8_t)((bench_rand() & ~f->mask.b[i]) | f->key.b[i]);
	return (struct cb_packet){.dst = be32(&b[0]), .src = be32(&b[4]),
				  .sport = be16(&b[8]), .dport = be16(&b[10]), .proto = b[12]};
}

/* The set's filters by slice: by_slice lists them, slice s's from start[s] to start[s + 1]. */
static int
filters_by_slice(const struct bench_set *s, uint32_t **by_slice, uint32_t **start)
{
	uint32_t *at = calloc(s->nb_slices + 1u, sizeof(*at));
	uint32_t f;

	*by_slice = malloc(RTE_MAX(s->x.n, (size_t)1) * sizeof(**by_slice));
	*start = calloc(s->nb_slices + 1u, sizeof(**start));
	if (at == NULL || *by_slice == NULL || *start == NULL) {
		free(at);
		return -ENOMEM;
	}
	for (f = 0; f < s->x.n; f++)
		(*start)[bench_rule_slice(s, s->x.rule[f]) + 1]++;
	for (uint16_t sl = 0; sl < s->nb_slices; sl++)
		(*start)[sl + 1] += (*start)[sl];
	memcpy(at, *start, (s->nb_slices + 1u) * sizeof(*at));
	for (f = 0; f < s->x.n; f++)
		(*by_slice)[at[bench_rule_slice(s, s->x.rule[f])]++] = f;
	free(at);
	return 0;
}

static int
random_keys(struct bench_set *s, size_t n)
{
	uint32_t *by_slice = NULL, *start = NULL;
	double begin = now_s();
	struct cb_packet p;
	uint32_t f, r;
	size_t i;

	n = RTE_ALIGN_CEIL(n, (size_t)s->call);
	if (filters_by_slice(s, &by_slice, &start) != 0 || alloc_keys(s, n) != 0) {
		free(by_slice);
		free(start);
		return fail(s->name, "out of memory");
	}
	for (uint16_t sl = 0; sl < s->nb_slices; sl++)
		if (start[sl + 1] == start[sl]) {
			free(by_slice);
			free(start);
			return fail(s->name, s->nb_slices > 1 ? "a slice without filters to draw keys from"
							      : "no filters to draw keys from");
		}
	for (i = 0; i < n; i++) {
		uint16_t sl = bench_burst_slice(s, i);

		f = by_slice[start[sl] + bench_rand() % (start[sl + 1] - start[sl])];
		p = packet_in(&s->x.filters[f]);
		cb_packet_key(&p, &s->keys[i].k);
		/* The slice's rules only; f's own matches, so the search stops there at the latest. */
		for (r = sl; r < s->x.rule[f] && !cb_rule_matches(&s->rules[r], &p); r += s->nb_slices)
			;
		s->expect[i] = r;
	}
	free(by_slice);
	free(start);
	printf("  %zu random keys, each in a random filter%s; expected rules by linear search "
	       "over the rules (%.1f s)\n",
	       n, s->nb_slices > 1 ? " of its burst's slice" : "", now_s() - begin);
	return 0;
}

static const char *
base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

int
bench_set_load(struct bench_set *s, const char *rules, const char *trace, size_t nb_random,
	       uint16_t nb_slices, uint16_t burst, bool rounds)
{
	char err[CB_ERR_LEN];
	int rc;

	memset(s, 0, sizeof(*s));
	s->nb_slices = nb_slices;
	s->burst = burst;
	s->call = rounds ? (uint16_t)(burst * nb_slices) : burst;
	snprintf(s->name, sizeof(s->name), "%s", base_name(rules));
	if (cb_rules_load(rules, &s->rules, &s->file_rules, err) != 0) {
		fprintf(stderr, "sp-bench-lookup: %s\n", err);
		return -1;
	}
	rc = cb_expand(s->rules, s->file_rules, &s->x);
	if (rc != 0)
		return fail(rules, strerror(-rc));
	s->file_filters = s->x.n;
	cb_expansion_keep(&s->x, BENCH_MAX_FILTERS);
	s->capacity = rte_align32pow2((uint32_t)RTE_MAX(s->x.n, (size_t)1));
	printf("== %s: %zu rules, %zu filters, %.2f filters per rule\n", s->name, s->file_rules,
	       s->file_filters, s->file_rules != 0 ? (double)s->file_filters / s->file_rules : 0);
	if (s->x.n < s->file_filters)
		printf("  more than %u filters: filling toward 128K entries with the first %zu "
		       "filters (rules 1-%zu, whole rules)\n",
		       BENCH_MAX_FILTERS, s->x.n, s->x.nb_rules);
	if (nb_slices > 1)
		printf("  %u slices taking turns: rule r in slice r %% %u, each burst of %d keys "
		       "from the next slice\n",
		       nb_slices, nb_slices, burst);
	if (rounds)
		printf("  a lookup call a round, a burst of each slice: sp's one "
		       "sp_lookup_bulk_deferred() as the NPE makes it, rte_acl's a call a slice "
		       "(a context classifies its own keys only)\n");
	if (trace != NULL) {
		if (nb_slices > 1)
			return fail(trace, "a trace answers for one table: no slices (-S)");
		if (trace_keys(s, trace) != 0)
			return -1;
		printf("  %zu trace keys from %s\n", s->nb_keys, trace);
	} else if (random_keys(s, nb_random) != 0) {
		return -1;
	}
	if (s->nb_keys == 0)
		return fail(s->name, "no keys");
	printf("  engine capacity %u\n", s->capacity);
	return 0;
}

void
bench_set_free(struct bench_set *s)
{
	free(s->rules);
	cb_expansion_free(&s->x);
	free(s->keys);
	free(s->sp_keys);
	free(s->acl_keys);
	free(s->expect);
	memset(s, 0, sizeof(*s));
}
