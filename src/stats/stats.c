/* SPDX-License-Identifier: BSD-3-Clause */
#include "stats.h"

#include <errno.h>
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

#define SUM_COUNTER(name, what) counter_sum(&out.name, &in->name);
#define SUM_COUNT(name, what) out.name += in->name;
#define EMIT_COUNTER(name, what)                                                                   \
	fn(ctx, #name "_pkts", out.name.pkts);                                                     \
	fn(ctx, #name "_bytes", out.name.bytes);
#define EMIT_COUNT(name, what) fn(ctx, #name, out.name);

void
sp_stats_port_read(uint16_t port, sp_stats_fn fn, void *ctx)
{
	struct sp_port_stats out = {0};

	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		const struct sp_port_stats *in = blocks[i] != NULL ? &blocks[i]->port[port] : NULL;

		if (in != NULL) {
			SP_PORT_COUNTERS(SUM_COUNTER)
		}
	}
	SP_PORT_COUNTERS(EMIT_COUNTER)
}

void
sp_stats_slice_read(uint16_t slice, sp_stats_fn fn, void *ctx)
{
	struct sp_slice_stats out = {0};

	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		const struct sp_slice_stats *in = blocks[i] != NULL ? &blocks[i]->slice[slice] : NULL;

		if (in != NULL) {
			SP_SLICE_COUNTERS(SUM_COUNTER)
			SP_SLICE_COUNTS(SUM_COUNT)
		}
	}
	SP_SLICE_COUNTERS(EMIT_COUNTER)
	SP_SLICE_COUNTS(EMIT_COUNT)
}

void
sp_stats_endpoint_read(uint16_t ep, sp_stats_fn fn, void *ctx)
{
	struct sp_endpoint_stats out = {0};

	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		const struct sp_endpoint_stats *in = blocks[i] != NULL ? &blocks[i]->endpoint[ep] : NULL;

		if (in != NULL) {
			SP_ENDPOINT_COUNTERS(SUM_COUNTER)
		}
	}
	SP_ENDPOINT_COUNTERS(EMIT_COUNTER)
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
sp_stats_arp(uint64_t *learned, uint64_t *changed)
{
	*learned = *changed = 0;
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		if (blocks[i] == NULL)
			continue;
		*learned += blocks[i]->arp_learned;
		*changed += blocks[i]->neigh_changed;
	}
}

void
sp_stats_residence(struct sp_latency *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		if (blocks[i] != NULL)
			sp_latency_merge(out, &blocks[i]->residence);
}
