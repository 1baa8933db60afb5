/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fast path's constants, which every block of it shares: how many
 * frames a step takes at once, the outer header that decap strips and
 * encap writes, and the endpoint a NAT range's frames carry.
 */
#ifndef SP_FASTPATH_CONSTANTS_H
#define SP_FASTPATH_CONSTANTS_H

#include <stdint.h>

#include <rte_ether.h>

/* Frames a step takes at once: an rx burst, a slice's batch, an encap burst. */
#define SP_BURST 32

/* Outer header the framework strips and writes: Ethernet + IPv4 (no options) + UDP. */
#define SP_OUTER_HDR_LEN (RTE_ETHER_HDR_LEN + 20 + 8)
/* The same over IPv6: Ethernet + IPv6 (no extension headers) + UDP. */
#define SP_OUTER6_HDR_LEN (RTE_ETHER_HDR_LEN + 40 + 8)

/* sp_meta.in_ep of a frame that arrived for a host slice's NAT range (no endpoint). */
#define SP_ENDPOINT_NAT UINT16_MAX

#endif
