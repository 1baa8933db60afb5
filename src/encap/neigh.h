/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbor table: (port, IPv4 or IPv6 address) -> MAC of a next hop. One
 * writer (the management thread: static entries from the config, ARP
 * replies and neighbor advertisements the LC lcore passed up), lock-free
 * readers on forwarding lcores. Each entry says where it came from: the
 * config's are static, which nothing from the wire ever changes.
 *
 * This is the writer's side, and the readers' single lookups; what the
 * forwarding lcores use per burst (their caches of it) is in neigh_worker.h.
 */
#ifndef SP_NEIGH_H
#define SP_NEIGH_H

#include <stdint.h>

#include <rte_ether.h>

#include "../common/ipaddr.h"

struct sp_neigh;

enum sp_neigh_kind {
	SP_NEIGH_LEARNED, /* from an ARP reply or neighbor advertisement the node asked for */
	SP_NEIGH_STATIC,  /* from the config: never changed from the wire */
};

struct sp_neigh *sp_neigh_create(const char *name, uint32_t entries, int socket);
void sp_neigh_free(struct sp_neigh *n);

/* Writer side (one thread). Returns 0, -ENOSPC when full. */
int sp_neigh_set_ip(struct sp_neigh *n, uint16_t port, const struct sp_ip *ip,
		    const struct rte_ether_addr *mac, enum sp_neigh_kind kind);

/* Reader side, lock-free. Returns 0 with the MAC and the entry's kind, or -ENOENT. */
int sp_neigh_find_ip(const struct sp_neigh *n, uint16_t port, const struct sp_ip *ip,
		     struct rte_ether_addr *mac, enum sp_neigh_kind *kind);

/* The same for an IPv4 next hop (network byte order). */
static inline int
sp_neigh_set(struct sp_neigh *n, uint16_t port, uint32_t ip_be, const struct rte_ether_addr *mac,
	     enum sp_neigh_kind kind)
{
	const struct sp_ip ip = sp_ip_v4(ip_be);

	return sp_neigh_set_ip(n, port, &ip, mac, kind);
}

static inline int
sp_neigh_find(const struct sp_neigh *n, uint16_t port, uint32_t ip_be, struct rte_ether_addr *mac,
	      enum sp_neigh_kind *kind)
{
	const struct sp_ip ip = sp_ip_v4(ip_be);

	return sp_neigh_find_ip(n, port, &ip, mac, kind);
}

/*
 * The ring of next hops to resolve (struct sp_neigh_want, neigh_worker.h):
 * count of them, rte_ring_create()'s flags; NULL with rte_errno set.
 */
struct rte_ring *sp_neigh_want_ring(const char *name, unsigned int count, int socket,
				    unsigned int flags);

/* Iterate entries of both families (off the fast path): the next position, -ENOENT at the end. */
int32_t sp_neigh_next(const struct sp_neigh *n, uint32_t *iter, uint16_t *port, struct sp_ip *ip,
		      struct rte_ether_addr *mac, enum sp_neigh_kind *kind);

#endif
