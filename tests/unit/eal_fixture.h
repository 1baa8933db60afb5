/* SPDX-License-Identifier: BSD-3-Clause */
/* What unit tests share: a minimal EAL (no hugepages, no devices), a packet pool, a
 * deterministic random generator. */
#ifndef SP_TEST_EAL_FIXTURE_H
#define SP_TEST_EAL_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

/* Initialise EAL once per process; returns the shared packet pool. */
struct rte_mempool *sp_test_eal_init(void);

/* xorshift64*: deterministic pseudo-random numbers, so a failing test replays. */
uint64_t sp_test_rnd(void);

/* A packet holding a copy of bytes, data offset at the first byte, port set. */
struct rte_mbuf *sp_test_pkt(const void *bytes, size_t len, uint16_t port);

#endif
