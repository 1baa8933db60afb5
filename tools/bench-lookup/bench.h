/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sp-bench-lookup: the lookup engine (src/lookup/lookup.h) against rte_acl
 * on ClassBench rule sets. What the parts share: the rule set and its keys
 * (keys.c), the engines behind one small interface (sp_engine.c,
 * acl_engine.c), the measurements (measure.c) and the tables (report.c).
 * docs/lookup.md ("Benchmark") says what is measured and how.
 */
#ifndef SP_BENCH_LOOKUP_H
#define SP_BENCH_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_rcu_qsbr.h>

#include "classbench.h"
#include "lookup/lookup.h"

#define BENCH_BURST 32 /* keys a burst at most, and by default (-b) */
/* Keys a lookup call at most: a round of every slice's burst (-R). */
#define BENCH_CALL_MAX (BENCH_BURST * SP_MAX_SLICES)
#define BENCH_MISS UINT32_MAX /* no rule matched */
/* The most filters loaded: one NPE's table (sets beyond it are cut at a rule boundary). */
#define BENCH_MAX_FILTERS SP_LOOKUP_DEFAULT_CAPACITY
#define BENCH_NAME_LEN 64
/*
 * A cache line a key, as a packet's metadata holds it (rte_acl reads its
 * input 4 bytes at a time: the group for key byte 13 reads bytes 12-15).
 */
#define BENCH_KEY_STRIDE 64

/* One key as every engine reads it: the 14 key bytes, then zeros. */
struct bench_key {
	struct sp_key k;
	uint8_t pad[BENCH_KEY_STRIDE - sizeof(struct sp_key)];
};

/*
 * A rule set as loaded (whole rules, at most BENCH_MAX_FILTERS filters) and
 * its keys. With nb_slices > 1 the slices take turns: rule r belongs to
 * slice r % nb_slices (each slice a table of its own), and so does each
 * filter of it; the keys come in bursts (of `burst` keys), burst b of
 * slice b % nb_slices, each key inside a filter of that slice. A lookup
 * call takes a burst, or with rounds (-R) a round: a burst of each slice.
 */
struct bench_set {
	char name[BENCH_NAME_LEN];
	uint16_t nb_slices;
	uint16_t burst; /* keys a burst, at most BENCH_BURST */
	uint16_t call;  /* keys a lookup call: burst, or burst * nb_slices (rounds) */
	struct cb_rule *rules;    /* the file's rules; the first x.nb_rules are loaded */
	size_t file_rules;        /* rules in the file */
	size_t file_filters;      /* filters they expand to */
	struct cb_expansion x;    /* the loaded rules' filters */
	uint32_t capacity;        /* engine capacity: x.n rounded up to a power of two */
	struct bench_key *keys;   /* nb_keys */
	const struct sp_key **sp_keys; /* keys[i].k, for sp_lookup_bulk() */
	const uint8_t **acl_keys; /* keys[i] as bytes, for rte_acl_classify() */
	uint32_t *expect;         /* the first loaded rule matching keys[i], or BENCH_MISS */
	size_t nb_keys;
	bool from_trace;
};

static inline uint16_t
bench_rule_slice(const struct bench_set *s, size_t rule)
{
	return (uint16_t)(rule % s->nb_slices);
}

/* The slice of the burst starting at key first. */
static inline uint16_t
bench_burst_slice(const struct bench_set *s, size_t first)
{
	return (uint16_t)(first / s->burst % s->nb_slices);
}

/*
 * Load rules (and trace, if not NULL, for one slice; else nb_random keys,
 * rounded up to whole calls, each in the box of a random loaded filter of
 * its burst's slice) into s. 0, or -1 after a message on stderr.
 */
int bench_set_load(struct bench_set *s, const char *rules, const char *trace, size_t nb_random,
		   uint16_t nb_slices, uint16_t burst, bool rounds);
void bench_set_free(struct bench_set *s);
/* The set's filters and keys in the IPv6 5-tuple's key instead (-6, ipv6_map.c). */
void bench_set_to_ipv6(struct bench_set *s);

struct engine;

/* An engine under test. lookup() and, if not NULL, write() and erase() are all it needs. */
struct engine_ops {
	const char *name;
	/* Load every filter (or rule) of e->set, filling e's build figures; 0 or -errno. */
	int (*build)(struct engine *e);
	/*
	 * rule[i] = rule of the entry key first + i hits, or BENCH_MISS; n <=
	 * set->call keys from a call's start: one burst, or a round's bursts.
	 */
	void (*lookup)(struct engine *e, size_t first, uint16_t n, uint32_t *rule);
	/* Put filter f of the set at position pos, replacing what is there; 0 or -errno. */
	int (*write)(struct engine *e, uint32_t pos, uint32_t f);
	/* Empty position pos; 0 or -errno. */
	int (*erase)(struct engine *e, uint32_t pos);
	/* Optional: every key's walk counted into w (-P, profile.c); 0 or -errno. */
	int (*walk)(struct engine *e, struct sp_lookup_walk *w);
	void (*free)(struct engine *e);
};

struct engine {
	const struct engine_ops *ops;
	const struct bench_set *set;
	struct rte_rcu_qsbr *qsbr; /* the reader of measure_updates() reports here */
	void *priv;
	/* Set by build(). */
	uint32_t entries; /* filters or rules loaded */
	double build_s;
	size_t mem_bytes; /* rte_malloc heap growth */
	/* Set by write() and erase(): how long the call held its thread (sp: the _nowait
	 * call, not the compile it may then wait for; acl: the whole rebuild). */
	double held_us;
	/*
	 * sp only (-A): a slice of this many filters with random masks beside
	 * the set's slices, never looked up; the writes rewrite it instead of
	 * the set, so the reader's rate while writing is the set's slices' under
	 * an adversary's churn (cost isolation).
	 */
	uint32_t adversary;
	char alg[16];     /* how it classifies, if it has a choice */
};

extern const struct engine_ops sp_engine_ops;
extern const struct engine_ops sp_wide_engine_ops; /* the same, the engine's 40-byte build */
extern const struct engine_ops acl_engine_ops;        /* the filters, 14 bitmask bytes */
extern const struct engine_ops acl_ranges_engine_ops; /* the rules, 5 native fields */

/* One engine on one set: a row of the tables and of the CSV file. */
struct bench_result {
	char set[BENCH_NAME_LEN];
	size_t filters;
	char engine[16];
	char alg[16];
	uint32_t entries;
	double build_s;
	size_t mem_bytes;
	size_t verified, mismatches;
	double ns_per_lookup;
	double p99_burst_ns; /* of the bursts timed, the 99th percentile */
	bool updated; /* the fields below are set */
	double writes_per_s;
	double write_p99_us, write_max_us; /* until a write showed: its client waits that long */
	double held_max_us; /* the longest a write held the writing (management) thread */
	/*
	 * The machine's own share of that: the longest a thread on the writer's
	 * CPU that only reads the clock went unscheduled, while the reader looked
	 * up and nothing was written (a VM's other vCPU busy delays its siblings).
	 */
	double gap_max_us;
	double idle_lookups_per_s, busy_lookups_per_s; /* the reader's, without and with writes */
};

/* Lookups of every key checked against set->expect; returns the mismatches. */
size_t measure_verify(struct engine *e);
/*
 * ns per lookup of each engine over the keys, in bursts, looping for the
 * given time: the median of three rounds, each in this thread's CPU time;
 * and the 99th percentile of a burst's time. The engines' rounds
 * alternate, so that a drift of the machine's speed touches them all
 * alike. At most MAX_ENGINES.
 */
#define MAX_ENGINES 3
void measure_lookups(struct engine *const *e, size_t nb_engines, double seconds,
		     double *ns_per_lookup, double *p99_burst_ns);
/* How measure_updates() writes. */
struct update_opts {
	double rate; /* writes a second at most (0: as fast as they go) */
	/*
	 * Only the widest tenth (fewest mask bits) of the first tenth of the
	 * filters get written: each replaced goes stale in its compiled base and
	 * promotes the most (the worst case for the engine's writes).
	 */
	bool wide;
};

/* measure_updates() figures in r; 0, or -1 after a message. */
int measure_updates(struct engine *e, double seconds, const struct update_opts *how,
		    struct bench_result *r);

/*
 * The profile (-P): every key looked up once, in bursts, inside the CPU's
 * counters (perf_event_open, where the machine has a PMU) and, under
 * valgrind, a callgrind dump of its own (tools/bench-lookup.sh -P); then,
 * for an engine that can tell, what its walks read. Printed.
 */
void profile_engine(struct engine *e);

/* Bytes allocated from the rte_malloc heaps of every socket. */
size_t heap_allocated(void);
double now_s(void);
uint64_t bench_rand(void);

void report_set(FILE *out, const struct bench_set *s, const struct bench_result *r, size_t n);
void report_summary(FILE *out, const struct bench_result *r, size_t n);
/* 0, or -1 after a message. */
int report_csv(const char *path, const struct bench_result *r, size_t n);

#endif
