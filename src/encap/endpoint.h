/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An endpoint (SPP meta-interface): the slice's UDP (a host slice's: or TCP)
 * port on a node port. The node builder hands them out (node.h); encap writes
 * the outer header of each packet from its endpoint's template.
 */
#ifndef SP_ENCAP_ENDPOINT_H
#define SP_ENCAP_ENDPOINT_H

#include <stdint.h>

#include "../fastpath/constants.h"

struct sp_endpoint {
	uint16_t port;        /* port index */
	uint8_t l4;           /* enum sp_l4 */
	uint16_t l4_port_be;
	uint32_t ip_be;       /* the port's address */
	uint16_t slice;
	uint64_t bandwidth_bps; /* outbound reservation */
	uint64_t inbound_bps;   /* inbound reservation and policed rate; 0: neither */
	/* The outer header's bytes alike for all its packets, and their sum (sp_encap_prepare). */
	uint8_t outer[SP_OUTER_HDR_LEN];
	uint16_t outer_sum;
	bool tx_ip_cksum; /* its port's device writes the outer checksum (port.h) */
	/* The same over IPv6, for a next hop of that family, if its port has an IPv6
	 * address (has_outer6); the sum is the UDP checksum's (with its pseudo-header's). */
	bool has_outer6;
	uint16_t outer6_sum;
	uint8_t outer6[SP_OUTER6_HDR_LEN];
};

#endif
