/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table's insides, shared by the writers' API (lookup.c), the lookup
 * lcore's (worker.c) and the compiler thread (builder.c).
 */
#ifndef SP_LOOKUP_TABLE_H
#define SP_LOOKUP_TABLE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_log.h>

#include "changes.h"
#include "flows.h"
#include "hits.h"
#include "lookup.h"

struct lk_slice {
	struct lk_view *view; /* the lookups': RCU-protected */
	struct lk_hits hits;  /* count: by position, written by the lookup lcore only */
	uint32_t quota;
	uint32_t nb_used; /* positions holding a filter */
	/* The rest is the writer's and the compiler's, under the table's lock. */
	struct lk_slot *truth;   /* by position: what the slice wrote */
	struct lk_changes *chg;  /* view->base to truth, while not pending */
	uint64_t *dirty;         /* bitmap by position: changed since the compile's snapshot */
	uint64_t first_seq;      /* seq of the slice when made: a ticket below it was an earlier slice's */
	uint64_t seq;            /* changes made */
	uint64_t view_seq;       /* changes the view shows */
	uint64_t base_seq;       /* changes compiled into its base */
	uint64_t last_change_ns; /* a compile waits for writes to pause */
	uint64_t next_compile_ns; /* and for its slice's share of the compiler (builder.c) */
	bool pending;            /* a change did not fit beside the base: compile */
	bool compiling;
	bool deleted;            /* while compiling: the compiler frees the slice */
	int compile_rc;          /* the last compile's outcome */
	/*
	 * The lookup lcore's flow cache, last: its state shares a page with the
	 * fields above, so that a slice's turn at the lookup meets one page
	 * less (the TLB holds a few dozen pages of 4 KiB, a round of 64 slices
	 * touches hundreds).
	 */
	struct lk_flows flows;
};

struct sp_lookup {
	char name[32];
	struct rte_rcu_qsbr *qsbr;
	int socket;
	uint32_t capacity;
	uint32_t used; /* sum of the slices' quotas */
	uint64_t slices_made; /* each slice's seq starts at this count << SEQ_SHIFT (lookup.c) */
	uint16_t max_slices;
	enum sp_lookup_form form;
	pthread_mutex_t lock;
	pthread_cond_t work;      /* the compiler: a slice may need compiling */
	pthread_cond_t published; /* writers: a compile finished */
	pthread_t compiler;
	bool compiler_started;
	bool stop;
	uint64_t next_fold_ns; /* the compiler folds the hit counters then (hits.h) */
	struct lk_slice *slices[]; /* max_slices RCU-protected pointers */
};

/* Wait until no lookup can hold anything unpublished before the call. */
void lk_wait_readers(const struct sp_lookup *t);
void lk_view_retire(const struct sp_lookup *t, struct lk_view *v, bool with_base);
/* Free a slice no lookup can reach any more (after a grace period). */
void lk_slice_free(struct lk_slice *s);

uint64_t lk_now_ns(void);

int lk_compiler_start(struct sp_lookup *t);
void lk_compiler_stop(struct sp_lookup *t);

#endif
