/* SPDX-License-Identifier: BSD-3-Clause */
#include "resolver.h"

#include <string.h>

#include "mgmt.h"
#include "../common/log.h"

SP_LOG_TYPE("mgmt")

void
sp_resolver_init(struct sp_resolver *r, struct sp_neigh *neigh, uint64_t hz, uint64_t now)
{
	memset(r, 0, sizeof(*r));
	r->neigh = neigh;
	r->hz = hz;
	r->next_refresh = now + SP_RESOLVE_REFRESH_S * hz;
}

static int
slot_of(const struct sp_resolver *r, uint16_t port, const struct sp_ip *ip)
{
	for (int i = 0; i < SP_RESOLVE_MAX; i++)
		if (r->slot[i].used && r->slot[i].port == port && sp_ip_equal(&r->slot[i].ip, ip))
			return i;
	return -1;
}

void
sp_resolver_want(struct sp_resolver *r, uint16_t port, const struct sp_ip *ip)
{
	int i;

	if (slot_of(r, port, ip) >= 0)
		return;
	for (i = 0; i < SP_RESOLVE_MAX && r->slot[i].used; i++)
		;
	if (i == SP_RESOLVE_MAX) {
		/* Asked again later: the fast path asks at every packet it cannot send. */
		if (!r->full_logged)
			SP_LOG(WARNING, "more than %d next hops unresolved at once", SP_RESOLVE_MAX);
		r->full_logged = true;
		return;
	}
	r->slot[i].used = true;
	r->slot[i].tries = 0;
	r->slot[i].port = port;
	r->slot[i].ip = *ip;
	r->slot[i].asked = 0;
}

enum sp_arp_verdict
sp_resolver_input(struct sp_resolver *r, uint16_t port, const struct sp_ip *ip,
		  const struct rte_ether_addr *mac, uint64_t now)
{
	struct rte_ether_addr known;
	enum sp_neigh_kind kind;
	bool found = sp_neigh_find_ip(r->neigh, port, ip, &known, &kind) == 0;
	bool moved = found && !rte_is_same_ether_addr(&known, mac);
	int i = slot_of(r, port, ip);

	if (found && kind == SP_NEIGH_STATIC)
		return SP_ARP_IGNORED;
	if (i < 0 || r->slot[i].tries == 0 ||
	    now - r->slot[i].asked > SP_RESOLVE_WINDOW_MS * r->hz / 1000) {
		/* Unsolicited: a learned neighbor said to have moved is asked for itself. */
		if (moved)
			sp_resolver_want(r, port, ip);
		return SP_ARP_IGNORED;
	}
	if (sp_neigh_set_ip(r->neigh, port, ip, mac, SP_NEIGH_LEARNED) < 0) {
		SP_LOG(WARNING, "neighbor table full; cannot learn a neighbor");
		return SP_ARP_IGNORED;
	}
	/* One request, one answer: later ones (forged or not) wait for the next request. */
	r->slot[i].used = false;
	r->full_logged = false;
	return moved ? SP_ARP_CHANGED : SP_ARP_LEARNED;
}

/* Every learned neighbor is asked for again (those that do not fit wait for the next round). */
static void
refresh(struct sp_resolver *r)
{
	struct rte_ether_addr mac;
	enum sp_neigh_kind kind;
	struct sp_ip ip;
	uint32_t iter = 0;
	uint16_t port;

	while (sp_neigh_next(r->neigh, &iter, &port, &ip, &mac, &kind) >= 0)
		if (kind == SP_NEIGH_LEARNED)
			sp_resolver_want(r, port, &ip);
}

unsigned int
sp_resolver_due(struct sp_resolver *r, uint64_t now, struct sp_resolve_ask *out, unsigned int max)
{
	uint64_t retry = SP_RESOLVE_RETRY_MS * r->hz / 1000, window = SP_RESOLVE_WINDOW_MS * r->hz / 1000;
	unsigned int n = 0;

	if (now >= r->next_refresh) {
		refresh(r);
		r->next_refresh = now + SP_RESOLVE_REFRESH_S * r->hz;
	}
	for (unsigned int i = 0; i < SP_RESOLVE_MAX && n < max; i++) {
		if (!r->slot[i].used)
			continue;
		if (r->slot[i].tries == SP_RESOLVE_TRIES) {
			/* The last request unanswered: the entry, if any, stays as it was. */
			if (now - r->slot[i].asked > window)
				r->slot[i].used = false;
			continue;
		}
		if (r->slot[i].tries > 0 && now - r->slot[i].asked < retry)
			continue;
		r->slot[i].tries++;
		r->slot[i].asked = now;
		out[n].port = r->slot[i].port;
		out[n++].ip = r->slot[i].ip;
	}
	return n;
}
