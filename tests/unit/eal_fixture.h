/* SPDX-License-Identifier: BSD-3-Clause */
/* A minimal in-memory EAL (no hugepages, no devices) and a packet pool for unit tests. */
#ifndef SP_TEST_EAL_FIXTURE_H
#define SP_TEST_EAL_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

/* Initialise EAL once per process; returns the shared packet pool. */
struct rte_mempool *sp_test_eal_init(void);

/* A packet holding a copy of bytes, data offset at the first byte, port set. */
struct rte_mbuf *sp_test_pkt(const void *bytes, size_t len, uint16_t port);

#endif
