/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the LD_PRELOAD shim (preload.c) reads from a program's bind() and
 * environment, as pure functions: no system call, no slicectld, so that a
 * fuzz target (tests/fuzz/fuzz_preload.c) can run them on any bytes.
 */
#ifndef SP_PRELOAD_ARGS_H
#define SP_PRELOAD_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include <sys/socket.h>

/* A bind the shim reserves an endpoint for. */
struct preload_bind {
	bool tcp;
	uint16_t port;
	uint32_t addr; /* IPv4, network order; 0: any */
};

/*
 * Is bind(sa, len) on a socket of type `type` (SO_TYPE) one for the slice:
 * TCP or UDP, AF_INET or AF_INET6 (wildcard or IPv4-mapped), a port other
 * than 0, not to 127.0.0.1? Fills b if so. sa holds len bytes, any of them.
 */
bool preload_bind_wanted(const struct sockaddr *sa, socklen_t len, int type,
			 struct preload_bind *b);

/*
 * A rate variable's value (bits/s): unset or empty is dflt; else a decimal
 * number up to INT64_MAX (what slicectld's JSON carries). 0, or -1 when
 * the value is none such (the bind is refused: a typo must not reserve
 * some other rate).
 */
int preload_rate(const char *value, uint64_t dflt, uint64_t *rate);

#endif
