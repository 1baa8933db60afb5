/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the packet fuzz targets: an in-memory EAL and packet pool, mbufs
 * built from fuzz bytes (one segment or a chain of two), and IPv4 header
 * checksums, so that a mutated header can still pass the checksum test and
 * reach the code behind it.
 */
#ifndef SP_FUZZ_PKT_H
#define SP_FUZZ_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include <slicepath/codeopt.h>

/* Longest packet a target builds; -max_len in run.sh matches. */
#define SP_FUZZ_MAX_PKT 2047

/*
 * Start EAL once (no hugepages, no devices, no shared files, lcore 0 allowed
 * on every CPU of the process, so parallel fuzzers do not share one core)
 * and return the packet pool. Exits with a message on failure.
 */
struct rte_mempool *sp_fuzz_eal_init(void);

/*
 * A packet holding a copy of len bytes. With 0 < split < len, a chain of two
 * segments, the first holding split bytes. The private area (struct sp_meta)
 * is filled with fill. Exits with a message when the pool is empty: every
 * input returns its packets, so an empty pool means a leak.
 */
struct rte_mbuf *sp_fuzz_mbuf(struct rte_mempool *mp, const uint8_t *bytes, size_t len,
			      size_t split, uint8_t fill);

/* A packet a code option took out of the forwarding path: an exception or a drop, with
 * a reason; anything else fails. */
void sp_fuzz_check_left(const struct sp_meta *meta);

/* Free m; fail if the pool does not hold the in_use packets it held before. */
void sp_fuzz_free_all(struct rte_mempool *mp, struct rte_mbuf *m, unsigned int in_use);

/* Write a correct checksum into the IPv4 header at ip if it fits in len bytes. */
void sp_fuzz_fix_ipv4_cksum(uint8_t *ip, size_t len);

/* The IPv4 header at ip (IHL taken from it) sums to all ones. */
bool sp_fuzz_ipv4_cksum_ok(const void *ip);

/* Print what went wrong and abort, so libFuzzer saves the input. */
void sp_fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#define SP_FUZZ_CHECK(cond, ...)                                                                   \
	do {                                                                                       \
		if (!(cond))                                                                       \
			sp_fuzz_fail(__VA_ARGS__);                                                 \
	} while (0)

#endif
