/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Substrate decapsulation (SPP Line Card, receive side). The endpoint table
 * maps (port, destination IPv4, destination UDP port) to (slice, endpoint);
 * a matching frame's outer Ethernet/IPv4/UDP headers are stripped by moving
 * the data offset, so the slice's code option starts at its own header.
 * Each endpoint may have an inbound rate: what arrives beyond it is dropped.
 * ARP requests and ICMP echo requests for the node's addresses are answered
 * in place (the same mbuf becomes the reply). Everything else is counted by
 * reason and dropped.
 *
 * This is the management thread's side: the table made, configured and
 * freed. What the LC lcores call per burst is in decap_worker.h.
 */
#ifndef SP_DECAP_H
#define SP_DECAP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "../common/ipaddr.h"

struct sp_decap_table;

struct sp_decap_table *sp_decap_create(const char *name, uint32_t max_endpoints, int socket);
void sp_decap_free(struct sp_decap_table *t);

/*
 * Several lcores run sp_decap_burst() on the table (LC lcores each with
 * their own rx queues, software steering): an endpoint's policer is then
 * taken under a lock. Set before the lcores start.
 */
void sp_decap_set_shared(struct sp_decap_table *t, bool shared);

/* The node's own address on a port (ARP, ICMP echo, destination check). */
int sp_decap_set_port(struct sp_decap_table *t, uint16_t port, uint32_t ip_be,
		      const struct rte_ether_addr *mac);

/*
 * The port's host path: IPv4 to its address that no slice claims (UDP to a
 * port no endpoint holds, TCP and other protocols, ICMP but echo requests,
 * which the node answers) goes to the host's interface instead of being
 * dropped, and a copy of each ARP reply to us, so that the host's own
 * neighbors resolve. Set before the lcores start.
 */
void sp_decap_set_host(struct sp_decap_table *t, uint16_t port, bool host);

/*
 * The node's own IPv6 address on a port (NULL: none, the default): it
 * answers neighbor solicitations for it and echo requests to it
 * (docs/config.md, "ipv6"). Set before the lcores start.
 */
void sp_decap_set_ipv6(struct sp_decap_table *t, uint16_t port, const uint8_t ip6[16]);

/*
 * The port's device checks the IPv4 header checksum of what it receives
 * (its rx offload): its verdict in each mbuf's flags stands instead of the
 * software check where it gives one. Set before the lcores start.
 */
void sp_decap_set_rx_cksum(struct sp_decap_table *t, uint16_t port, bool device);

/*
 * Police what arrives on endpoint (the index sp_decap_add_endpoint() maps to)
 * to inbound_bps on the wire, frames counted as qm counts them with the
 * default Ethernet overhead; 0: not policed. Set it before adding the
 * endpoint: from then on the bucket is the receiving lcores'. -EINVAL bad index.
 */
int sp_decap_set_inbound(struct sp_decap_table *t, uint16_t endpoint, uint64_t inbound_bps);

/* The protocols an endpoint may be of: UDP (any slice), TCP (host slices). */
enum sp_l4 { SP_L4_UDP, SP_L4_TCP, SP_L4_COUNT };

static inline const char *
sp_l4_name(enum sp_l4 l4)
{
	return l4 == SP_L4_TCP ? "TCP" : "UDP";
}

/* An endpoint's port number as the API names it: "udp_port" or "tcp_port". */
static inline const char *
sp_l4_key(enum sp_l4 l4)
{
	return l4 == SP_L4_TCP ? "tcp_port" : "udp_port";
}

/*
 * One writer (management thread); lookups never wait. An endpoint is the
 * port's UDP (or TCP) port at the port's address; whole: its frames go to
 * the slice unstripped (a host slice's). -EEXIST if the port number is
 * taken on the port (by an endpoint or a NAT range), -ENOSPC when
 * max_endpoints are in, -ENOMEM for the port's first endpoint of the
 * protocol (its table takes 512 KiB).
 */
int sp_decap_add_endpoint(struct sp_decap_table *t, uint16_t port, uint32_t ip_be, enum sp_l4 l4,
			  uint16_t l4_port_be, uint16_t slice, uint16_t endpoint, bool whole);
int sp_decap_del_endpoint(struct sp_decap_table *t, uint16_t port, uint32_t ip_be, enum sp_l4 l4,
			  uint16_t l4_port_be);
/* Is the port number (host order) of that protocol held on port (endpoint or NAT range)? */
bool sp_decap_taken(const struct sp_decap_table *t, uint16_t port, enum sp_l4 l4, uint16_t num);

/*
 * A host slice's NAT range on port: numbers first .. first + count - 1 of
 * both UDP and TCP (and ICMP echo identifiers) go to the slice whole, for
 * its NAT table to map back. -EEXIST if any is held, nothing written then.
 */
int sp_decap_add_nat(struct sp_decap_table *t, uint16_t port, uint32_t ip_be, uint16_t first,
		     uint16_t count, uint16_t slice);
void sp_decap_del_nat(struct sp_decap_table *t, uint16_t port, uint16_t first, uint16_t count);

/* Build an ARP request for ip_be from the port's address (management thread). */
struct rte_mbuf *sp_arp_request(const struct sp_decap_table *t, struct rte_mempool *mp,
				uint16_t port, uint32_t ip_be);

/* Read the sender of an ARP reply handed up in sp_decap_out.learn. */
int sp_arp_reply_sender(const struct rte_mbuf *m, uint32_t *ip_be, struct rte_ether_addr *mac);

/*
 * Build a neighbor solicitation for the IPv6 address target from the
 * port's IPv6 address, to the target's solicited-node group (management
 * thread). NULL when the port has none (or target is IPv4) or no mbuf.
 */
struct rte_mbuf *sp_nd_solicit(const struct sp_decap_table *t, struct rte_mempool *mp,
			       uint16_t port, const struct sp_ip *target);

/* Read the target and its MAC of a neighbor advertisement handed up in sp_decap_out.learn. */
int sp_nd_advert_target(const struct rte_mbuf *m, struct sp_ip *ip, struct rte_ether_addr *mac);

#endif
