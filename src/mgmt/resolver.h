/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Resolution of next hops, the management thread's side, for both
 * families (ARP for IPv4, neighbor discovery for IPv6, the same rules):
 * which next hops to ask for and when, and which answers the neighbor table
 * takes. Any host on a link can send ARP or an advertisement, so an answer
 * is taken only when the node asked: within SP_RESOLVE_WINDOW_MS of a
 * request it sent, once. A static (config) neighbor is never changed from
 * the wire. A learned one is asked for again every SP_RESOLVE_REFRESH_S,
 * and at once when a frame claims another MAC for it, so that a host that
 * really moved is followed. No I/O here: mgmt.c sends the requests (ARP
 * requests, neighbor solicitations) and feeds the answers; times are in
 * timer ticks.
 */
#ifndef SP_RESOLVER_H
#define SP_RESOLVER_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "../encap/neigh.h"

#define SP_RESOLVE_MAX 256        /* next hops being asked about at once */
#define SP_RESOLVE_RETRY_MS 1000  /* between two requests for one next hop */
#define SP_RESOLVE_TRIES 5        /* requests unanswered before it stops asking */
#define SP_RESOLVE_WINDOW_MS 2000 /* how long after a request its answer is taken */
#define SP_RESOLVE_REFRESH_S 60   /* learned neighbors are asked for again this often */

/* What became of an ARP frame or advertisement that told the node a neighbor's address. */
enum sp_arp_verdict {
	SP_ARP_LEARNED, /* the answer to a request: the table has it */
	SP_ARP_CHANGED, /* the same, and the learned entry's MAC changed */
	SP_ARP_IGNORED, /* unsolicited, late, or about a static neighbor */
};

struct sp_resolve_ask {
	uint16_t port;
	struct sp_ip ip;
};

struct sp_resolver {
	struct sp_neigh *neigh;
	uint64_t hz; /* timer ticks a second */
	uint64_t next_refresh;
	bool full_logged;
	struct {
		bool used;
		uint8_t tries;  /* requests sent */
		uint16_t port;
		struct sp_ip ip;
		uint64_t asked; /* when the last one was sent */
	} slot[SP_RESOLVE_MAX];
};

void sp_resolver_init(struct sp_resolver *r, struct sp_neigh *neigh, uint64_t hz, uint64_t now);

/* Ask for a next hop (one the fast path could not resolve), unless it is being asked for. */
void sp_resolver_want(struct sp_resolver *r, uint16_t port, const struct sp_ip *ip);

/* A neighbor's address from an ARP frame or advertisement on port, at now: whether the table took it. */
enum sp_arp_verdict sp_resolver_input(struct sp_resolver *r, uint16_t port, const struct sp_ip *ip,
				      const struct rte_ether_addr *mac, uint64_t now);

/*
 * The requests to send at now (at most max, in out); each counts as sent.
 * Learned neighbors due for a refresh are asked for from here too.
 */
unsigned int sp_resolver_due(struct sp_resolver *r, uint64_t now, struct sp_resolve_ask *out,
			     unsigned int max);

#endif
