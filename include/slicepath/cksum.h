/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 header checksums (RFC 1071), and sums of any bytes, 32 bits at a
 * time. DPDK 22.11's rte_raw_cksum adds 16-bit words one by one, some 60
 * instructions for a 20-byte header, and a forwarded packet has three
 * headers checked or written. No DPDK here: code options and tools may use
 * it as they are.
 */
#ifndef SLICEPATH_CKSUM_H
#define SLICEPATH_CKSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A ones' complement sum of 16-bit words, folded to 16 bits: 2^32 and 2^16
 * are 1 modulo 0xffff, so each carry out comes back in at the bottom.
 */
static inline uint16_t
sp_cksum_fold(uint64_t sum)
{
	uint32_t lo = (uint32_t)sum, s = lo + (uint32_t)(sum >> 32);

	s += s < lo;
	/* The upper half of s plus s rotated by 16 is the halves' sum, its carry back in. */
	return (uint16_t)((s + (s << 16 | s >> 16)) >> 16);
}

/* The 4 bytes at p, wherever they are aligned. */
static inline uint32_t
sp_cksum_word(const uint8_t *p)
{
	uint32_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/*
 * The hlen bytes at hdr (a multiple of 4, 20 to 60: an IPv4 header) added
 * as 32-bit words, unfolded: congruent modulo 0xffff to their ones'
 * complement sum.
 */
static inline uint64_t
sp_ipv4_hdr_words(const void *hdr, unsigned int hlen)
{
	const uint8_t *p = (const uint8_t *)hdr;
	/* The 20 bytes every header has, written out: compilers keep a loop here. */
	uint64_t sum = (uint64_t)sp_cksum_word(p) + sp_cksum_word(p + 4) + sp_cksum_word(p + 8) +
		       sp_cksum_word(p + 12) + sp_cksum_word(p + 16);

	for (unsigned int i = 20; i < hlen; i += 4) /* options */
		sum += sp_cksum_word(p + i);
	return sum;
}

/*
 * acc + w with the carry out of bit 63 added back in at the bottom: a ones'
 * complement sum of 64-bit words, congruent modulo 0xffff (a divisor of
 * 2^64 - 1) to that of their 16-bit words. An add and an add-with-carry.
 */
static inline uint64_t
sp_cksum_add64(uint64_t acc, uint64_t w)
{
	acc += w;
	return acc + (acc < w);
}

/*
 * The len bytes at p (any length, any alignment) summed 8 bytes at a time,
 * a last odd byte as the first of a 16-bit word; unfolded, at most 2^33
 * (a few such sums add up in 64 bits): folded, what rte_raw_cksum gives,
 * in a fraction of its instructions (UDP over IPv6 sums every datagram it
 * sends and receives).
 */
static inline uint64_t
sp_cksum_bytes(const void *p, size_t len)
{
	const uint8_t *b = (const uint8_t *)p;
	uint64_t acc = 0, w;
	uint32_t word;
	uint16_t half;

	for (; len >= 8; len -= 8, b += 8) {
		memcpy(&w, b, sizeof(w));
		acc = sp_cksum_add64(acc, w);
	}
	w = 0;
	if (len >= 4) {
		memcpy(&word, b, sizeof(word));
		w = word;
		b += 4;
		len -= 4;
	}
	if (len >= 2) {
		memcpy(&half, b, sizeof(half));
		w += half;
		b += 2;
		len -= 2;
	}
	if (len == 1) {
		const uint8_t last[2] = {b[0], 0};

		memcpy(&half, last, sizeof(half));
		w += half;
	}
	acc = sp_cksum_add64(acc, w);
	return (acc & UINT32_MAX) + (acc >> 32);
}

/*
 * The ones' complement sum of the hlen bytes at hdr, folded to 16 bits, in
 * the bytes' own order as rte_raw_cksum gives it.
 */
static inline uint16_t
sp_ipv4_hdr_sum(const void *hdr, unsigned int hlen)
{
	return sp_cksum_fold(sp_ipv4_hdr_words(hdr, hlen));
}

/*
 * Whether the header's checksum is right: with it, the header sums to all
 * ones. The fold gives all ones for exactly the non-zero multiples of
 * 0xffff, and compilers test a multiple of a constant in a multiply and a
 * compare, fewer instructions than the fold.
 */
static inline bool
sp_ipv4_hdr_cksum_ok(const void *hdr, unsigned int hlen)
{
	uint64_t sum = sp_ipv4_hdr_words(hdr, hlen);

	return sum != 0 && sum % 0xffff == 0;
}

/* The checksum to write into a header whose checksum field is zero (as rte_ipv4_cksum). */
static inline uint16_t
sp_ipv4_hdr_cksum(const void *hdr, unsigned int hlen)
{
	return (uint16_t)~sp_ipv4_hdr_sum(hdr, hlen);
}

/*
 * RFC 1624, equation 3: the checksum hc once one 16-bit word of what it
 * covers changed from old to new (all three as they sit in memory).
 */
static inline uint16_t
sp_cksum_update16(uint16_t hc, uint16_t old, uint16_t new_word)
{
	return (uint16_t)~sp_cksum_fold((uint64_t)(uint16_t)~hc + (uint16_t)~old + new_word);
}

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_CKSUM_H */
