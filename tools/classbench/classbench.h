/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ClassBench rule sets and header traces (formats in
 * shared/data/classbench/SOURCE.md), turned into what the lookup engine
 * takes: ternary filters and keys in the ipv4 code option's key layout
 * (docs/codeopt.md). For benchmarks and tests, not for the daemon.
 *
 * Addresses and ports are host order here; keys and masks are network order.
 */
#ifndef SP_TOOLS_CLASSBENCH_H
#define SP_TOOLS_CLASSBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slicepath/ipv4.h>

#include "lookup/lookup.h"


/* Room for "path:line: what was wrong". */
#define CB_ERR_LEN 512

/* One rule; its index in the file (0-based) is its priority, 0 the highest. */
struct cb_rule {
	uint32_t src, dst;        /* host bits below the prefix length cleared */
	uint8_t src_len, dst_len; /* 0..32, 0 is a wildcard */
	uint16_t sport_lo, sport_hi;
	uint16_t dport_lo, dport_hi;
	uint8_t proto, proto_mask; /* proto has no bits outside proto_mask */
};

/* One trace line. */
struct cb_packet {
	uint32_t src, dst;
	uint16_t sport, dport;
	uint8_t proto;
	uint32_t match_id; /* 1-based index of the first matching rule: rule match_id - 1 */
};

/* A rule set as ternary filters, each rule's filters consecutive and in rule order. */
struct cb_expansion {
	struct sp_filter *filters; /* result all zero */
	uint32_t *rule;            /* rule[i]: index of the rule filters[i] came from */
	size_t n;                  /* filters */
	size_t nb_rules;
};

/*
 * Read a rule file (5 fields separated by spaces, or 6 separated by tabs
 * with the TCP flags last, which are checked and ignored). Returns 0 and a
 * malloc'ed array in *rules, or a negative errno with err set to
 * "path:line: what".
 */
int cb_rules_load(const char *path, struct cb_rule **rules, size_t *n, char err[CB_ERR_LEN]);

/* Read a trace file, as cb_rules_load(). MATCH_ID 0 is refused (it is 1-based). */
int cb_trace_load(const char *path, struct cb_packet **pkts, size_t *n, char err[CB_ERR_LEN]);

/*
 * Expand rules into the cross product of their source and destination
 * port prefixes (sp_range_to_prefixes()). 0 or -ENOMEM; free with
 * cb_expansion_free().
 */
int cb_expand(const struct cb_rule *rules, size_t n, struct cb_expansion *x);
void cb_expansion_free(struct cb_expansion *x);

/*
 * Keep whole rules, at most max filters: the first rules that fit (a rule
 * cut in two would leave keys whose right answer no rule definition gives).
 */
void cb_expansion_keep(struct cb_expansion *x, size_t max);

/* Filters per rule. */
double cb_expansion_factor(const struct cb_expansion *x);

/* The key the ipv4 code option would build for this packet. */
void cb_packet_key(const struct cb_packet *p, struct sp_key *k);

/* The rule's own definition of a match, by ranges and prefixes: the oracle for the filters. */
bool cb_rule_matches(const struct cb_rule *r, const struct cb_packet *p);

/*
 * A ClassBench-like set made here (generate.c), the same for a seed on every
 * machine: n rules, the last a wildcard; a trace of np headers whose MATCH_IDs
 * are their first matching rule. Then written in the files' formats: 0 or a
 * negative errno.
 */
void cb_generate_rules(struct cb_rule *r, size_t n, uint64_t seed);
void cb_generate_trace(const struct cb_rule *r, size_t nr, struct cb_packet *p, size_t np,
		       uint64_t seed);
int cb_rules_write(const char *path, const struct cb_rule *r, size_t n);
int cb_trace_write(const char *path, const struct cb_packet *p, size_t n);

#endif
