/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to decap.c: the IPv6 substrate's common frame, as decap.c's
 * common_datagram() is IPv4's. One segment, to the port's MAC and IPv6
 * address, next header UDP, lengths that agree to the byte, the UDP
 * checksum right: a few masked compares and one sum, instead of
 * ipv6_in.c's checks one by one, whose answer for such a frame is the
 * same; they take every other frame and say why.
 */
#ifndef SP_DECAP_COMMON6_H
#define SP_DECAP_COMMON6_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include <slicepath/cksum.h>

#include "../fastpath/constants.h"
#include "arp_echo.h"

/* Where the headers' fields lie in the frame. */
#define C6_IP (RTE_ETHER_HDR_LEN)
#define C6_PAYLOAD_LEN (C6_IP + 4)
#define C6_NEXT_HEADER (C6_IP + 6)
#define C6_SRC (C6_IP + 8)
#define C6_DST (C6_IP + 24)
#define C6_UDP (C6_IP + 40)

struct common6_want {
	/* What the 8 bytes at 0 (destination MAC) and 12 (EtherType, version)
	 * must be under their masks, as the bytes lie in memory. */
	uint64_t mac, mac_mask, ether_v, ether_v_mask;
	uint64_t dst[2]; /* the port's IPv6 address */
	bool on;         /* the port has one */
};

static inline void
common6_want_init(struct common6_want *w, const struct sp_port_addr *a)
{
	uint8_t want[2][8] = {{0}}, mask[2][8] = {{0}};

	memcpy(want[0], a->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	memset(mask[0], 0xff, RTE_ETHER_ADDR_LEN);
	want[1][0] = RTE_ETHER_TYPE_IPV6 >> 8;
	want[1][1] = RTE_ETHER_TYPE_IPV6 & 0xff;
	want[1][2] = 6 << 4; /* the version; traffic class and flow label: any */
	mask[1][0] = mask[1][1] = 0xff;
	mask[1][2] = 0xf0;
	memcpy(&w->mac, want[0], sizeof(w->mac));
	memcpy(&w->mac_mask, mask[0], sizeof(w->mac_mask));
	memcpy(&w->ether_v, want[1], sizeof(w->ether_v));
	memcpy(&w->ether_v_mask, mask[1], sizeof(w->ether_v_mask));
	memcpy(w->dst, a->ip6, sizeof(w->dst));
	w->on = a->has_ip6;
}

static __rte_always_inline uint64_t
common6_word(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static __rte_always_inline uint16_t
common6_half(const uint8_t *p)
{
	uint16_t h;

	memcpy(&h, p, sizeof(h));
	return h;
}

static __rte_always_inline bool
common_datagram6(const struct common6_want *w, const struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint16_t udp_len_be = rte_cpu_to_be_16((uint16_t)(len - C6_UDP));
	uint64_t diff;

	if (!w->on || rte_pktmbuf_data_len(m) != len || len < SP_OUTER6_HDR_LEN)
		return false;
	diff = ((common6_word(p) ^ w->mac) & w->mac_mask) |
	       ((common6_word(p + 12) ^ w->ether_v) & w->ether_v_mask) |
	       (common6_word(p + C6_DST) ^ w->dst[0]) | (common6_word(p + C6_DST + 8) ^ w->dst[1]) |
	       (p[C6_NEXT_HEADER] ^ IPPROTO_UDP) | (common6_half(p + C6_PAYLOAD_LEN) ^ udp_len_be) |
	       (common6_half(p + C6_UDP + 4) ^ udp_len_be);
	/*
	 * The pseudo-header's addresses, the UDP header and the payload lie
	 * together: one sum, with the pseudo-header's length and next header
	 * (RFC 8200 8.1). IPv6 has no "no checksum": a zero is wrong.
	 */
	return diff == 0 && common6_half(p + C6_UDP + 6) != 0 &&
	       sp_cksum_fold(sp_cksum_bytes(p + C6_SRC, len - C6_SRC) + udp_len_be +
			     RTE_BE16(IPPROTO_UDP)) == 0xffff;
}

#endif
