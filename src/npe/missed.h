/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A slice's last missed keys (stats.missed, telemetry /slicepath/missed):
 * the key each of its last SP_MISSED_KEEP lookup misses looked up, with
 * the endpoint it came in on and when, so a `miss` can be diagnosed
 * without a capture.
 *
 * One writer, the lcore of the slice's NPE, and only on a miss (a hit
 * costs nothing); readers off the lcores (the management thread,
 * telemetry) take no lock. Each entry is its own seqlock: the writer makes
 * its sequence odd, writes the words, then makes it even and larger than
 * any before (2n + 2 for the n-th write, counted from 0); a reader keeps
 * an entry whose sequence it read even and unchanged around its copy, and
 * orders the entries by it. An entry being written as it is read is tried
 * again a few times, then left out. Every word is an atomic access, so no
 * read races a write in C11's terms either. No DPDK here: the unit test
 * runs it alone.
 */
#ifndef SP_MISSED_H
#define SP_MISSED_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <slicepath/key.h>

#define SP_MISSED_KEEP 8 /* a power of two */
_Static_assert((SP_MISSED_KEEP & (SP_MISSED_KEEP - 1)) == 0, "SP_MISSED_KEEP a power of two");

/* An entry as the writer keeps it: words only, each written and read atomically. */
struct sp_missed_slot {
	uint64_t seq;  /* 0: never written; odd: being written */
	uint64_t tsc;  /* rte_rdtsc() at the miss */
	uint64_t info; /* the node endpoint it came in on | 1 << 16 if its slow path injected it */
	uint64_t key[2]; /* struct sp_key, its 14 bytes then 2 zero bytes */
};

struct sp_missed {
	struct sp_missed_slot slot[SP_MISSED_KEEP];
	uint64_t writes; /* the writer's alone: how many it began */
};

/* A missed key as read. */
struct sp_missed_key {
	uint64_t nth; /* the slice's n-th miss kept (from 0): the newest has the largest */
	uint64_t tsc;
	uint16_t in_ep;   /* node endpoint id (struct sp_meta's in_ep) */
	bool injected;    /* its slow path injected it (struct sp_meta's from_slow_path) */
	struct sp_key key;
};

#define SP_MISSED_INJECTED (UINT64_C(1) << 16)

/*
 * The writer's two halves (sp_missed_record() is both): begin marks the
 * next slot as being written; end writes it and marks it done. Apart only
 * for the unit test, which reads between them.
 */
static inline struct sp_missed_slot *
sp_missed_begin(struct sp_missed *m)
{
	struct sp_missed_slot *s = &m->slot[m->writes & (SP_MISSED_KEEP - 1)];

	__atomic_store_n(&s->seq, 2 * m->writes + 1, __ATOMIC_RELAXED);
	/* The odd sequence before any word: a reader that sees a new word sees it changed. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return s;
}

static inline void
sp_missed_end(struct sp_missed *m, struct sp_missed_slot *s, const struct sp_key *key,
	      uint16_t in_ep, bool injected, uint64_t tsc)
{
	uint64_t k[2] = {0, 0};

	memcpy(k, key->b, SP_KEY_BYTES); /* the 14 bytes of the options that record misses */
	__atomic_store_n(&s->tsc, tsc, __ATOMIC_RELAXED);
	__atomic_store_n(&s->info, in_ep | (injected ? SP_MISSED_INJECTED : 0), __ATOMIC_RELAXED);
	__atomic_store_n(&s->key[0], k[0], __ATOMIC_RELAXED);
	__atomic_store_n(&s->key[1], k[1], __ATOMIC_RELAXED);
	/* The words before the even sequence (a release store). */
	__atomic_store_n(&s->seq, 2 * m->writes + 2, __ATOMIC_RELEASE);
	m->writes++;
}

/* Keep key, which missed: the writer's, the lcore of the slice's NPE. */
static inline void
sp_missed_record(struct sp_missed *m, const struct sp_key *key, uint16_t in_ep, bool injected,
		 uint64_t tsc)
{
	sp_missed_end(m, sp_missed_begin(m), key, in_ep, injected, tsc);
}

/*
 * The keys kept, newest first, into out (SP_MISSED_KEEP of room): how
 * many. Any thread, while the writer writes, without a lock.
 */
unsigned int sp_missed_read(const struct sp_missed *m, struct sp_missed_key *out);

#endif
