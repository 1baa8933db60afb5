/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A ClassBench set in IPv6 (-6): its filters and keys moved from the ipv4
 * option's 14-byte key into the IPv6 5-tuple's 37 bytes (slicepath/ipv6.h),
 * each IPv4 address a.b.c.d as 2001:db8:ab:cd:: and a prefix of length n
 * as one of 32 + n (a wildcard stays one), ports and protocol as they
 * were. The set's geometry is the IPv4 one's, so the two runs compare the
 * key widths alone: which rules match which keys does not change, nor the
 * answers they are checked against.
 */
#include "bench.h"

#include <string.h>

#include <rte_common.h>

#include <slicepath/ipv6.h>

static const uint8_t doc_prefix[4] = {0x20, 0x01, 0x0d, 0xb8}; /* 2001:db8::/32 */

/* The 4 address bytes at from as 16 at to: the prefix, then them, then zeros. */
static void
address(const uint8_t *from, uint8_t *to, bool mask)
{
	bool any = from[0] | from[1] | from[2] | from[3];

	memset(to, 0, 16);
	if (!mask || any) /* a key always has the prefix; a mask only if it looks at the address */
		memcpy(to, mask ? (const uint8_t[4]){0xff, 0xff, 0xff, 0xff} : doc_prefix, 4);
	memcpy(to + 4, from, 4);
}

/* b (a key or a mask in the ipv4 option's layout) in the IPv6 5-tuple's. */
static void
to_ipv6(struct sp_key *b, bool mask)
{
	const struct sp_key v4 = *b;

	memset(b, 0, sizeof(*b));
	address(&v4.b[SP_IPV4_KEY_DST], &b->b[SP_IPV6_KEY_DST], mask);
	address(&v4.b[SP_IPV4_KEY_SRC], &b->b[SP_IPV6_KEY_SRC], mask);
	memcpy(&b->b[SP_IPV6_KEY_SPORT], &v4.b[SP_IPV4_KEY_SPORT], 2);
	memcpy(&b->b[SP_IPV6_KEY_DPORT], &v4.b[SP_IPV4_KEY_DPORT], 2);
	b->b[SP_IPV6_KEY_NH] = v4.b[SP_IPV4_KEY_PROTO];
}

void
bench_set_to_ipv6(struct bench_set *s)
{
	for (size_t i = 0; i < s->x.n; i++) {
		to_ipv6(&s->x.filters[i].key, false);
		to_ipv6(&s->x.filters[i].mask, true);
	}
	for (size_t i = 0; i < s->nb_keys; i++)
		to_ipv6(&s->keys[i].k, false);
	snprintf(s->name + RTE_MIN(strnlen(s->name, sizeof(s->name)), sizeof(s->name) - 4), 4, ".v6");
	printf("  in IPv6: a.b.c.d/n as 2001:db8:ab:cd::/(32 + n), keys of %d bytes\n",
	       SP_IPV6_KEY_BYTES);
}
