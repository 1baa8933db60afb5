/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Why a packet left the fast path. One list for the whole node so every
 * counter has a single name; code options use the generic ones. The names
 * are the counters' names in stats, telemetry and the exception channel.
 * No DPDK here: slow paths and clients include it too.
 */
#ifndef SLICEPATH_REASON_H
#define SLICEPATH_REASON_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * X(ID, name, what): SP_REASON_ID is its number, name its counter's name.
 * Numbers only ever grow (slow paths see them): a new reason goes last.
 */
#define SP_REASONS(X)                                                                              \
	X(NONE, none, "not a reason: the packet stayed in the fast path")                          \
	/* substrate (framework) */                                                                \
	X(TRUNCATED, truncated, "frame shorter than its headers say")                              \
	X(NOT_IPV4, not_ipv4, "neither IPv4 nor ARP, nor IPv6 to a port with an IPv6 address")     \
	X(OTHER_MAC, other_mac, "unicast to a MAC that is not the port's")                         \
	X(BAD_IP_HEADER, bad_ip_header, "outer IPv4 version, length or checksum wrong")            \
	X(FRAGMENT, fragment, "outer IPv4 fragment")                                               \
	X(NOT_LOCAL, not_local, "outer destination is not one of the node's addresses")            \
	X(NOT_UDP, not_udp, "to a node address, neither UDP nor ICMP echo")                        \
	X(NO_ENDPOINT, no_endpoint, "no endpoint reserved on that UDP port")                       \
	X(ARP_IGNORED, arp_ignored, "ARP neither for us nor a reply we asked for")                 \
	X(ICMP_IGNORED, icmp_ignored, "ICMP to the node other than echo request")                  \
	/* code option (generic) */                                                                \
	X(MALFORMED, malformed, "inner header makes no sense")                                     \
	X(BAD_HDR_LEN, bad_hdr_len, "inner header length field wrong")                             \
	X(BAD_CHECKSUM, bad_checksum, "inner header checksum wrong (or an echo request's)")        \
	X(TTL_EXPIRED, ttl_expired, "TTL or hop limit would reach zero")                           \
	X(OPTIONS, options, "header options: slow path work")                                      \
	X(UNSUPPORTED, unsupported, "valid, but not handled by the fast path")                     \
	/* lookup and output (framework) */                                                        \
	X(MISS, miss, "no filter matched")                                                         \
	X(BAD_RESULT, bad_result, "filter names an endpoint or queue the slice lacks")             \
	X(NO_NEIGHBOR, no_neighbor, "next hop MAC not (yet) resolved")                             \
	X(QUEUE_FULL, queue_full, "queue over its threshold")                                      \
	X(RING_FULL, ring_full, "ring between lcores full")                                        \
	X(TX_FULL, tx_full, "a reply or ARP request found its port's hold full")                   \
	/* the slow-path channel (framework): an exception that did not reach the slow path */     \
	X(NO_SLOW_PATH, no_slow_path, "no slow path connected to the slice's channel")             \
	X(SLOW_PATH_FULL, slow_path_full, "the slow path does not read: its channel is full")      \
	/* substrate again */                                                                      \
	X(INBOUND_RATE, inbound_rate, "beyond its endpoint's inbound bandwidth")                   \
	X(HOST_FULL, host_full, "for the host, whose interface did not take it (queue full)")      \
	/* host slices (framework) */                                                              \
	X(NETNS_FULL, netns_full, "its namespace's interface did not take it (queue full)")        \
	X(NETNS_GONE, netns_gone, "its namespace's interface is gone (namespace deleted)")         \
	X(NAT_FULL, nat_full, "a new outgoing flow, every number of its NAT range in use")         \
	X(NAT_MISS, nat_miss, "to its NAT range, but no flow of that remote holds the number")     \
	X(BAD_SOURCE, bad_source, "sent from an address that is not one of the node's")            \
	/* the node's own IPv6 (framework) */                                                      \
	X(ND_IGNORED, nd_ignored, "neighbor discovery neither for us nor an answer we asked for")  \
	X(RA_IGNORED, ra_ignored, "a router advertisement: the node's routes are its config's")    \
	X(NO_PORT_IPV6, no_port_ipv6, "an IPv6 next hop, its endpoint's port without an IPv6 address") \
	X(IPV6_EXT, ipv6_ext, "IPv6 with an extension header, which the node does not take")

#define SP_REASON_ID(id, name, what) SP_REASON_##id,
enum sp_reason { SP_REASONS(SP_REASON_ID) SP_REASON_MAX };
#undef SP_REASON_ID

/* The stable name of a reason ("ttl_expired"), or "unknown". */
static inline const char *
sp_reason_name(unsigned int r)
{
#define SP_REASON_NAME(id, name, what) #name,
	static const char *const names[SP_REASON_MAX] = {SP_REASONS(SP_REASON_NAME)};
#undef SP_REASON_NAME

	return r < SP_REASON_MAX ? names[r] : "unknown";
}

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_REASON_H */
