/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv4 router's per-packet work, shared by the ipv4 code option and
 * the dpi code option (which forwards like a router and adds a content
 * class to the key).
 */
#ifndef SP_IPV4_HDR_H
#define SP_IPV4_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include <slicepath/cksum.h>

/*
 * Check m's inner IPv4 header as a router must, cut link-layer padding and
 * write the ipv4 key (slicepath/ipv4.h). False, with the packet marked a
 * drop or an exception (options, TTL, a header split over segments), when
 * it does not go on to the lookup.
 */
bool sp_ipv4_parse_one(struct rte_mbuf *m);

/*
 * TTL one less, the header checksum updated incrementally (RFC 1624).
 * Inline: format() calls it on every packet.
 */
static inline void
sp_ipv4_decrement_ttl(struct rte_ipv4_hdr *ip)
{
	/*
	 * TTL shares its 16-bit checksum word with the protocol. Both words
	 * and the checksum are taken in memory order: one's complement sums
	 * do not depend on byte order as long as every word is read alike.
	 */
	const uint8_t *word = (const uint8_t *)ip + offsetof(struct rte_ipv4_hdr, time_to_live);
	uint16_t old, new_word;

	memcpy(&old, word, sizeof(old));
	ip->time_to_live--;
	memcpy(&new_word, word, sizeof(new_word));
	ip->hdr_checksum = sp_cksum_update16(ip->hdr_checksum, old, new_word);
}

#endif
