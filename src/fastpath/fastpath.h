/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fast path's blocks (NPE, encap, host slices, the drop funnel)
 * read of the node: its tables, which the management thread changes while
 * the lcores read them, and where frames leave for the management thread.
 * The node builder (src/node/) fills it once the node is built; the blocks
 * take it instead of the whole node, which they know nothing of.
 */
#ifndef SP_FASTPATH_H
#define SP_FASTPATH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

struct rte_mempool;
struct rte_ring;
struct sp_endpoint;
struct sp_lcore_stats;
struct sp_neigh;
struct sp_port;
struct sp_slice;

struct sp_fastpath;

/* Where the NPE hands a host slice's frames (n <= SP_NPE_ROUND): hostslice/hslice.h. */
typedef void sp_host_input_fn(const struct sp_fastpath *fp, struct rte_mbuf **pkts, uint16_t n,
			      struct sp_lcore_stats *st);

struct sp_fastpath {
	struct rte_mempool *pool;
	uint16_t nb_ports;
	const struct sp_port *ports;        /* nb_ports, by port index */
	struct sp_slice *const *slices;     /* SP_MAX_SLICES, NULL where none */
	const struct sp_endpoint *endpoints; /* SP_MAX_ENDPOINTS */
	struct sp_neigh *neigh;
	struct rte_ring *resolve_ring; /* NPEs -> mgmt: next hops to resolve (struct sp_neigh_want) */
	struct rte_ring *exc_ring;     /* NPEs -> mgmt: exceptions for the slow paths */
	/* Which slices are host slices: each NPE asks it of every frame (sp_is_host_slice()). */
	const uint64_t *host_slice_bits; /* SP_MAX_SLICES / 64 words */
	sp_host_input_fn *host_input;    /* their frames go there */
};

/* Is node slice id a host slice? The NPE asks for every frame: one load. */
static inline bool
sp_is_host_slice(const uint64_t *bits, uint16_t slice)
{
	return bits[slice / 64] >> (slice % 64) & 1;
}

#endif
