/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the unit tests and the fuzz targets share (tests/lib/): one EAL
 * set-up with a packet pool, packets built from bytes, IPv4 header
 * checksums, deterministic random numbers, and a check that aborts with a
 * message. Frames header by header are sp_test_frame.h, the in-memory
 * node sp_test_node.h.
 */
#ifndef SP_TEST_H
#define SP_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

/*
 * Start EAL once per process (no hugepages, no devices, no shared files,
 * no telemetry; lcore 0 allowed on every CPU of the process, so that
 * parallel runs do not share one) and return the packet pool. Exits with a
 * message on failure.
 */
struct rte_mempool *sp_test_eal_init(void);

/*
 * A packet holding a copy of len bytes, data offset at the first byte. With
 * 0 < split < len, a chain of two segments, the first holding split bytes.
 * The private area (struct sp_meta) is filled with fill. NULL when the pool
 * is empty.
 */
struct rte_mbuf *sp_test_mbuf(const void *bytes, size_t len, size_t split, uint8_t fill);
/* One segment, a zeroed private area, m->port set. */
struct rte_mbuf *sp_test_pkt(const void *bytes, size_t len, uint16_t port);

/* Write a correct checksum into the IPv4 header at ip if it fits in len bytes. */
void sp_test_fix_ipv4_cksum(uint8_t *ip, size_t len);
/* The IPv4 header at ip (IHL taken from it) sums to all ones. */
bool sp_test_ipv4_cksum_ok(const void *ip);

/* xorshift64*: deterministic pseudo-random numbers, so a failing test replays. */
uint64_t sp_test_rnd(void);

/* Print what went wrong and abort (a fuzz target's input is then saved). */
void sp_test_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#define SP_TEST_CHECK(cond, ...)                                                                   \
	do {                                                                                       \
		if (!(cond))                                                                       \
			sp_test_fail(__VA_ARGS__);                                                 \
	} while (0)

#endif
