/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A filter's key and result, as code options, the control API and
 * libslicectl see them. No DPDK here: slow paths and clients include it too.
 */
#ifndef SLICEPATH_KEY_H
#define SLICEPATH_KEY_H

#ifndef __bpf__ /* BPF programs get the fixed-width types from slicepath/bpf.h */
#include <stdint.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The lookup key, opaque to the lookup engine: 112 bits (SP_KEY_BYTES) for
 * the code options that say no other width, up to SP_KEY_MAX_BYTES for
 * those that do (the ipv6 option's 37), the bytes past a slice's width
 * zero. Bytes compare in order, so put the field that prefixes are taken
 * on first, in network order.
 */
#define SP_KEY_BYTES 14
#define SP_KEY_MAX_BYTES 40
struct sp_key {
	uint8_t b[SP_KEY_MAX_BYTES];
};

#define SP_RESULT_DATA_BYTES 8

/* The next hop's family, sp_result.nh_family. */
enum sp_nh_family {
	SP_NH_IPV4 = 0, /* nh_ip: what a zeroed result has */
	SP_NH_IPV6 = 1, /* nh_ip6 */
};

/* What a filter yields. Endpoint and queue are slice-relative: the framework
 * maps them to the node's endpoints and physical queues, so a slice can only
 * ever send from its own endpoints into its own queues. The next hop is
 * IPv4 or IPv6 (nh_family), whatever family the packet came in over: the
 * endpoint's port needs an address of the next hop's family to send from.
 * The IPv6 address comes last, so that IPv4's fields keep their places.
 */
struct sp_result {
	uint16_t endpoint; /* index into the slice's endpoints */
	uint16_t queue;    /* slice-relative queue id */
	uint32_t nh_ip;    /* next hop IPv4 address, network byte order (SP_NH_IPV4) */
	uint16_t nh_port;  /* next hop UDP port, network byte order */
	uint8_t data[SP_RESULT_DATA_BYTES]; /* slice-defined, for format() */
	uint8_t nh_family; /* enum sp_nh_family */
	uint8_t reserved;  /* 0 */
	uint8_t nh_ip6[16]; /* next hop IPv6 address (SP_NH_IPV6); zero for IPv4 */
};

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_KEY_H */
