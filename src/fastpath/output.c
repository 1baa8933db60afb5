/* SPDX-License-Identifier: BSD-3-Clause */
#include "output.h"
#include "retire.h"
#include "constants.h"
#include "../qm/qm_worker.h"
#include "../stats/stats.h"

/* Packets of one slice leaving from one endpoint, counted once a run. */
struct output_run {
	uint32_t key; /* slice << 16 | endpoint */
	uint64_t pkts, bytes;
};

static inline void
output_run_count(struct sp_lcore_stats *st, const struct output_run *r)
{
	uint16_t slice = r->key >> 16, ep = r->key & UINT16_MAX;

	if (r->pkts == 0)
		return;
	st->slice[slice].fwd.pkts += r->pkts;
	st->slice[slice].fwd.bytes += r->bytes;
	if (ep != SP_ENDPOINT_NAT) {
		st->endpoint[ep].tx.pkts += r->pkts;
		st->endpoint[ep].tx.bytes += r->bytes;
	}
}

void
sp_output_burst(const struct sp_fastpath *fp, struct sp_qm *qm, struct rte_mbuf **pkts,
		uint16_t n, struct sp_lcore_stats *st)
{
	/* Refused packets come back at the front of the array. */
	uint16_t refused = sp_qm_enqueue_burst(qm, pkts, n);
	struct output_run run = {.pkts = 0};

	/*
	 * The endpoint is the one encap found: one released since is reset only
	 * once the lcores are past this loop (slice_ops.c), so nothing counted
	 * here stays.
	 */
	for (uint16_t i = refused; i < n; i++) {
		const struct sp_meta *meta = sp_meta(pkts[i]);
		uint32_t key = (uint32_t)meta->slice << 16 | meta->out_ep;

		if (key != run.key) {
			output_run_count(st, &run);
			run = (struct output_run){.key = key};
		}
		run.pkts++;
		run.bytes += rte_pktmbuf_pkt_len(pkts[i]);
	}
	output_run_count(st, &run);
	sp_retire_burst(fp, pkts, refused, st);
}
