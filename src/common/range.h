/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port ranges as ternary prefixes. A ternary table matches bits, not
 * ranges, so a rule on a 16-bit range [lo, hi] (a ClassBench port range, a
 * control-API range filter) becomes a set of (value, mask) prefixes whose
 * union is exactly the range. A rule with ranges on two fields becomes the
 * cross product of the two sets; building it is the caller's business.
 */
#ifndef SP_COMMON_RANGE_H
#define SP_COMMON_RANGE_H

#include <stdint.h>

/* The most prefixes a 16-bit range needs (2 * 16 - 2, e.g. [1, 65534]). */
#define SP_RANGE_MAX_PREFIXES 30

/* Matches x when (x & mask) == value; mask has its ones at the top, value & ~mask == 0. */
struct sp_prefix16 {
	uint16_t value;
	uint16_t mask;
};

/*
 * Write into out[0..max) the smallest set of prefixes covering exactly
 * [lo, hi], in increasing value order (so they are disjoint and consecutive),
 * and return how many. [0, 65535] is one prefix with mask 0.
 * -EINVAL if lo > hi; -ENOSPC if more than max are needed (out is then
 * partly written). max = SP_RANGE_MAX_PREFIXES always suffices.
 */
int sp_range_to_prefixes(uint16_t lo, uint16_t hi, struct sp_prefix16 *out, unsigned int max);

#endif
