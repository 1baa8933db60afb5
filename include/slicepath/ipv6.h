/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv6 5-tuple key, as the ipv6 code option will build it (issue 43):
 * what its filters match, field by field, in network byte order, 37 of the
 * 40 bytes a key may have (SP_KEY_MAX_BYTES). The lookup engine's 40-byte
 * build is cut for it (src/lookup/tree_key.h), and its benchmark's IPv6
 * sets use it. No DPDK here.
 */
#ifndef SLICEPATH_IPV6_H
#define SLICEPATH_IPV6_H

#ifdef __cplusplus
extern "C" {
#endif

/* Byte offsets into struct sp_key. */
enum sp_ipv6_key {
	SP_IPV6_KEY_DST = 0,    /* destination address, 16 bytes */
	SP_IPV6_KEY_SRC = 16,   /* source address, 16 bytes */
	SP_IPV6_KEY_SPORT = 32, /* TCP or UDP source port, 2 bytes; 0 for other packets */
	SP_IPV6_KEY_DPORT = 34, /* TCP or UDP destination port, 2 bytes; 0 likewise */
	SP_IPV6_KEY_NH = 36,    /* next header, 1 byte */
	SP_IPV6_KEY_BYTES = 37, /* the key's width; bytes 37-39 are 0 */
};

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_IPV6_H */
