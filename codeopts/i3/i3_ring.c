/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "i3_ring.h"

#define RING_BITS (SP_I3_RING_BYTES * 8)

/* A ring position as its SP_I3_RING_BYTES bytes, big-endian. */
static void
sp_i3_pos_put(sp_i3_pos p, uint8_t *b)
{
	for (int i = SP_I3_RING_BYTES - 1; i >= 0; i--, p >>= 8)
		b[i] = (uint8_t)p;
}

/* Distances run clockwise and wrap: unsigned arithmetic modulo 2^128. */
bool
sp_i3_ring_local(sp_i3_pos self, sp_i3_pos pred, sp_i3_pos pos)
{
	return pred == self || pos - self == 0 || pos - self > pred - self;
}

int
sp_i3_ring_finger(const struct sp_i3_finger *f, uint32_t n, sp_i3_pos self, sp_i3_pos pos)
{
	sp_i3_pos d = pos - self;
	uint32_t lo = 0, hi = n;

	if (n == 0)
		return -1;
	/* Binary search for the first finger past pos; the one before it wins. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sp_i3_pos_get(f[mid].pos) - self <= d)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? 0 : (int)lo - 1;
}

/* The member nearest at or after pos, clockwise (m holds at least one). */
static const struct sp_i3_member *
successor(const struct sp_i3_member *m, size_t n, sp_i3_pos pos)
{
	const struct sp_i3_member *best = &m[0];

	for (size_t i = 1; i < n; i++)
		if (m[i].pos - pos < best->pos - pos)
			best = &m[i];
	return best;
}

int
sp_i3_ring_build(struct sp_i3_ring *r, sp_i3_pos self, const struct sp_i3_member *m,
		 size_t n, uint16_t endpoint, uint16_t queue)
{
	sp_i3_pos pred = self;
	uint32_t k = 0;

	/* The predecessor: the member farthest clockwise, self apart. */
	for (size_t i = 0; i < n; i++)
		if (m[i].pos != self && (pred == self || m[i].pos - self > pred - self))
			pred = m[i].pos;
	sp_i3_pos_put(self, r->self);
	sp_i3_pos_put(pred, r->pred);
	for (int i = 0; i < RING_BITS && n > 0; i++) {
		const struct sp_i3_member *s = successor(m, n, self + ((sp_i3_pos)1 << i));
		struct sp_i3_finger *f;

		/* Successors only move clockwise with i: a repeat is the last one added. */
		if (s->pos == self || (k > 0 && sp_i3_pos_get(r->fingers[k - 1].pos) == s->pos))
			continue;
		if (k == SP_I3_MAX_FINGERS)
			return -1;
		f = &r->fingers[k++];
		memset(f, 0, sizeof(*f));
		sp_i3_pos_put(s->pos, f->pos);
		f->nh_ip = s->ip;
		f->nh_port = s->port;
		f->endpoint = endpoint;
		f->queue = queue;
	}
	r->nb_fingers = k;
	return (int)k;
}
