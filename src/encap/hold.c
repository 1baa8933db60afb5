/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The first frames to a next hop without MAC wait in the NPE's hold
 * (neigh_hold.h) for the ARP answer, tagged with their slice as encap saw it.
 */
#include <rte_cycles.h>

#include "encap.h"
#include "../npe/slice.h"
#include "../stats/stats.h"

uint16_t
sp_encap_hold(const struct sp_fastpath *fp, struct sp_neigh_hold *hold, struct rte_mbuf **pkts,
	      uint16_t n, uint64_t missed, struct sp_lcore_stats *st)
{
	uint64_t now = 0, ticks = 0;
	uint16_t kept = 0;

	for (uint16_t i = 0; i < n; i++) {
		const struct sp_meta *meta = sp_meta(pkts[i]);
		const struct sp_slice *s;
		struct sp_neigh_hold_tag tag;
		struct sp_neigh_hop_id id;

		if (!(missed >> i & 1)) {
			pkts[kept++] = pkts[i];
			continue;
		}
		if (now == 0) {
			now = rte_get_timer_cycles();
			ticks = rte_get_timer_hz() * SP_NEIGH_HOLD_MS / 1000;
		}
		/* Its slice, as encap saw it (the lcore has not passed a quiescent state since). */
		s = __atomic_load_n(&fp->slices[meta->slice], __ATOMIC_ACQUIRE);
		if (s != NULL) {
			tag = (struct sp_neigh_hold_tag){.owner = s, .serial = s->serial,
							 .slice = meta->slice};
			id.port = meta->out_port;
			id.ip = meta->result.nh_family == SP_NH_IPV6 ? sp_ip_v6(meta->result.nh_ip6)
								     : sp_ip_v4(meta->result.nh_ip);
			if (sp_neigh_hold_add(hold, &id, pkts[i], &tag, now, ticks)) {
				sp_counter_add(&st->slice[meta->slice].held, pkts[i]);
				continue;
			}
		}
		pkts[kept++] = pkts[i]; /* dropped as before: the hold is full */
	}
	return kept;
}
