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

void
sp_stats_port(uint16_t port, struct sp_port_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		if (blocks[i] == NULL)
			continue;
		counter_sum(&out->rx, &blocks[i]->port[port].rx);
		counter_sum(&out->tx, &blocks[i]->port[port].tx);
		counter_sum(&out->tx_drop, &blocks[i]->port[port].tx_drop);
	}
}

void
sp_stats_slice(uint16_t slice, struct sp_slice_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		const struct sp_slice_stats *s;

		if (blocks[i] == NULL)
			continue;
		s = &blocks[i]->slice[slice];
		counter_sum(&out->rx, &s->rx);
		counter_sum(&out->fwd, &s->fwd);
		counter_sum(&out->exception, &s->exception);
		counter_sum(&out->drop, &s->drop);
		counter_sum(&out->to_slow_path, &s->to_slow_path);
		counter_sum(&out->injected, &s->injected);
		out->inject_dropped += s->inject_dropped;
		for (unsigned int r = 0; r < SP_REASON_MAX; r++)
			out->reason[r] += s->reason[r];
	}
}

void
sp_stats_endpoint(uint16_t ep, struct sp_endpoint_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++) {
		if (blocks[i] == NULL)
			continue;
		counter_sum(&out->rx, &blocks[i]->endpoint[ep].rx);
		counter_sum(&out->tx, &blocks[i]->endpoint[ep].tx);
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
