/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Text helpers for addresses, rates and hex (text.c): the config's,
 * the management API's and the control plane's. No DPDK: slicectld and
 * slicectl link them too (the sp_common library).
 */
#ifndef SP_TEXT_H
#define SP_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include <slicepath/key.h>

#include "ipaddr.h"

int sp_parse_ipv4(const char *s, uint32_t *ip_be);
int sp_parse_ipv6(const char *s, uint8_t ip6[16]);
/*
 * An address of either family as it is written (a.b.c.d, or RFC 5952's
 * IPv6 text), into buf (len bytes; SP_IP_STR_LEN is enough), returned.
 */
#define SP_IP_STR_LEN 46 /* INET6_ADDRSTRLEN */
const char *sp_format_ip(const struct sp_ip *a, char *buf, size_t len);
int sp_parse_mac(const char *s, uint8_t mac[6]);
int sp_parse_rate(const char *s, uint64_t *bps);      /* "10G", "800M", "1.5k", "1000" */
/*
 * bps as the shortest text sp_parse_rate reads back to bps, for messages in
 * the units a person types: "50M", "1.5G", "1234567", "999" (a tie goes to
 * the unit: "1.5k", not "1500"); 0, which sp_parse_rate refuses, is "0".
 * Written into buf (len bytes, SP_RATE_STR_LEN is enough for any value) and
 * returned, so that it can be an argument of printf.
 */
#define SP_RATE_STR_LEN 24
const char *sp_format_rate(uint64_t bps, char *buf, size_t len);
int sp_parse_hex_key(const char *s, struct sp_key *k); /* exactly 28 hex digits */
/* Hex digits (optionally after "0x"), two per byte, at most max bytes; *n gets how many. */
int sp_parse_hex_bytes(const char *s, uint8_t *out, size_t max, size_t *n);
/* n bytes as 2n lowercase hex digits and a NUL into out (2n + 1 bytes). */
void sp_format_hex(char *out, const uint8_t *b, size_t n);
/*
 * "a.b.c.d:port" or "[IPv6]:port" (port 1 to 65535) into r's nh_family,
 * nh_ip or nh_ip6 (the other zeroed) and nh_port, network byte order;
 * nothing else of r is touched.
 */
int sp_parse_next_hop(const char *s, struct sp_result *r);
/* r's next hop as sp_parse_next_hop() reads it, into buf (SP_NEXT_HOP_STR_LEN is enough). */
#define SP_NEXT_HOP_STR_LEN (SP_IP_STR_LEN + 8)
const char *sp_format_next_hop(const struct sp_result *r, char *buf, size_t len);
/* Why r's next hop address cannot be used ("is a multicast address"), or NULL. */
const char *sp_unusable_next_hop(const struct sp_result *r);
/* Why a node or next-hop address cannot be used ("is a multicast address"), or NULL. */
const char *sp_unusable_ipv4(uint32_t ip_be);
/* Why a node's IPv6 address cannot be used ("is a multicast address"), or NULL. */
const char *sp_unusable_ipv6(const uint8_t ip6[16]);
/*
 * Why name cannot be a slice's, or NULL: 1 to SP_NAME_LEN - 1 letters,
 * digits or '_' (names key telemetry dictionaries), not all digits (a
 * string of digits stands for a slice id in slicectl and the API).
 */
const char *sp_slice_name_problem(const char *name);

/*
 * What is wrong with a host slice's network namespace name (a file under
 * /run/netns, passed to ip netns), or NULL: 1 to SP_NETNS_NAME_LEN - 1
 * letters, digits, '_', '-' or '.', not . or ..
 */
const char *sp_netns_name_problem(const char *name);

/*
 * The one of the n candidates a mistyped word most likely meant (at most two
 * letters added, dropped, changed or swapped, fewer than the word has), for
 * "did you mean" in refusals; NULL when none is that close.
 */
const char *sp_closest(const char *word, const char *const *candidates, size_t n);

#endif
