/* SPDX-License-Identifier: BSD-3-Clause */
#include "stats.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_malloc.h>

/* Indexed by lcore id; the main lcore has a block too (management thread
 * work such as ARP requests is counted like any other). */
static struct sp_lcore_stats *blocks[RTE_MAX_LCORE];

int
sp_stats_init(void)
{
	unsigned int lcore;

	RTE_LCORE_FOREACH(lcore) {
		blocks[lcore] = rte_zmalloc_socket("sp_stats", sizeof(struct sp_lcore_stats),
						   RTE_CACHE_LINE_SIZE, rte_lcore_to_socket_id(lcore));
		if (blocks[lcore] == NULL) {
			sp_stats_fini();
			return -ENOMEM;
		}
	}
	return 0;
}

void
sp_stats_fini(void)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		rte_free(blocks[i]);
		blocks[i] = NULL;
	}
}

struct sp_lcore_stats *
sp_stats_lcore(unsigned int lcore_id)
{
	return blocks[lcore_id];
}

static void
counter_sum(struct sp_counter *acc, const struct sp_counter *c)
{
	acc->pkts += c->pkts;
	acc->bytes += c->bytes;
}

static const char *const PORT_COUNTERS[] = {SP_PORT_COUNTERS(SP_COUNTER_NAME)};
static const char *const SLICE_COUNTERS[] = {SP_SLICE_COUNTERS(SP_COUNTER_NAME)};
static const char *const ENDPOINT_COUNTERS[] = {SP_ENDPOINT_COUNTERS(SP_COUNTER_NAME)};

/* read_counters() takes each block's counters as an array: they are, the lists' first. */
#define COUNT_SIZE(name, what) + sizeof(uint64_t)
_Static_assert(sizeof(struct sp_port_stats) == sizeof(PORT_COUNTERS) / sizeof(char *) *
	       sizeof(struct sp_counter), "port counters in a row");
_Static_assert(sizeof(struct sp_endpoint_stats) == sizeof(ENDPOINT_COUNTERS) / sizeof(char *) *
	       sizeof(struct sp_counter), "endpoint counters in a row");
_Static_assert(offsetof(struct sp_slice_stats, reason) == sizeof(SLICE_COUNTERS) /
	       sizeof(char *) * sizeof(struct sp_counter) SP_SLICE_COUNTS(COUNT_SIZE),
	       "slice counters in a row, then its counts");

/*
 * The n counters at offset off of every lcore's block (struct sp_counter
 * in a row: a list of slicepath/counters.h), summed and given to fn by name.
 */
static void
read_counters(size_t off, const char *const *names, unsigned int n, sp_stats_fn fn, void *ctx)
{
	struct sp_counter sum[RTE_DIM(SLICE_COUNTERS)] = {0};
	char key[64];

	RTE_ASSERT(n <= RTE_DIM(sum));
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		const struct sp_counter *c;

		if (blocks[i] == NULL)
			continue;
		c = (const struct sp_counter *)((const uint8_t *)blocks[i] + off);
		for (unsigned int k = 0; k < n; k++)
			counter_sum(&sum[k], &c[k]);
	}
	for (unsigned int k = 0; k < n; k++) {
		snprintf(key, sizeof(key), "%s_pkts", names[k]);
		fn(ctx, key, sum[k].pkts);
		snprintf(key, sizeof(key), "%s_bytes", names[k]);
		fn(ctx, key, sum[k].bytes);
	}
}

void
sp_stats_port_read(uint16_t port, sp_stats_fn fn, void *ctx)
{
	read_counters(offsetof(struct sp_lcore_stats, port) + port * sizeof(struct sp_port_stats),
		      PORT_COUNTERS, RTE_DIM(PORT_COUNTERS), fn, ctx);
}

void
sp_stats_slice_read(uint16_t slice, sp_stats_fn fn, void *ctx)
{
	struct sp_slice_stats counts = {0};

	read_counters(offsetof(struct sp_lcore_stats, slice) + slice * sizeof(struct sp_slice_stats),
		      SLICE_COUNTERS, RTE_DIM(SLICE_COUNTERS), fn, ctx);
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		if (blocks[i] == NULL)
			continue;
#define SUM_COUNT(name, what) counts.name += blocks[i]->slice[slice].name;
		SP_SLICE_COUNTS(SUM_COUNT)
	}
#define READ_COUNT(name, what) fn(ctx, #name, counts.name);
	SP_SLICE_COUNTS(READ_COUNT)
}

void
sp_stats_endpoint_read(uint16_t ep, sp_stats_fn fn, void *ctx)
{
	read_counters(offsetof(struct sp_lcore_stats, endpoint) + ep * sizeof(struct sp_endpoint_stats),
		      ENDPOINT_COUNTERS, RTE_DIM(ENDPOINT_COUNTERS), fn, ctx);
}

void
sp_stats_slice_reasons(uint16_t slice, uint64_t out[SP_REASON_MAX])
{
	memset(out, 0, sizeof(uint64_t) * SP_REASON_MAX);
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		if (blocks[i] == NULL)
			continue;
		for (unsigned int r = 0; r < SP_REASON_MAX; r++)
			out[r] += blocks[i]->slice[slice].reason[r];
	}
}

/*
 * The lcores must not count for the slice or endpoint meanwhile: callers
 * reset after withdrawing it and waiting for every lcore (slice_ops.c).
 */
void
sp_stats_reset_slice(uint16_t slice)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		if (blocks[i] != NULL)
			memset(&blocks[i]->slice[slice], 0, sizeof(blocks[i]->slice[slice]));
}

void
sp_stats_reset_endpoint(uint16_t ep)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		if (blocks[i] != NULL)
			memset(&blocks[i]->endpoint[ep], 0, sizeof(blocks[i]->endpoint[ep]));
}

void
sp_stats_reasons(uint64_t out[SP_REASON_MAX])
{
	memset(out, 0, sizeof(uint64_t) * SP_REASON_MAX);
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		if (blocks[i] == NULL)
			continue;
		for (unsigned int r = 0; r < SP_REASON_MAX; r++)
			out[r] += blocks[i]->reason[r];
	}
}

void
sp_stats_arp_read(sp_stats_fn fn, void *ctx)
{
	struct sp_arp_counts sum = {0};

	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		if (blocks[i] == NULL)
			continue;
#define SUM_ARP(name, what) sum.name += blocks[i]->arp.name;
		SP_ARP_COUNTS(SUM_ARP)
#undef SUM_ARP
	}
#define READ_ARP(name, what) fn(ctx, #name, sum.name);
	SP_ARP_COUNTS(READ_ARP)
#undef READ_ARP
}

void
sp_stats_residence(struct sp_latency *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		if (blocks[i] != NULL)
			sp_latency_merge(out, &blocks[i]->residence);
}
