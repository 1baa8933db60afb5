/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the packet fuzz targets, beside tests/lib/sp_test.h (EAL,
 * packets built from fuzz bytes, IPv4 checksums so that a mutated header
 * can still pass the checksum test and reach the code behind it): the
 * invariants every packet target checks.
 */
#ifndef SP_FUZZ_PKT_H
#define SP_FUZZ_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include <slicepath/codeopt.h>

#include "sp_test.h"

/* Longest packet a target builds; -max_len in run.sh matches. */
#define SP_FUZZ_MAX_PKT 2047

/*
 * sp_test_mbuf(), failing when the pool is empty: every input returns its
 * packets, so an empty pool means a leak.
 */
struct rte_mbuf *sp_fuzz_mbuf(const uint8_t *bytes, size_t len, size_t split, uint8_t fill);

/* A packet a code option took out of the forwarding path: an exception or a drop, with
 * a reason; anything else fails. */
void sp_fuzz_check_left(const struct sp_meta *meta);

/* Free m; fail if the pool does not hold the in_use packets it held before. */
void sp_fuzz_free_all(struct rte_mempool *mp, struct rte_mbuf *m, unsigned int in_use);

/* Network-order fields of the fuzz input, read without alignment. */
static inline uint16_t
be16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#endif
