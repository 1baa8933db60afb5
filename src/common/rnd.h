/* SPDX-License-Identifier: BSD-3-Clause */
/* Deterministic pseudo-random numbers, for tests and benchmarks that must replay. */
#ifndef SP_RND_H
#define SP_RND_H

#include <stdint.h>

#define SP_RND_SEED 0x9e3779b97f4a7c15ull

/* xorshift64*: the next number from *state (never 0: start from SP_RND_SEED). */
static inline uint64_t
sp_rnd_next(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dull;
}

#endif
