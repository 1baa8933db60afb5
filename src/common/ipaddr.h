/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An address of either family in one 16-byte form: IPv6 as it is, IPv4 as
 * the IPv4-mapped IPv6 address ::ffff:a.b.c.d (RFC 4291), which no node or
 * next hop is ever given as IPv6 (sp_unusable_ipv6() refuses it). One key
 * and one compare then serve both families (the neighbor table, its
 * resolver). No DPDK: the config includes it too.
 */
#ifndef SP_IPADDR_H
#define SP_IPADDR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct sp_ip {
	uint8_t b[16];
};

#define SP_IP_V4_AT 12 /* where a mapped IPv4 address's 4 bytes are */

static inline struct sp_ip
sp_ip_v4(uint32_t ip_be)
{
	struct sp_ip a = {.b = {[10] = 0xff, [11] = 0xff}};

	memcpy(a.b + SP_IP_V4_AT, &ip_be, sizeof(ip_be));
	return a;
}

static inline struct sp_ip
sp_ip_v6(const uint8_t ip6[16])
{
	struct sp_ip a;

	memcpy(a.b, ip6, sizeof(a.b));
	return a;
}

static inline bool
sp_ip_is_v4(const struct sp_ip *a)
{
	static const uint8_t mapped[SP_IP_V4_AT] = {[10] = 0xff, [11] = 0xff};

	return memcmp(a->b, mapped, sizeof(mapped)) == 0;
}

/* The IPv4 address of a mapped one, network byte order. */
static inline uint32_t
sp_ip_to_v4(const struct sp_ip *a)
{
	uint32_t ip_be;

	memcpy(&ip_be, a->b + SP_IP_V4_AT, sizeof(ip_be));
	return ip_be;
}

static inline bool
sp_ip_equal(const struct sp_ip *a, const struct sp_ip *b)
{
	return memcmp(a->b, b->b, sizeof(a->b)) == 0;
}

#endif
