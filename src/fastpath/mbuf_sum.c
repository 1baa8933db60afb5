/* SPDX-License-Identifier: BSD-3-Clause */
#include "mbuf_sum.h"

#include <rte_common.h>
#include <rte_ip.h>

#include <slicepath/cksum.h>

/*
 * Summed here segment by segment: DPDK 22.11's rte_raw_cksum_mbuf() drops
 * the carries of a part that starts at an odd offset (it byte-swaps the
 * unfolded sum cut to 16 bits).
 */
uint32_t
sp_mbuf_sum_chain(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint64_t sum = 0;
	uint32_t done = 0;

	for (const struct rte_mbuf *seg = m; seg != NULL && done < len; seg = seg->next) {
		uint32_t n = rte_pktmbuf_data_len(seg);
		uint16_t part;

		if (off >= n) {
			off -= n;
			continue;
		}
		n = RTE_MIN(n - off, len - done);
		part = sp_cksum_fold(sp_cksum_bytes(rte_pktmbuf_mtod_offset(seg, const void *, off), n));
		/* A part that starts at an odd byte has its bytes the other way round. */
		sum += (done & 1) ? rte_bswap16(part) : part;
		done += n;
		off = 0;
	}
	return done == len ? sp_cksum_fold(sum) : UINT32_MAX;
}
