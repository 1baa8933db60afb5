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

enum sp_reason {
	SP_REASON_NONE = 0,
	/* substrate (framework) */
	SP_REASON_TRUNCATED,     /* frame shorter than its headers say */
	SP_REASON_NOT_IPV4,      /* neither IPv4 nor ARP */
	SP_REASON_OTHER_MAC,     /* unicast to a MAC that is not the port's */
	SP_REASON_BAD_IP_HEADER, /* outer IPv4 version, length or checksum wrong */
	SP_REASON_FRAGMENT,      /* outer IPv4 fragment */
	SP_REASON_NOT_LOCAL,     /* outer destination is not one of the node's addresses */
	SP_REASON_NOT_UDP,       /* to a node address, neither UDP nor ICMP echo */
	SP_REASON_NO_ENDPOINT,   /* no endpoint reserved on that UDP port */
	SP_REASON_ARP_IGNORED,   /* ARP neither for us nor a reply we asked for */
	SP_REASON_ICMP_IGNORED,  /* ICMP to the node other than echo request */
	/* code option (generic) */
	SP_REASON_MALFORMED,     /* inner header makes no sense */
	SP_REASON_BAD_HDR_LEN,   /* inner header length field wrong */
	SP_REASON_BAD_CHECKSUM,  /* inner header checksum wrong (or an echo request's) */
	SP_REASON_TTL_EXPIRED,   /* TTL or hop limit would reach zero */
	SP_REASON_OPTIONS,       /* header options: slow path work */
	SP_REASON_UNSUPPORTED,   /* valid, but not handled by the fast path */
	/* lookup and output (framework) */
	SP_REASON_MISS,          /* no filter matched */
	SP_REASON_BAD_RESULT,    /* filter names an endpoint or queue the slice lacks */
	SP_REASON_NO_NEIGHBOR,   /* next hop MAC not (yet) resolved */
	SP_REASON_QUEUE_FULL,    /* queue over its threshold */
	SP_REASON_RING_FULL,     /* ring between lcores full */
	SP_REASON_TX_FULL,       /* a reply or ARP request found its port's hold full */
	/* the slow-path channel (framework): an exception that did not reach the slow path */
	SP_REASON_NO_SLOW_PATH,  /* no slow path connected to the slice's channel */
	SP_REASON_SLOW_PATH_FULL, /* the slow path does not read: its channel is full */
	/* substrate again (numbers only ever grow: slow paths see them) */
	SP_REASON_INBOUND_RATE,  /* beyond its endpoint's inbound bandwidth */
	SP_REASON_HOST_FULL,     /* for the host, whose interface did not take it (queue full) */
	/* host slices (framework) */
	SP_REASON_NETNS_FULL,    /* its namespace's interface did not take it (queue full) */
	SP_REASON_NETNS_GONE,    /* its namespace's interface is gone (namespace deleted) */
	SP_REASON_NAT_FULL,      /* a new outgoing flow, every number of its NAT range in use */
	SP_REASON_NAT_MISS,      /* to its NAT range, but no flow of that remote holds the number */
	SP_REASON_BAD_SOURCE,    /* sent from an address that is not one of the node's */
	SP_REASON_MAX
};

/* The stable name of a reason ("ttl_expired"), or "unknown". */
static inline const char *
sp_reason_name(unsigned int r)
{
	static const char *const names[SP_REASON_MAX] = {
		[SP_REASON_NONE] = "none",
		[SP_REASON_TRUNCATED] = "truncated",
		[SP_REASON_NOT_IPV4] = "not_ipv4",
		[SP_REASON_OTHER_MAC] = "other_mac",
		[SP_REASON_BAD_IP_HEADER] = "bad_ip_header",
		[SP_REASON_FRAGMENT] = "fragment",
		[SP_REASON_NOT_LOCAL] = "not_local",
		[SP_REASON_NOT_UDP] = "not_udp",
		[SP_REASON_NO_ENDPOINT] = "no_endpoint",
		[SP_REASON_ARP_IGNORED] = "arp_ignored",
		[SP_REASON_ICMP_IGNORED] = "icmp_ignored",
		[SP_REASON_MALFORMED] = "malformed",
		[SP_REASON_BAD_HDR_LEN] = "bad_hdr_len",
		[SP_REASON_BAD_CHECKSUM] = "bad_checksum",
		[SP_REASON_TTL_EXPIRED] = "ttl_expired",
		[SP_REASON_OPTIONS] = "options",
		[SP_REASON_UNSUPPORTED] = "unsupported",
		[SP_REASON_MISS] = "miss",
		[SP_REASON_BAD_RESULT] = "bad_result",
		[SP_REASON_NO_NEIGHBOR] = "no_neighbor",
		[SP_REASON_QUEUE_FULL] = "queue_full",
		[SP_REASON_RING_FULL] = "ring_full",
		[SP_REASON_TX_FULL] = "tx_full",
		[SP_REASON_NO_SLOW_PATH] = "no_slow_path",
		[SP_REASON_SLOW_PATH_FULL] = "slow_path_full",
		[SP_REASON_INBOUND_RATE] = "inbound_rate",
		[SP_REASON_HOST_FULL] = "host_full",
		[SP_REASON_NETNS_FULL] = "netns_full",
		[SP_REASON_NETNS_GONE] = "netns_gone",
		[SP_REASON_NAT_FULL] = "nat_full",
		[SP_REASON_NAT_MISS] = "nat_miss",
		[SP_REASON_BAD_SOURCE] = "bad_source",
	};

	return r < SP_REASON_MAX && names[r] != 0 ? names[r] : "unknown";
}

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_REASON_H */
