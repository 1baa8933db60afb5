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

/* The lookup key: 112 bits, opaque to the lookup engine. Bytes compare in
 * order, so put the field that prefixes are taken on first, in network order.
 */
#define SP_KEY_BYTES 14
struct sp_key {
	uint8_t b[SP_KEY_BYTES];
};

#define SP_RESULT_DATA_BYTES 8

/* What a filter yields. Endpoint and queue are slice-relative: the framework
 * maps them to the node's endpoints and physical queues, so a slice can only
 * ever send from its own endpoints into its own queues.
 */
struct sp_result {
	uint16_t endpoint; /* index into the slice's endpoints */
	uint16_t queue;    /* slice-relative queue id */
	uint32_t nh_ip;    /* next hop IPv4 address, network byte order */
	uint16_t nh_port;  /* next hop UDP port, network byte order */
	uint8_t data[SP_RESULT_DATA_BYTES]; /* slice-defined, for format() */
};

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_KEY_H */
