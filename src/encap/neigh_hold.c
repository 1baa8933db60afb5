/* SPDX-License-Identifier: BSD-3-Clause */
#include "neigh_hold.h"

#include <string.h>

bool
sp_neigh_hold_add(struct sp_neigh_hold *h, const struct sp_neigh_hop_id *id, struct rte_mbuf *m,
		  const struct sp_neigh_hold_tag *tag, uint64_t now, uint64_t ticks)
{
	struct sp_neigh_hold_hop *hop = NULL, *free_hop = NULL;

	for (unsigned int i = 0; i < SP_NEIGH_HOLD_HOPS; i++) {
		if (h->hop[i].used && h->hop[i].id.port == id->port &&
		    sp_ip_equal(&h->hop[i].id.ip, &id->ip)) {
			hop = &h->hop[i];
			break;
		}
		if (free_hop == NULL && !h->hop[i].used)
			free_hop = &h->hop[i];
	}
	if (hop == NULL) {
		if (free_hop == NULL)
			return false;
		hop = free_hop;
		hop->used = true;
		hop->id = *id;
		hop->nb = 0;
		hop->deadline = now + ticks;
		if (h->nb_frames == 0 || hop->deadline < h->next_deadline)
			h->next_deadline = hop->deadline;
	}
	if (hop->nb == SP_NEIGH_HOLD_FRAMES)
		return false;
	hop->tag[hop->nb] = *tag;
	hop->frames[hop->nb++] = m;
	h->nb_frames++;
	return true;
}

uint16_t
sp_neigh_hold_take(struct sp_neigh_hold *h, unsigned int i, struct rte_mbuf **out,
		   struct sp_neigh_hold_tag *tags)
{
	struct sp_neigh_hold_hop *hop = &h->hop[i];
	uint16_t n = hop->nb;

	memcpy(out, hop->frames, n * sizeof(hop->frames[0]));
	memcpy(tags, hop->tag, n * sizeof(hop->tag[0]));
	h->nb_frames -= n;
	hop->nb = 0;
	hop->used = false;
	return n;
}

void
sp_neigh_hold_rearm(struct sp_neigh_hold *h)
{
	h->next_deadline = UINT64_MAX;
	for (unsigned int i = 0; i < SP_NEIGH_HOLD_HOPS; i++)
		if (h->hop[i].used && h->hop[i].deadline < h->next_deadline)
			h->next_deadline = h->hop[i].deadline;
}
