/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbor table on a lock-free rte_hash. The MAC lives in the hash's 8-byte
 * data pointer itself, in its first 6 bytes, the entry's kind in the 7th:
 * nothing to allocate or free, and an update is one atomic store, so a
 * reader sees either the old or the new entry, never half.
 */
#include <errno.h>
#include <string.h>

#include <rte_bitops.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_malloc.h>
#include <rte_ring_elem.h>

#include "../common/mac.h"
#include "neigh.h"
#include "neigh_worker.h"

/* rte_hash refuses tables smaller than one bucket. */
#define HASH_MIN_ENTRIES 8

/* Both families in one key: IPv4 as IPv4-mapped IPv6 (common/ipaddr.h). */
struct neigh_key {
	struct sp_ip ip;
	uint16_t port;
	uint16_t pad; /* always 0: keys are compared and hashed as bytes */
};

struct sp_neigh {
	struct rte_hash *hash;
	uint32_t entries; /* capacity asked for; the hash may be rounded up */
	uint64_t gen;     /* one more at each change, after it (readers' caches) */
};

static struct neigh_key
neigh_key(uint16_t port, const struct sp_ip *ip)
{
	return (struct neigh_key){.ip = *ip, .port = port, .pad = 0};
}

#define KIND_BYTE RTE_ETHER_ADDR_LEN

static void *
entry_pack(const struct rte_ether_addr *mac, enum sp_neigh_kind kind)
{
	uint8_t b[sizeof(uint64_t)] = {0};
	uint64_t v;

	RTE_BUILD_BUG_ON(sizeof(void *) < sizeof(uint64_t));
	memcpy(b, mac->addr_bytes, RTE_ETHER_ADDR_LEN);
	b[KIND_BYTE] = (uint8_t)kind;
	memcpy(&v, b, sizeof(v));
	return (void *)(uintptr_t)v;
}

static void
mac_unpack(const void *data, struct rte_ether_addr *mac)
{
	uint64_t v = (uintptr_t)data;

	memcpy(mac->addr_bytes, &v, RTE_ETHER_ADDR_LEN);
}

static enum sp_neigh_kind
kind_unpack(const void *data)
{
	uint64_t v = (uintptr_t)data;
	uint8_t b[sizeof(uint64_t)];

	memcpy(b, &v, sizeof(b));
	return (enum sp_neigh_kind)b[KIND_BYTE];
}

struct sp_neigh *
sp_neigh_create(const char *name, uint32_t entries, int socket)
{
	struct rte_hash_parameters p = {
		.name = name,
		.entries = RTE_MAX(entries, (uint32_t)HASH_MIN_ENTRIES),
		.key_len = sizeof(struct neigh_key),
		.socket_id = socket,
		/* One writer, readers never wait; extendable buckets so that all
		 * `entries` fit whatever their hashes. */
		.extra_flag =
			RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF | RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	struct sp_neigh *n;

	if (name == NULL || entries == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	n = rte_zmalloc_socket("sp_neigh", sizeof(*n), 0, socket);
	if (n == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	n->hash = rte_hash_create(&p);
	if (n->hash == NULL) {
		rte_free(n);
		return NULL;
	}
	n->entries = entries;
	return n;
}

void
sp_neigh_free(struct sp_neigh *n)
{
	if (n == NULL)
		return;
	rte_hash_free(n->hash);
	rte_free(n);
}

int
sp_neigh_set_ip(struct sp_neigh *n, uint16_t port, const struct sp_ip *ip,
		const struct rte_ether_addr *mac, enum sp_neigh_kind kind)
{
	const struct neigh_key key = neigh_key(port, ip);
	int32_t ret;

	/* Entries are never deleted, so the hash's count is exact. */
	if (rte_hash_lookup(n->hash, &key) < 0 && (uint32_t)rte_hash_count(n->hash) >= n->entries)
		return -ENOSPC;
	/* Adding a present key replaces its data in place. */
	ret = rte_hash_add_key_data(n->hash, &key, entry_pack(mac, kind));
	if (ret < 0)
		return ret;
	/* Released after the entry: a reader that sees the new generation finds it. */
	__atomic_fetch_add(&n->gen, 1, __ATOMIC_RELEASE);
	return 0;
}

int
sp_neigh_find_ip(const struct sp_neigh *n, uint16_t port, const struct sp_ip *ip,
		 struct rte_ether_addr *mac, enum sp_neigh_kind *kind)
{
	const struct neigh_key key = neigh_key(port, ip);
	void *data;

	if (rte_hash_lookup_data(n->hash, &key, &data) < 0)
		return -ENOENT;
	mac_unpack(data, mac);
	*kind = kind_unpack(data);
	return 0;
}

/* Distinct keys a burst's key is compared with before it is looked up on its own. */
#define NEIGH_RECENT 4

/*
 * A burst's next hops are few (often one): each distinct key is looked up
 * once, a key equal to one of the last NEIGH_RECENT distinct ones taking
 * that one's answer.
 */
uint64_t
sp_neigh_get_bulk(const struct sp_neigh *n, const uint16_t *ports, const uint32_t *ips_be,
		  uint16_t count, struct rte_ether_addr *found)
{
	struct neigh_key keys[RTE_HASH_LOOKUP_BULK_MAX];
	uint64_t packed[RTE_HASH_LOOKUP_BULK_MAX]; /* keys[u] as one word, to compare */
	const void *key_ptrs[RTE_HASH_LOOKUP_BULK_MAX];
	void *data[RTE_HASH_LOOKUP_BULK_MAX];
	uint8_t which[RTE_HASH_LOOKUP_BULK_MAX];
	uint64_t unique_hits = 0, hits = 0;
	uint16_t i, nb_keys = 0;

	/* The hit mask has 64 bits: a longer list cannot be answered. */
	count = RTE_MIN(count, (uint16_t)RTE_HASH_LOOKUP_BULK_MAX);
	if (count == 0)
		return 0;
	for (i = 0; i < count; i++) {
		const uint64_t k = (uint64_t)ports[i] << 32 | ips_be[i];
		uint16_t u = nb_keys;

		while (u > 0 && nb_keys - u < NEIGH_RECENT && packed[u - 1] != k)
			u--;
		if (u == 0 || nb_keys - u >= NEIGH_RECENT) {
			const struct sp_ip ip = sp_ip_v4(ips_be[i]);

			packed[nb_keys] = k;
			keys[nb_keys] = neigh_key(ports[i], &ip);
			key_ptrs[nb_keys] = &keys[nb_keys];
			u = ++nb_keys;
		}
		which[i] = (uint8_t)(u - 1);
	}
	if (rte_hash_lookup_bulk_data(n->hash, key_ptrs, nb_keys, &unique_hits, data) < 0)
		return 0;
	for (i = 0; i < count; i++) {
		if (!(unique_hits & RTE_BIT64(which[i])))
			continue;
		mac_unpack(data[which[i]], &found[i]);
		hits |= RTE_BIT64(i);
	}
	return hits;
}

uint64_t
sp_neigh_generation(const struct sp_neigh *n)
{
	return __atomic_load_n(&n->gen, __ATOMIC_ACQUIRE);
}

void
sp_neigh_cache_sync(const struct sp_neigh *n, struct sp_neigh_cache *c)
{
	/* Read before the table: entries filled after are at least this new. */
	uint64_t gen = __atomic_load_n(&n->gen, __ATOMIC_ACQUIRE);

	if (c->gen == gen)
		return;
	memset(c->entry, 0, sizeof(c->entry));
	memset(c->entry6, 0, sizeof(c->entry6));
	c->gen = gen;
}

bool
sp_neigh_get6_cached(const struct sp_neigh *n, struct sp_neigh_cache *c, uint16_t port,
		     const uint8_t ip6[16], struct rte_ether_addr *mac)
{
	const struct sp_ip ip = sp_ip_v6(ip6);
	uint64_t lo;
	unsigned int slot;
	enum sp_neigh_kind kind;

	/* The address's last 8 bytes (the interface's), and the port, hashed as for IPv4. */
	memcpy(&lo, ip6 + 8, sizeof(lo));
	slot = (unsigned int)(((lo ^ port) * UINT64_C(0x9e3779b97f4a7c15)) >>
			      (64 - SP_NEIGH_CACHE6_BITS));
	if (c->entry6[slot].used && c->entry6[slot].port == port &&
	    sp_ip_equal(&c->entry6[slot].ip, &ip)) {
		*mac = c->entry6[slot].mac;
		return true;
	}
	if (sp_neigh_find_ip(n, port, &ip, mac, &kind) < 0)
		return false; /* unresolved: asked for again at each packet */
	c->entry6[slot].ip = ip;
	c->entry6[slot].port = port;
	c->entry6[slot].used = true;
	c->entry6[slot].mac = *mac;
	return true;
}

uint64_t
sp_neigh_get_cached(const struct sp_neigh *n, struct sp_neigh_cache *c, const uint16_t *ports,
		    const uint32_t *ips_be, uint16_t count, struct rte_ether_addr *found)
{
	uint16_t miss_ports[RTE_HASH_LOOKUP_BULK_MAX];
	uint32_t miss_ips[RTE_HASH_LOOKUP_BULK_MAX];
	uint8_t miss_at[RTE_HASH_LOOKUP_BULK_MAX];
	struct rte_ether_addr miss_found[RTE_HASH_LOOKUP_BULK_MAX];
	uint64_t hits = 0, got;
	uint16_t i, nb_miss = 0;

	count = RTE_MIN(count, (uint16_t)RTE_HASH_LOOKUP_BULK_MAX);
	sp_neigh_cache_sync(n, c);
	for (i = 0; i < count; i++) {
		const uint8_t *mac = sp_neigh_cache_find(c, ports[i], ips_be[i]);

		if (mac != NULL) {
			memcpy(found[i].addr_bytes, mac, RTE_ETHER_ADDR_LEN);
			hits |= RTE_BIT64(i);
			continue;
		}
		miss_ports[nb_miss] = ports[i];
		miss_ips[nb_miss] = ips_be[i];
		miss_at[nb_miss++] = (uint8_t)i;
	}
	if (nb_miss == 0)
		return hits;
	got = sp_neigh_get_bulk(n, miss_ports, miss_ips, nb_miss, miss_found);
	for (i = 0; i < nb_miss; i++) {
		uint64_t key = sp_neigh_cache_key(miss_ports[i], miss_ips[i]);
		unsigned int slot = sp_neigh_cache_slot(key);

		if (!(got & RTE_BIT64(i)))
			continue; /* unresolved: asked for again at each packet */
		found[miss_at[i]] = miss_found[i];
		hits |= RTE_BIT64(miss_at[i]);
		c->entry[slot].key = key;
		c->entry[slot].mac = sp_mac_word(&miss_found[i]);
	}
	return hits;
}

struct rte_ring *
sp_neigh_want_ring(const char *name, unsigned int count, int socket, unsigned int flags)
{
	return rte_ring_create_elem(name, sizeof(struct sp_neigh_want), count, socket, flags);
}

int32_t
sp_neigh_next(const struct sp_neigh *n, uint32_t *iter, uint16_t *port, struct sp_ip *ip,
	      struct rte_ether_addr *mac, enum sp_neigh_kind *kind)
{
	const void *key;
	void *data;
	const struct neigh_key *k;
	int32_t pos = rte_hash_iterate(n->hash, &key, &data, iter);

	if (pos < 0)
		return pos;
	k = key;
	*port = k->port;
	*ip = k->ip;
	mac_unpack(data, mac);
	*kind = kind_unpack(data);
	return pos;
}
