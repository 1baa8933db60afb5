/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: probing the devices named in the config (PCI address or vdev
 * devargs), configuring an rx queue for each LC lcore (RSS spreading the
 * flows where the device has it) and a tx queue for each forwarding lcore
 * (one, the LC lcore's, where the device has fewer and there is one LC
 * lcore), and the packet buffer pool whose private area holds struct
 * sp_meta.
 */
#ifndef SP_PORT_H
#define SP_PORT_H

#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mempool.h>

#include "../common/limits.h"

/* Packet buffers with room for struct sp_meta in each mbuf's private area; at the
 * default headroom a frame starts on a cache line. */
struct rte_mempool *sp_pktmbuf_pool_create(const char *name, uint32_t n, int socket);

struct sp_port {
	char name[SP_NAME_LEN];
	uint16_t port_id; /* DPDK ethdev port id */
	uint32_t ip_be;
	bool has_ip6;    /* the node's own IPv6 address on the port, ip6 */
	uint8_t ip6[16];
	struct rte_ether_addr mac;
	uint64_t rate_bps;
	uint16_t overhead; /* bytes a frame adds on the wire beyond its data */
	uint16_t rx_desc, tx_desc;
	/*
	 * 1: the LC lcore transmits everything on queue 0, the other lcores'
	 * NPEs handing it their frames through rings; else one queue a
	 * forwarding lcore (the node's lcores[] index), each its NPEs' own.
	 */
	uint16_t nb_txq;
	uint16_t nb_rxq; /* one an LC lcore */
	bool rss;        /* the device spreads flows over the rx queues (else its own way) */
	bool has_host;   /* a host path: the host's interface is DPDK port host_pid */
	/* The device checks the outer IPv4 checksum of what it receives (decap reads
	 * its verdict in the mbuf's flags), writes that of what encap sends. */
	bool rx_ip_cksum, tx_ip_cksum;
	uint16_t host_pid; /* a net_tap, a queue pair an LC lcore (LC k's: k) */
};

/* A port to open, as the node builder has it from the config (docs/config.md, "ports"). */
struct sp_port_conf {
	const char *name;   /* how the node names it (in messages too) */
	const char *device; /* PCI address or vdev devargs */
	uint32_t ip_be;
	const uint8_t *ip6; /* 16 bytes, or NULL: none */
	const uint8_t *mac; /* RTE_ETHER_ADDR_LEN bytes, or NULL: the device's own */
	uint64_t rate_bps;
	uint16_t overhead;  /* bytes a frame adds on the wire beyond its data */
	uint16_t rx_desc, tx_desc;
	uint16_t rx_queues; /* 0: one an LC lcore */
	const char *host;   /* the host path's interface, or "" (none) */
};

/*
 * Probe, configure and start the port described by conf, with nb_lc rx
 * queues and nb_lcores tx queues if the device has as many (else, with one
 * LC lcore, one tx queue). On error returns a negative errno and writes a
 * message naming the port and device and what to check into err.
 */
int sp_port_open(const struct sp_port_conf *conf, struct rte_mempool *pool, uint16_t nb_lcores,
		 uint16_t nb_lc, struct sp_port *out, char *err, size_t errlen);
void sp_port_close(struct sp_port *p);

/*
 * How frames reach the LC lcores, in words: "one queue" (one LC lcore),
 * "rss" (the device hashes flows over the queues), or "device" (each queue
 * filled as the device does: a pcap file, a memif or tap peer's queue).
 */
const char *sp_port_steering(const struct sp_port *p);

#endif
