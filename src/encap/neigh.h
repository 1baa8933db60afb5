/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbor table: (port, IPv4) -> MAC of a next hop. One writer (the
 * management thread: static entries from the config, ARP replies the LC
 * lcore passed up), lock-free readers on forwarding lcores. Each entry says
 * where it came from: the config's are static, which ARP never changes.
 */
#ifndef SP_NEIGH_H
#define SP_NEIGH_H

#include <stdint.h>

#include <rte_ether.h>

struct sp_neigh;

enum sp_neigh_kind {
	SP_NEIGH_LEARNED, /* from an ARP reply the node asked for */
	SP_NEIGH_STATIC,  /* from the config: never changed by ARP */
};

struct sp_neigh *sp_neigh_create(const char *name, uint32_t entries, int socket);
void sp_neigh_free(struct sp_neigh *n);

/* Writer side (one thread). Returns 0, -ENOSPC when full. */
int sp_neigh_set(struct sp_neigh *n, uint16_t port, uint32_t ip_be, const struct rte_ether_addr *mac,
		 enum sp_neigh_kind kind);

/* Reader side, lock-free. Returns 0 with the MAC and the entry's kind, or -ENOENT. */
int sp_neigh_find(const struct sp_neigh *n, uint16_t port, uint32_t ip_be,
		  struct rte_ether_addr *mac, enum sp_neigh_kind *kind);

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

struct sp_neigh_cache {
	uint64_t gen; /* the table's generation the entries are of */
	struct {
		uint64_t key; /* 0: empty */
		uint64_t mac; /* the MAC's bytes in its first 6 */
	} e[SP_NEIGH_CACHE];
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

	return c->e[slot].key == key ? (const uint8_t *)&c->e[slot].mac : NULL;
}

static inline const uint8_t *
sp_neigh_cache_find(const struct sp_neigh_cache *c, uint16_t port, uint32_t ip_be)
{
	return sp_neigh_cache_find_key(c, sp_neigh_cache_key(port, ip_be));
}

/* sp_neigh_get_bulk() through the reader's cache c, which keeps what the table answered. */
uint64_t sp_neigh_get_cached(const struct sp_neigh *n, struct sp_neigh_cache *c,
			     const uint16_t *ports, const uint32_t *ips_be, uint16_t count,
			     struct rte_ether_addr *found);

/* Iterate entries (off the fast path). Returns next position or -ENOENT at the end. */
int32_t sp_neigh_next(const struct sp_neigh *n, uint32_t *iter, uint16_t *port, uint32_t *ip_be,
		      struct rte_ether_addr *mac, enum sp_neigh_kind *kind);

#endif
