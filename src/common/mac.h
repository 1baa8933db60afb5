/* SPDX-License-Identifier: BSD-3-Clause */
/* A MAC address as one word, for the fast path's compares and copies. */
#ifndef SP_MAC_H
#define SP_MAC_H

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>

/*
 * The address's 6 bytes as the first 6 bytes of a word in memory, the rest
 * zero. Put together in registers from a 4- and a 2-byte load: copied into
 * a zeroed word on the stack instead, it is read back with one load that
 * spans the two smaller stores, which cannot forward to it, so the load
 * waits for them to reach the cache.
 */
static inline uint64_t
sp_mac_word(const struct rte_ether_addr *mac)
{
	uint32_t lo;
	uint16_t hi;

	memcpy(&lo, mac->addr_bytes, sizeof(lo));
	memcpy(&hi, mac->addr_bytes + sizeof(lo), sizeof(hi));
#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return (uint64_t)hi << 32 | lo;
#else
	return (uint64_t)lo << 32 | (uint64_t)hi << 16;
#endif
}

#endif
