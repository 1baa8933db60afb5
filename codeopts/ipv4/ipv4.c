/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The IPv4 router code option (SPP's IPv4 code option). parse() checks the
 * inner IPv4 header as a router must (RFC 1812 section 5.2.2), hands
 * options and expiring TTLs to the slice's slow path, and builds the key
 *
 *   bytes 0-3 dst address | 4-7 src address | 8-9 src port | 10-11 dst port
 *   | 12 protocol | 13 zero                                (network order)
 *
 * so that filters can match destination prefixes, 5-tuples or anything in
 * between. format() decrements the TTL. No slice memory, no result data.
 */
#include <rte_common.h>
#include <rte_mbuf.h>

#include <slicepath/codeopt.h>

#include "ipv4_hdr.h"

static void
parse(struct sp_slice *s __rte_unused, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++)
		sp_ipv4_parse_one(pkts[i]);
}

static const struct sp_codeopt ipv4_codeopt = {
	.name = "ipv4",
	.abi_version = SP_CODEOPT_ABI,
	.parse = parse,
	.format = sp_ipv4_format,
};

SP_CODEOPT_REGISTER(ipv4_codeopt);
