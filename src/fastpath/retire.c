/* SPDX-License-Identifier: BSD-3-Clause */
#include <rte_ring.h>

#include "retire.h"
#include "constants.h"
#include "../npe/slice.h"
#include "../stats/stats.h"

/*
 * Exceptions of slices whose slow path is connected go to the management
 * thread, which writes them to the slice's channel; without a slow path, or
 * with the ring full, they are counted (no_slow_path, ring_full) and freed.
 */
static void
hand_up(const struct sp_fastpath *fp, struct rte_mbuf **pkts, uint16_t n,
	struct sp_lcore_stats *st)
{
	uint16_t sent = (uint16_t)rte_ring_enqueue_burst(fp->exc_ring, (void **)pkts, n, NULL);

	for (uint16_t i = sent; i < n; i++) {
		uint16_t slice = sp_meta(pkts[i])->slice;

		st->reason[SP_REASON_RING_FULL]++;
		st->slice[slice].reason[SP_REASON_RING_FULL]++;
	}
	rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
}

/* sp_retire_burst() on n <= SP_BURST packets. */
static void
retire_chunk(const struct sp_fastpath *fp, struct rte_mbuf **pkts, uint16_t n,
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
		s = fp->slices[meta->slice];
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
		hand_up(fp, up, nb_up, st);
}

void
sp_retire_burst(const struct sp_fastpath *fp, struct rte_mbuf **pkts, uint16_t n,
		struct sp_lcore_stats *st)
{
	for (uint16_t off = 0; off < n; off += SP_BURST)
		retire_chunk(fp, &pkts[off], RTE_MIN((uint16_t)SP_BURST, (uint16_t)(n - off)), st);
}
