/* SPDX-License-Identifier: BSD-3-Clause */
#include "output.h"
#include "retire.h"
#include "constants.h"
#include "../qm/qm_worker.h"
#include "../stats/stats.h"

void
sp_output_burst(const struct sp_fastpath *fp, struct sp_qm *qm, struct rte_mbuf **pkts,
		uint16_t n, struct sp_lcore_stats *st)
{
	/* Refused packets come back at the front of the array. */
	uint16_t refused = sp_qm_enqueue_burst(qm, pkts, n);

	/*
	 * The endpoint is the one encap found: one released since is reset only
	 * once the lcores are past this loop (slice_ops.c), so nothing counted
	 * here stays.
	 */
	for (uint16_t i = refused; i < n; i++) {
		const struct sp_meta *meta = sp_meta(pkts[i]);

		sp_counter_add(&st->slice[meta->slice].fwd, pkts[i]);
		if (meta->out_ep != SP_ENDPOINT_NAT)
			sp_counter_add(&st->endpoint[meta->out_ep].tx, pkts[i]);
	}
	sp_retire_burst(fp, pkts, refused, st);
}
