/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bpf code option (codeopts/bpf, docs/bpf.md): a slice's parse() and
 * format() written in restricted C, compiled with clang -target bpf, loaded
 * through codeopt.load and run by DPDK's rte_bpf after its verifier passed
 * them. This header is what those programs see: the context, the helpers,
 * the return values. It compiles both for BPF and for the daemon.
 *
 * A program may read and write its context and, through sp_bpf_mem(), its
 * slice's memory block, nothing else: the verifier refuses every other
 * access, loops, and calls other than the helpers below.
 */
#ifndef SLICEPATH_BPF_H
#define SLICEPATH_BPF_H

#ifdef __bpf__
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
#else
#include <stdint.h>
#endif

#include <slicepath/key.h>
#include <slicepath/reason.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of the packet a program sees (and format() may change). */
#define SP_BPF_WINDOW 128

struct sp_bpf_ctx {
	/* The packet's first win_len bytes; what format() leaves here is sent. */
	uint8_t pkt[SP_BPF_WINDOW];
	uint32_t pkt_len; /* the whole packet; parse() may lower it to cut the end off */
	uint32_t win_len; /* bytes of pkt[] that hold the packet: min(pkt_len, 128) unless chained */
	uint8_t key[SP_KEY_BYTES]; /* parse(): the lookup key, zeroed on entry */
	uint8_t from_slow_path;    /* 1: injected by the slice's slow path */
	uint8_t reserved;
	uint32_t filter; /* format(): the filter that matched, or 0xffffffff if parse() routed */
	/* format(): the lookup result, to read and rewrite; parse(): to fill when returning
	 * SP_BPF_ROUTED (no lookup). */
	struct sp_result result;
};

/* What a program returns: go on, route without a lookup (parse), or a verdict with a reason. */
#define SP_BPF_FORWARD 0
#define SP_BPF_ROUTED 3
#define SP_BPF_EXCEPTION(reason) (1 | (reason) << 8) /* to the slice's slow path */
#define SP_BPF_DROP(reason) (2 | (reason) << 8)

/* Helpers: the number is the call's index into what the daemon offers (0 is none: a call
 * through a null function pointer is undefined in C, and clang deletes it). */
#define SP_BPF_HELPER_MEM 1

#ifdef __bpf__
/* The slice's memory block: exactly its size is accessible (the verifier checks). */
static void *(*const sp_bpf_mem)(void) = (void *)SP_BPF_HELPER_MEM;
/* The program's entry points: one section each. */
#define SP_BPF_PARSE __attribute__((section("parse"), used))
#define SP_BPF_FORMAT __attribute__((section("format"), used))
#endif

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_BPF_H */
