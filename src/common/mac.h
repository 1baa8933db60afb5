/* SPDX-License-Identifier: BSD-3-Clause */
/* A MAC address as one word, for the fast path's compares and copies. */
#ifndef SP_MAC_H
#define SP_MAC_H

#include <stdint.h>
#include <string.h>

#include <rte_ether.h>

/* The address's 6 bytes, in order, in the low-addressed bytes of a word; the rest zero. */
static inline uint64_t
sp_mac_word(const struct rte_ether_addr *mac)
{
	uint64_t w = 0;

	memcpy(&w, mac->addr_bytes, RTE_ETHER_ADDR_LEN);
	return w;
}

#endif
