/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "pipeline.h"

/*
 * Exceptions of slices whose slow path is connected go to the management
 * thread, which writes them to the slice's channel; without a slow path, or
 * with the ring full, they are counted (no_slow_path, ring_full) and freed.
 */
static void
hand_up(const struct sp_node *node, struct rte_mbuf **pkts, uint16_t n, struct sp_lcore_stats *st)
{
	uint16_t sent = (uint16_t)rte_ring_enqueue_burst(node->exc_ring, (void **)pkts, n, NULL);

	for (uint16_t i = sent; i < n; i++) {
		uint16_t slice = sp_meta(pkts[i])->slice;

		st->reason[SP_REASON_RING_FULL]++;
		st->slice[slice].reason[SP_REASON_RING_FULL]++;
	}
	rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
}

void
sp_retire_burst(const struct sp_node *node, struct rte_mbuf **pkts, uint16_t n,
		struct sp_lcore_stats *st)
{
	struct rte_mbuf *up[SP_BURST], *gone[SP_BURST];
	uint16_t nb_up = 0, nb_gone = 0;

	for (uint16_t i = 0; i < n; i++) {
		const struct sp_meta *meta = sp_meta(pkts[i]);
		struct sp_slice_stats *ss = &st->slice[meta->slice];
		const struct sp_slice *s;

		st->reason[meta->reason]++;
		ss->reason[meta->reason]++;
		if (meta->verdict != SP_EXCEPTION) {
			sp_counter_add(&ss->drop, pkts[i]);
			gone[nb_gone++] = pkts[i];
			continue;
		}
		sp_counter_add(&ss->exception, pkts[i]);
		s = node->slices[meta->slice];
		if (s != NULL && __atomic_load_n(&s->slow_path_up, __ATOMIC_RELAXED)) {
			up[nb_up++] = pkts[i];
			continue;
		}
		st->reason[SP_REASON_NO_SLOW_PATH]++;
		ss->reason[SP_REASON_NO_SLOW_PATH]++;
		gone[nb_gone++] = pkts[i];
	}
	rte_pktmbuf_free_bulk(gone, nb_gone);
	if (nb_up > 0)
		hand_up(node, up, nb_up, st);
}

/* Move the packets still SP_FORWARD to the front (keeping order) and the
 * others behind them; returns how many are still forwarded. */
static uint16_t
partition_forward(struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *out[SP_BURST];
	uint16_t f = 0, o = 0;

	for (uint16_t i = 0; i < n; i++) {
		if (sp_meta(pkts[i])->verdict == SP_FORWARD)
			pkts[f++] = pkts[i];
		else
			out[o++] = pkts[i];
	}
	memcpy(&pkts[f], out, o * sizeof(*out));
	return f;
}

/* SPP's TCAM lookup for one slice's packets. */
static void
lookup(struct sp_npe *npe, uint16_t slice, struct rte_mbuf **pkts, uint16_t n)
{
	const struct sp_key *keys[SP_BURST];
	struct sp_result *results[SP_BURST];
	uint32_t positions[SP_BURST];

	for (uint16_t i = 0; i < n; i++) {
		keys[i] = &sp_meta(pkts[i])->key;
		results[i] = &sp_meta(pkts[i])->result;
	}
	sp_lookup_bulk(npe->lookup, slice, keys, results, positions, n);
	for (uint16_t i = 0; i < n; i++) {
		if (positions[i] == SP_LOOKUP_MISS)
			sp_meta_exception(pkts[i], SP_REASON_MISS);
		else
			sp_meta(pkts[i])->filter = positions[i];
	}
}

static void
count_forwarded(const struct sp_slice *s, struct rte_mbuf **pkts, uint16_t n,
		struct sp_lcore_stats *st)
{
	for (uint16_t i = 0; i < n; i++) {
		const struct sp_meta *meta = sp_meta(pkts[i]);
		/* Read once: the endpoint may be released meanwhile (slice_ops.c). */
		uint16_t ep = __atomic_load_n(&s->endpoints[meta->result.endpoint], __ATOMIC_RELAXED);

		sp_counter_add(&st->slice[s->id].fwd, pkts[i]);
		if (ep != SP_ENDPOINT_NONE)
			sp_counter_add(&st->endpoint[ep].tx, pkts[i]);
	}
}

/* One slice's packets through the NPE blocks, in SPP order. */
static void
process_slice(const struct sp_node *node, struct sp_npe *npe, struct sp_slice *s,
	      struct rte_mbuf **pkts, uint16_t n, struct sp_lcore_stats *st)
{
	uint16_t f, refused;

	s->co->parse(s, pkts, n);
	f = partition_forward(pkts, n);
	lookup(npe, s->id, pkts, f);
	f = partition_forward(pkts, f);
	s->co->format(s, pkts, f);
	sp_encap_burst(node, s, pkts, f);
	f = partition_forward(pkts, f);
	sp_retire_burst(node, &pkts[f], n - f, st);
	/* Refused packets come back at the front of the array. */
	refused = sp_qm_enqueue_burst(npe->qm, pkts, f);
	count_forwarded(s, &pkts[refused], f - refused, st);
	sp_retire_burst(node, pkts, refused, st);
}

void
sp_npe_process(const struct sp_node *node, struct sp_npe *npe, struct rte_mbuf **pkts, uint16_t n,
	       struct sp_lcore_stats *st)
{
	struct rte_mbuf *group[SP_BURST];
	uint16_t rest = n;

	/* Group by slice, keeping arrival order within a slice, so each code
	 * option and each private table sees one burst. */
	while (rest > 0) {
		uint16_t slice = sp_meta(pkts[0])->slice;
		struct sp_slice *s = node->slices[slice];
		uint16_t k = 0, left = 0;

		for (uint16_t i = 0; i < rest; i++) {
			if (sp_meta(pkts[i])->slice == slice)
				group[k++] = pkts[i];
			else
				pkts[left++] = pkts[i];
		}
		rest = left;
		if (s == NULL || s->npe != npe->id) {
			/* The slice went away between decap and here. */
			for (uint16_t i = 0; i < k; i++)
				sp_meta_drop(group[i], SP_REASON_NO_ENDPOINT);
			sp_retire_burst(node, group, k, st);
			continue;
		}
		process_slice(node, npe, s, group, k, st);
	}
}
