/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Internet checksum's sum over part of an mbuf chain: ICMP and ICMPv6
 * messages the node answers, UDP over IPv6 (whose checksum is mandatory)
 * in and out of the substrate.
 */
#ifndef SP_MBUF_SUM_H
#define SP_MBUF_SUM_H

#include <stdint.h>

#include <rte_mbuf.h>

#include <slicepath/cksum.h>

/*
 * The folded 16-bit sum of the len bytes at off (UINT32_MAX if the packet
 * is shorter); with its checksum (and a pseudo-header's sum where the
 * protocol has one), a right message sums to all ones. The chain's
 * segments one by one: sp_mbuf_sum_chain().
 */
uint32_t sp_mbuf_sum_chain(const struct rte_mbuf *m, uint32_t off, uint32_t len);

static inline uint32_t
sp_mbuf_sum(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	/* Nearly every packet is one segment: summed here, with no call and no loop over segments. */
	if (likely((uint64_t)off + len <= rte_pktmbuf_data_len(m)))
		return sp_cksum_fold(sp_cksum_bytes(rte_pktmbuf_mtod_offset(m, const void *, off), len));
	return sp_mbuf_sum_chain(m, off, len);
}

#endif
