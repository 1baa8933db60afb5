/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ipv4 code option's lookup key (codeopts/ipv4): what its filters
 * match, field by field, in network byte order. Slow paths and tools build
 * keys and masks with it. No DPDK here.
 */
#ifndef SLICEPATH_IPV4_H
#define SLICEPATH_IPV4_H

#ifdef __cplusplus
extern "C" {
#endif

/* Byte offsets into struct sp_key. */
enum sp_ipv4_key {
	SP_IPV4_KEY_DST = 0,    /* destination address, 4 bytes */
	SP_IPV4_KEY_SRC = 4,    /* source address, 4 bytes */
	SP_IPV4_KEY_SPORT = 8,  /* TCP or UDP source port, 2 bytes; 0 for other packets */
	SP_IPV4_KEY_DPORT = 10, /* TCP or UDP destination port, 2 bytes; 0 likewise */
	SP_IPV4_KEY_PROTO = 12, /* IP protocol, 1 byte */
	SP_IPV4_KEY_ZERO = 13,  /* always 0 */
};

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_IPV4_H */
