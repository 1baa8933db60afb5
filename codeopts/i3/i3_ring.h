/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Chord arithmetic on the i3 ring (slicepath/i3.h, struct sp_i3_ring):
 * which IDs a node is responsible for, which finger a packet goes to, and
 * the finger table of a node given the ring's members. No DPDK.
 */
#ifndef SP_I3_RING_H
#define SP_I3_RING_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <slicepath/i3.h>

/* A ring position: the first SP_I3_RING_BYTES bytes of an ID, big-endian. */
typedef unsigned __int128 sp_i3_pos;

/* Inline: the fast path reads three positions a packet. */
static inline sp_i3_pos
sp_i3_pos_get(const uint8_t *b)
{
	uint64_t hi, lo;

	memcpy(&hi, b, sizeof(hi));
	memcpy(&lo, b + sizeof(hi), sizeof(lo));
	return (sp_i3_pos)be64toh(hi) << 64 | be64toh(lo);
}

/* The node at self whose predecessor is at pred is responsible for pos:
 * pos in (pred, self], or any pos when pred == self (a ring of one). */
bool sp_i3_ring_local(sp_i3_pos self, sp_i3_pos pred, sp_i3_pos pos);

/*
 * The finger a node at self sends pos to, among n fingers ordered by
 * distance from self: the farthest one not past pos (it is responsible for
 * pos, or precedes it most closely), the nearest one (the successor) when
 * all are past it. Returns its index, or -1 when n is 0.
 */
int sp_i3_ring_finger(const struct sp_i3_finger *f, uint32_t n, sp_i3_pos self, sp_i3_pos pos);

/* A member of the ring, as the slow path knows it. */
struct sp_i3_member {
	sp_i3_pos pos;
	uint32_t ip;   /* network order */
	uint16_t port; /* network order */
};

/*
 * Fill r (seq left alone) for the node at self among the n members (self
 * may be among them; duplicates count once): its predecessor, and its
 * fingers, the successors of self + 2^i for i = 0..127, each node once,
 * nearest first, all sent from endpoint into queue. Returns the number of
 * fingers, or -1 when there are more than SP_I3_MAX_FINGERS.
 */
int sp_i3_ring_build(struct sp_i3_ring *r, sp_i3_pos self, const struct sp_i3_member *m,
		     size_t n, uint16_t endpoint, uint16_t queue);

#endif
