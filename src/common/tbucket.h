/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Token bucket arithmetic shared by the output schedulers (qm/) and the
 * inbound policers (decap/). Tokens are bits scaled by 2^SP_TB_SHIFT, so
 * the fraction of a bit earned per TSC cycle adds up instead of rounding
 * to zero. Frames cost what they take on the wire: padded to the Ethernet
 * minimum, plus an overhead (preamble, FCS, inter-frame gap).
 */
#ifndef SP_TBUCKET_H
#define SP_TBUCKET_H

#include <stdint.h>

#define SP_TB_SHIFT 32
/* Depth: this long at the rate (a burst a line-rate sender may bring), at least a floor. */
#define SP_TB_DEPTH_NS 1000000u
/* Deeper than this many bits would overflow once scaled (over 4 Tb/s for 1 ms). */
#define SP_TB_MAX_DEPTH_BITS UINT32_MAX
/* Ethernet frames are padded to 60 bytes before the FCS. */
#define SP_MIN_FRAME 60u
/* Default wire overhead: preamble and start delimiter 8, FCS 4, inter-frame gap 12. */
#define SP_ETHER_OVERHEAD 24

struct sp_tb_rate {
	uint64_t rate_bps;
	uint64_t per_cycle;   /* tokens earned per cycle */
	uint64_t depth;       /* tokens the bucket holds at most */
	uint64_t full_cycles; /* idle this long, the bucket is full: no product can overflow */
};

/* rate_bps > 0; the depth is SP_TB_DEPTH_NS at the rate but at least min_depth_bits. */
static inline void
sp_tb_rate_init(struct sp_tb_rate *r, uint64_t rate_bps, uint64_t min_depth_bits, uint64_t hz)
{
	uint64_t depth_bits = rate_bps / (1000000000u / SP_TB_DEPTH_NS);

	if (depth_bits < min_depth_bits)
		depth_bits = min_depth_bits;
	if (depth_bits > SP_TB_MAX_DEPTH_BITS)
		depth_bits = SP_TB_MAX_DEPTH_BITS;
	r->rate_bps = rate_bps;
	r->per_cycle = (uint64_t)(((unsigned __int128)rate_bps << SP_TB_SHIFT) / hz);
	r->depth = depth_bits << SP_TB_SHIFT;
	r->full_cycles = r->depth / (r->per_cycle > 0 ? r->per_cycle : 1);
}

/* The tokens after dt more cycles, up to the depth. */
static inline uint64_t
sp_tb_refill(const struct sp_tb_rate *r, uint64_t tokens, uint64_t dt)
{
	if (dt >= r->full_cycles)
		return r->depth;
	tokens += dt * r->per_cycle;
	return tokens < r->depth ? tokens : r->depth;
}

/* The bytes a frame of len bytes (no FCS) takes on the wire. */
static inline uint64_t
sp_wire_bytes(uint32_t len, uint16_t overhead)
{
	return (uint64_t)(len > SP_MIN_FRAME ? len : SP_MIN_FRAME) + overhead;
}

/* What wire_bytes cost in tokens. */
static inline uint64_t
sp_tb_cost(uint64_t wire_bytes)
{
	return (wire_bytes * 8) << SP_TB_SHIFT;
}

#endif
