/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv4 router's per-packet work, shared by the ipv4 code option and
 * the dpi code option (which forwards like a router and adds a content
 * class to the key).
 */
#ifndef SP_IPV4_HDR_H
#define SP_IPV4_HDR_H

#include <stdbool.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

/*
 * Check m's inner IPv4 header as a router must, cut link-layer padding and
 * write the ipv4 key (slicepath/ipv4.h). False, with the packet marked a
 * drop or an exception (options, TTL, a header split over segments), when
 * it does not go on to the lookup.
 */
bool sp_ipv4_parse_one(struct rte_mbuf *m);

/* TTL one less, the header checksum updated incrementally (RFC 1624). */
void sp_ipv4_decrement_ttl(struct rte_ipv4_hdr *ip);

#endif
