/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbor table, the forwarding lcores' side (neigh.h: the writer's): a
 * burst's next hops looked up at once, through each reader's own cache.
 */
#ifndef SP_NEIGH_WORKER_H
#define SP_NEIGH_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_ring_elem.h>

#include "../common/ipaddr.h"

struct sp_neigh;

/*
 * A next hop a forwarding lcore found no MAC for, asked of the management
 * thread (its resolver) through a ring of these (sp_neigh_want_ring()).
 */
struct sp_neigh_want {
	struct sp_ip ip;
	uint16_t port;
	uint16_t pad; /* the ring's elements are whole 4-byte words */
};

/* Ask for it; if the ring is full a later packet asks again. */
static inline void
sp_neigh_ask(struct rte_ring *wants, uint16_t port, const struct sp_ip *ip)
{
	struct sp_neigh_want w = {.ip = *ip, .port = port, .pad = 0};

	rte_ring_enqueue_elem(wants, &w, sizeof(w)); /* DPDK 22.11's takes no const */
}

/* Bulk form for a burst: hit mask bit i set when found[i] was written. */
uint64_t sp_neigh_get_bulk(const struct sp_neigh *n, const uint16_t *ports, const uint32_t *ips_be,
			   uint16_t count, struct rte_ether_addr *found);

/*
 * One reader's copy of the next hops it found lately, direct-mapped by key:
 * a hit is a load and a compare where the hash takes some 70 instructions a
 * packet. Every sp_neigh_set() makes the whole copy stale (the table's
 * generation), so a reader sees a change from its next burst on, as it
 * would without it. Zeroed, it is empty.
 */
#define SP_NEIGH_CACHE_BITS 8
#define SP_NEIGH_CACHE (1u << SP_NEIGH_CACHE_BITS)

#define SP_NEIGH_CACHE6_BITS 6
#define SP_NEIGH_CACHE6 (1u << SP_NEIGH_CACHE6_BITS)

struct sp_neigh_cache {
	uint64_t gen; /* the table's generation the entries are of */
	struct {
		uint64_t key; /* 0: empty */
		uint64_t mac; /* the MAC's bytes in its first 6 */
	} entry[SP_NEIGH_CACHE];
	/* IPv6 next hops, kept whole: no word holds their address. */
	struct {
		struct sp_ip ip;
		uint16_t port;
		bool used;
		struct rte_ether_addr mac;
	} entry6[SP_NEIGH_CACHE6];
};

/* The table's generation: one more at each sp_neigh_set() (an NPE's hold looks again then). */
uint64_t sp_neigh_generation(const struct sp_neigh *n);

/* Empty c if the table changed since it was filled: once a burst, before sp_neigh_cache_find(). */
void sp_neigh_cache_sync(const struct sp_neigh *n, struct sp_neigh_cache *c);

/* A next hop as a cache key: never 0, which marks an empty entry. */
static inline uint64_t
sp_neigh_cache_key(uint16_t port, uint32_t ip_be)
{
	return UINT64_C(1) << 63 | (uint64_t)port << 32 | ip_be;
}

/* Fibonacci hashing: the top bits of the key times 2^64 over the golden ratio. */
static inline unsigned int
sp_neigh_cache_slot(uint64_t key)
{
	return (unsigned int)((key * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - SP_NEIGH_CACHE_BITS));
}

/*
 * The next hop's MAC (its 6 bytes, in c) if c holds it, else NULL. Inline:
 * encap asks for every packet.
 */
static inline const uint8_t *
sp_neigh_cache_find_key(const struct sp_neigh_cache *c, uint64_t key)
{
	unsigned int slot = sp_neigh_cache_slot(key);

	return c->entry[slot].key == key ? (const uint8_t *)&c->entry[slot].mac : NULL;
}

static inline const uint8_t *
sp_neigh_cache_find(const struct sp_neigh_cache *c, uint16_t port, uint32_t ip_be)
{
	return sp_neigh_cache_find_key(c, sp_neigh_cache_key(port, ip_be));
}

/*
 * An IPv6 next hop's MAC into *mac, through the reader's cache c (synced
 * this burst), else from the table, kept in c: false if unresolved.
 */
bool sp_neigh_get6_cached(const struct sp_neigh *n, struct sp_neigh_cache *c, uint16_t port,
			  const uint8_t ip6[16], struct rte_ether_addr *mac);

/* sp_neigh_get_bulk() through the reader's cache c, which keeps what the table answered. */
uint64_t sp_neigh_get_cached(const struct sp_neigh *n, struct sp_neigh_cache *c,
			     const uint16_t *ports, const uint32_t *ips_be, uint16_t count,
			     struct rte_ether_addr *found);

#endif
