/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 header checksums (include/slicepath/cksum.h): a header from the wire,
 * then random headers of every length against DPDK's own rte_raw_cksum and
 * rte_ipv4_cksum, updates for one changed word, the carries of an all-ones
 * header, and the fold of any 64-bit sum.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ip.h>

#include <slicepath/cksum.h>

/* A captured header (192.168.0.1 to 192.168.0.199, UDP): its checksum is 0xb861. */
static void
test_known_header(void **state)
{
	uint8_t h[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
			 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
	uint16_t c;

	(void)state;
	assert_true(sp_ipv4_hdr_cksum_ok(h, sizeof(h)));
	h[8]--; /* a router's TTL decrement without the checksum update */
	assert_false(sp_ipv4_hdr_cksum_ok(h, sizeof(h)));
	h[8]++;
	h[10] = h[11] = 0;
	c = sp_ipv4_hdr_cksum(h, sizeof(h));
	memcpy(&h[10], &c, sizeof(c));
	assert_int_equal(h[10], 0xb8);
	assert_int_equal(h[11], 0x61);
}

/* Every header length, random bytes: the same sums and checksums as DPDK's. */
static void
test_random_headers_as_dpdk(void **state)
{
	uint32_t words[15];

	(void)state;
	srand(7);
	for (int i = 0; i < 200000; i++) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)words;
		unsigned int hlen = 20 + 4 * (unsigned int)(i % 11);

		for (unsigned int w = 0; w < RTE_DIM(words); w++)
			words[w] = (uint32_t)rand() ^ (uint32_t)rand() << 16;
		assert_int_equal(sp_ipv4_hdr_sum(ip, hlen), rte_raw_cksum(ip, hlen));
		ip->version_ihl = (uint8_t)(0x40 | hlen / 4);
		ip->hdr_checksum = 0;
		assert_int_equal(sp_ipv4_hdr_cksum(ip, hlen), rte_ipv4_cksum(ip));
		ip->hdr_checksum = sp_ipv4_hdr_cksum(ip, hlen);
		assert_true(sp_ipv4_hdr_cksum_ok(ip, hlen));
		words[i % (hlen / 4)] ^= 1u << (i % 32);
		assert_false(sp_ipv4_hdr_cksum_ok(ip, hlen));
	}
}

/* Any length from any byte: folded, the same sum as DPDK's. */
static void
test_bytes_as_dpdk(void **state)
{
	uint8_t buf[1600];

	(void)state;
	srand(11);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rand();
	for (int i = 0; i < 100000; i++) {
		size_t off = (size_t)rand() % 8, len = i < 300 ? (size_t)i : (size_t)rand() % 1500;

		assert_int_equal(sp_cksum_fold(sp_cksum_bytes(buf + off, len)),
				 rte_raw_cksum(buf + off, len));
	}
	/* All ones: a carry out of every add; unfolded, small enough for a few sums to add up. */
	memset(buf, 0xff, sizeof(buf));
	for (size_t len = 0; len < 1500; len++) {
		assert_int_equal(sp_cksum_fold(sp_cksum_bytes(buf + 1, len)),
				 rte_raw_cksum(buf + 1, len));
		assert_true(sp_cksum_bytes(buf + 1, len) <= UINT64_C(1) << 33);
	}
}

/* A word changed and the checksum updated (RFC 1624) is right, as recomputing it would be. */
static void
test_update16_as_recomputed(void **state)
{
	uint16_t words[10];

	(void)state;
	srand(11);
	for (int i = 0; i < 100000; i++) {
		unsigned int at = (unsigned int)rand() % 9;
		uint16_t old;

		at += at >= 5; /* any word but the checksum's (word 5) */
		for (unsigned int w = 0; w < RTE_DIM(words); w++)
			words[w] = (uint16_t)rand();
		words[5] = 0;
		words[5] = sp_ipv4_hdr_cksum(words, sizeof(words));
		old = words[at];
		words[at] = (uint16_t)rand();
		words[5] = sp_cksum_update16(words[5], old, words[at]);
		assert_true(sp_ipv4_hdr_cksum_ok(words, sizeof(words)));
	}
}

/* The largest sum there is: 15 words of all ones carry out of every fold. */
static void
test_all_ones(void **state)
{
	uint8_t h[60];

	(void)state;
	memset(h, 0xff, sizeof(h));
	for (unsigned int hlen = 20; hlen <= sizeof(h); hlen += 4)
		assert_int_equal(sp_ipv4_hdr_sum(h, hlen), rte_raw_cksum(h, hlen));
	assert_true(sp_ipv4_hdr_cksum_ok(h, sizeof(h)));
	/* All zeros sums to 0, not all ones: wrong, though 0 is a multiple of 0xffff. */
	memset(h, 0, sizeof(h));
	assert_false(sp_ipv4_hdr_cksum_ok(h, 20));
}

/* The fold as arithmetic says: the sum modulo 0xffff, all ones for a multiple, 0 only for 0. */
static uint16_t
fold_by_modulo(uint64_t sum)
{
	if (sum == 0)
		return 0;
	return sum % 0xffff == 0 ? 0xffff : (uint16_t)(sum % 0xffff);
}

/* Edges where each carry comes back in, then random sums of every magnitude. */
static void
test_fold_any_sum(void **state)
{
	const uint64_t edges[] = {0, 1, 0xfffe, 0xffff, 0x10000, 0x1fffe, 0x1ffff, 0xfffeffff,
				  0xffffffff, UINT64_C(0x100000000), UINT64_C(0x1fffffffe),
				  UINT64_C(0xffffffff00000001), UINT64_C(0xfffffffffffeffff),
				  UINT64_MAX};

	(void)state;
	for (unsigned int i = 0; i < RTE_DIM(edges); i++)
		assert_int_equal(sp_cksum_fold(edges[i]), fold_by_modulo(edges[i]));
	srand(13);
	for (int i = 0; i < 1000000; i++) {
		uint64_t sum = (uint64_t)rand() << 33 ^ (uint64_t)rand() << 11 ^ (uint64_t)rand();

		sum >>= i % 64; /* small sums as often as large ones */
		assert_int_equal(sp_cksum_fold(sum), fold_by_modulo(sum));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_header),
		cmocka_unit_test(test_random_headers_as_dpdk),
		cmocka_unit_test(test_bytes_as_dpdk),
		cmocka_unit_test(test_update16_as_recomputed),
		cmocka_unit_test(test_all_ones),
		cmocka_unit_test(test_fold_any_sum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
