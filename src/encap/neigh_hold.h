/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames waiting for their next hop's MAC: an NPE's, touched by its lcore
 * only. The first frames to a next hop the neighbor table lacks wait here,
 * SP_NEIGH_HOLD_FRAMES a next hop at most, until ARP answers or
 * SP_NEIGH_HOLD_MS pass (its first frame's arrival to its last frame's
 * end: no frame waits longer); what finds no room is dropped as before
 * (no_neighbor). The NPE looks again when the table's generation moves
 * (npe.c, sp_npe_hold_service()); the hold only keeps the frames, in
 * arrival order, and never looks into them. Times are in timer ticks.
 */
#ifndef SP_NEIGH_HOLD_H
#define SP_NEIGH_HOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/ipaddr.h"

struct rte_mbuf;

#define SP_NEIGH_HOLD_FRAMES 4 /* frames a next hop keeps waiting */
#define SP_NEIGH_HOLD_HOPS 16  /* next hops an NPE keeps frames for at once */
#define SP_NEIGH_HOLD_MS 1000  /* how long a frame waits for its next hop's MAC at most */
#define SP_NEIGH_HOLD_MAX (SP_NEIGH_HOLD_HOPS * SP_NEIGH_HOLD_FRAMES)

/* What the NPE notes of a frame when it holds it, to know on release whether it may still go. */
struct sp_neigh_hold_tag {
	const void *owner; /* its slice (struct sp_slice) */
	uint64_t serial;   /* and that slice's serial: a later one at the same address differs */
	uint16_t slice;    /* its slice's id */
};

/* A next hop: its port and address (either family, common/ipaddr.h). */
struct sp_neigh_hop_id {
	struct sp_ip ip;
	uint16_t port;
};

struct sp_neigh_hold_hop {
	bool used;         /* false: free */
	struct sp_neigh_hop_id id;
	uint64_t deadline; /* its first frame's arrival + SP_NEIGH_HOLD_MS */
	uint16_t nb;
	struct sp_neigh_hold_tag tag[SP_NEIGH_HOLD_FRAMES];
	struct rte_mbuf *frames[SP_NEIGH_HOLD_FRAMES];
};

/* Zeroed, it is empty. */
struct sp_neigh_hold {
	uint32_t nb_frames;     /* all hops' together; 0: nothing to look at */
	uint64_t gen;           /* the neighbor table's generation the hops were last looked up at */
	uint64_t next_deadline; /* the earliest hop's, while any frame is held */
	struct sp_neigh_hold_hop hop[SP_NEIGH_HOLD_HOPS];
};

/*
 * Keep m, tagged tag, for next hop id, at now; a new hop's deadline is now
 * + ticks. False when the next hop already keeps SP_NEIGH_HOLD_FRAMES or no
 * hop is free: m is the caller's still.
 */
bool sp_neigh_hold_add(struct sp_neigh_hold *h, const struct sp_neigh_hop_id *id,
		       struct rte_mbuf *m, const struct sp_neigh_hold_tag *tag, uint64_t now,
		       uint64_t ticks);

/*
 * Take every frame of hop i (in arrival order) into out, their tags into
 * tags; the hop is free after. Returns how many.
 */
uint16_t sp_neigh_hold_take(struct sp_neigh_hold *h, unsigned int i, struct rte_mbuf **out,
			    struct sp_neigh_hold_tag *tags);

/* next_deadline again, after takes (UINT64_MAX if none is left). */
void sp_neigh_hold_rearm(struct sp_neigh_hold *h);

#endif
