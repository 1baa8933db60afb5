/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Greedy cover from the low end: at each step take the largest aligned
 * block that starts at the next uncovered value and does not pass hi. Each
 * such block is a maximal prefix inside the range, and the maximal prefixes
 * are the unique minimal cover, so greedy is optimal.
 */
#include "range.h"

#include <errno.h>

#define WIDTH 16

/* Size of the largest block that starts at lo (aligned) and ends at or before hi. */
static uint32_t
block_size(uint32_t lo, uint32_t hi)
{
	uint32_t size = 1u << WIDTH;

	while ((lo & (size - 1)) != 0 || lo + size - 1 > hi)
		size >>= 1;
	return size;
}

int
sp_range_to_prefixes(uint16_t lo, uint16_t hi, struct sp_prefix16 *out, unsigned int max)
{
	/* 32-bit arithmetic: the block after the last one may start at 65536. */
	uint32_t next = lo, size;
	unsigned int n = 0;

	if (lo > hi)
		return -EINVAL;
	while (next <= hi) {
		if (n == max)
			return -ENOSPC;
		size = block_size(next, hi);
		out[n].value = (uint16_t)next;
		out[n].mask = (uint16_t)~(size - 1);
		n++;
		next += size;
	}
	return (int)n;
}
