/* SPDX-License-Identifier: BSD-3-Clause */
#include "residence.h"

#include <rte_cycles.h>
#include <rte_errno.h>

int
sp_residence_init(struct sp_residence *r)
{
	static const struct rte_mbuf_dynfield field = {
		.name = "slicepath_dynfield_rx_tsc",
		.size = sizeof(uint64_t),
		.align = __alignof__(uint64_t),
	};
	static const struct rte_mbuf_dynflag flag = {
		.name = "slicepath_dynflag_rx_tsc",
	};
	int offset = rte_mbuf_dynfield_register(&field);
	int bit = offset < 0 ? -1 : rte_mbuf_dynflag_register(&flag);

	if (offset < 0 || bit < 0)
		return -rte_errno;
	r->tsc_offset = offset;
	r->flag = UINT64_C(1) << bit;
	r->interval = rte_get_tsc_hz() / (1000000 / SP_RESIDENCE_INTERVAL_US);
	r->ns_per_tsc = 1e9 / (double)rte_get_tsc_hz();
	return 0;
}
