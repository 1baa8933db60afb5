/* SPDX-License-Identifier: BSD-3-Clause */
#include "port.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <slicepath/codeopt.h>

#include "../common/log.h"

SP_LOG_TYPE("port")

/*
 * Each lcore's mbuf cache: the most DPDK allows (RTE_MEMPOOL_CACHE_MAX_SIZE).
 * With 256 the pipeline benchmark ran 5 to 6 % slower (docs/testing.md),
 * though perf saw no time in the pool's ring: likely a turn of the LC lcore,
 * a round of up to 256 frames besides those still in its tx buffers and
 * express frames, now and then took the cache past its flush threshold
 * (384), which empties it whole into the ring, and the refill brought back
 * mbufs from the ring's far end, long out of the CPU's caches and TLB.
 */
#define POOL_CACHE RTE_MEMPOOL_CACHE_MAX_SIZE

/*
 * The private area (struct sp_meta) rounded up to a cache line, not to the
 * 8 bytes DPDK asks for: the data buffer after it then starts on a line, and
 * so does every frame at the default headroom, as a NIC's DMA writes them
 * best. With sp_meta's 56 bytes a frame started 56 bytes into a line, and
 * net_pcap's copies from 100,000 stored frames stalled on their loads: 178
 * cycles a packet against l3fwd's 88, 90 with the line (docs/testing.md,
 * "Frames on cache lines").
 */
struct rte_mempool *
sp_pktmbuf_pool_create(const char *name, uint32_t n, int socket)
{
	uint16_t priv = RTE_ALIGN_CEIL(sizeof(struct sp_meta), RTE_CACHE_LINE_SIZE);

	return rte_pktmbuf_pool_create(name, n, RTE_MIN((uint32_t)POOL_CACHE, n / 4), priv,
				       RTE_MBUF_DEFAULT_BUF_SIZE, socket);
}

/* The ethdev name is the devargs up to the first comma ("net_pcap0",
 * "0000:3b:00.0"). */
static void
device_name(const char *devargs, char *name, size_t len)
{
	size_t n = strcspn(devargs, ",");

	snprintf(name, len, "%.*s", (int)RTE_MIN(n, len - 1), devargs);
}

/* A NIC allow-listed on the EAL command line is probed at EAL start; a vdev
 * (or a NIC not probed yet) is probed here. */
static int
find_or_probe(const char *devargs, uint16_t *port_id)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	int rc;

	device_name(devargs, name, sizeof(name));
	if (rte_eth_dev_get_port_by_name(name, port_id) == 0)
		return 0;
	rc = rte_dev_probe(devargs);
	if (rc < 0)
		return rc;
	return rte_eth_dev_get_port_by_name(name, port_id) == 0 ? 0 : -ENODEV;
}

/* The flows RSS spreads over the LC lcores' rx queues: the substrate's UDP. */
#define RSS_FLOWS (RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP)

/* A port's queues: rx, one an LC lcore; tx, one a forwarding lcore, or one. */
struct queues {
	uint16_t rx, tx;
	uint64_t rss_hf; /* 0: no RSS */
	uint64_t rx_offloads, tx_offloads;
};

/*
 * The queues for nb_lc LC lcores of nb_lcores, rx_queues rx queues (0: one
 * an LC lcore): 0, or -ENOTSUP with a reason. A tx queue each where the
 * device has as many; not on memif: its queues are rings shared with the
 * peer, which negotiates how many connect, and DPDK 22.11 sets up only
 * those (memif_connect()). Several LC lcores need both: each receives on
 * its own queues and answers ARP on its own tx queue.
 */
static int
plan_queues(uint16_t pid, uint16_t nb_lcores, uint16_t nb_lc, uint16_t rx_queues,
	    struct queues *q, const char **why)
{
	struct rte_eth_dev_info info;
	bool memif;

	*q = (struct queues){.rx = rx_queues != 0 ? rx_queues : nb_lc, .tx = 1};
	if (nb_lcores == 1 && q->rx == 1)
		return 0;
	if (rte_eth_dev_info_get(pid, &info) != 0) {
		*why = "the device tells nothing of its queues";
		return q->rx > 1 ? -ENOTSUP : 0;
	}
	memif = strcmp(info.driver_name, "net_memif") == 0;
	if (info.max_tx_queues >= nb_lcores && !memif)
		q->tx = nb_lcores;
	if (q->rx == 1)
		return 0;
	if (info.max_rx_queues < q->rx) {
		*why = "the device has fewer rx queues than the port needs (net_pcap: one a "
		       "rx_pcap=)";
		return -ENOTSUP;
	}
	q->rss_hf = RSS_FLOWS & info.flow_type_rss_offloads;
	if (nb_lc == 1)
		return 0; /* one LC lcore: it answers ARP on the one tx queue it owns */
	if (q->tx == 1) {
		*why = memif ? "net_memif's queues are the peer's to count"
			     : "the device has fewer tx queues than forwarding lcores";
		return -ENOTSUP;
	}
	return 0;
}

/*
 * The IPv4 header checksum offloads, where the device has them: checked on
 * rx (the verdict in each mbuf's flags), written on tx. Not fast mbuf free:
 * a port sends frames of several pools (the host path's, host slices').
 */
static void
plan_offloads(uint16_t pid, struct queues *q)
{
	struct rte_eth_dev_info info;

	if (rte_eth_dev_info_get(pid, &info) != 0)
		return;
	q->rx_offloads = info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	q->tx_offloads = info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
}

static int
configure(const struct sp_port_conf *conf, struct rte_mempool *pool, uint16_t pid,
	  const struct queues *q, const char **what)
{
	struct rte_eth_conf eth = {0};
	uint16_t rxd = conf->rx_desc, txd = conf->tx_desc;
	int socket = rte_eth_dev_socket_id(pid);
	int rc;

	eth.rxmode.offloads = q->rx_offloads;
	eth.txmode.offloads = q->tx_offloads;
	if (q->rss_hf != 0) {
		eth.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		eth.rx_adv_conf.rss_conf.rss_hf = q->rss_hf;
	}
	*what = "configure";
	rc = rte_eth_dev_configure(pid, q->rx, q->tx, &eth);
	if (rc < 0)
		return rc;
	*what = "adjust descriptor counts";
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &rxd, &txd);
	if (rc < 0)
		return rc;
	*what = "set up the rx queues";
	for (uint16_t r = 0; r < q->rx; r++) {
		rc = rte_eth_rx_queue_setup(pid, r, rxd, socket, NULL, pool);
		if (rc < 0)
			return rc;
	}
	*what = "set up the tx queues";
	for (uint16_t t = 0; t < q->tx; t++) {
		rc = rte_eth_tx_queue_setup(pid, t, txd, socket, NULL);
		if (rc < 0)
			return rc;
	}
	if (conf->mac != NULL) {
		struct rte_ether_addr mac;

		memcpy(mac.addr_bytes, conf->mac, RTE_ETHER_ADDR_LEN);
		/* vdevs such as net_null cannot change their MAC; the node
		 * uses the configured one in every frame it writes anyway. */
		rc = rte_eth_dev_default_mac_addr_set(pid, &mac);
		if (rc < 0 && rc != -ENOTSUP)
			SP_LOG(WARNING, "%s: cannot set MAC on the device (%s); using it in frames "
			       "only", conf->name, rte_strerror(-rc));
	}
	/* Frames to other MACs are counted as other_mac drops in decap. */
	rte_eth_promiscuous_enable(pid);
	*what = "start";
	return rte_eth_dev_start(pid);
}

/* Why rte_dev_probe() failed, in words: its -EFAULT means that no bus took the name. */
static const char *
probe_error(int rc)
{
	if (rc == -EFAULT)
		return "no DPDK driver knows that name (a virtual device is a driver's name and a "
		       "number, such as net_pcap0; a NIC a PCI address, such as 0000:3b:00.0)";
	return rte_strerror(-rc);
}

/*
 * The host path's interface: a net_tap named conf->host with the port's
 * MAC (what the host sends leaves the port as it is), a queue pair for
 * each LC lcore (net_tap wants as many rx as tx queues). net_tap rather
 * than virtio_user: vhost-net is not in every kernel (docs/config.md).
 */
static int
open_host(const struct sp_port_conf *conf, struct rte_mempool *pool, uint16_t nb_lc,
	  struct sp_port *out, char *err, size_t errlen)
{
	char devargs[128], mac[RTE_ETHER_ADDR_FMT_SIZE];
	struct sp_port_conf host = *conf;
	struct queues q = {.rx = nb_lc, .tx = nb_lc};
	const char *what = "probe";
	uint16_t pid;
	int rc;

	rte_ether_format_addr(mac, sizeof(mac), &out->mac);
	snprintf(devargs, sizeof(devargs), "net_tap_host_%s,iface=%s,mac=%s", conf->name,
		 conf->host, mac);
	host.mac = NULL; /* the tap has it from its devargs */
	rc = find_or_probe(devargs, &pid);
	if (rc == 0)
		rc = configure(&host, pool, pid, &q, &what);
	if (rc < 0) {
		snprintf(err, errlen, "port %s: cannot %s the host's interface \"%s\" (%s): %s; "
			 "check that no interface has that name and that /dev/net/tun exists",
			 conf->name, what, conf->host, devargs, rte_strerror(-rc));
		return rc;
	}
	out->has_host = true;
	out->host_pid = pid;
	SP_LOG(INFO, "%s: host path on interface %s (DPDK port %u)", conf->name, conf->host, pid);
	return 0;
}

int
sp_port_open(const struct sp_port_conf *conf, struct rte_mempool *pool, uint16_t nb_lcores,
	     uint16_t nb_lc, struct sp_port *out, char *err, size_t errlen)
{
	const char *what = "probe", *why = "";
	struct queues q;
	uint16_t pid;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = find_or_probe(conf->device, &pid);
	if (rc < 0) {
		snprintf(err, errlen,
			 "port %s: cannot open device \"%s\": %s; check the device name and its "
			 "arguments (docs/config.md), that any file it reads exists, and for a NIC "
			 "that it is bound to vfio-pci (dpdk-devbind.py --status)",
			 conf->name, conf->device, probe_error(rc));
		return -ENODEV;
	}
	rc = plan_queues(pid, nb_lcores, nb_lc, conf->rx_queues, &q, &why);
	if (rc < 0) {
		snprintf(err, errlen, "port %s: device \"%s\" cannot serve %u LC lcores of %u "
			 "forwarding lcores with %u rx queues (an LC lcore needs one at least and "
			 "a tx queue of its own): %s; give the port's device more queues, it fewer "
			 "\"rx_queues\" or the node fewer LC lcores (docs/config.md)", conf->name,
			 conf->device, nb_lc, nb_lcores, q.rx, why);
		rte_eth_dev_close(pid);
		return -ENODEV;
	}
	plan_offloads(pid, &q);
	rc = configure(conf, pool, pid, &q, &what);
	if (rc < 0 && q.tx > 1 && nb_lc == 1) {
		/* net_tap, for one, wants as many rx queues as tx: its kernel side would
		 * spread frames over rx queues no lcore polls. */
		SP_LOG(INFO, "%s: device %s failed to %s with %u tx queues beside one rx queue "
		       "(the driver says why above); it gets one, the LC lcore's", conf->name,
		       conf->device, what, q.tx);
		rte_eth_dev_stop(pid);
		q.tx = 1;
		rc = configure(conf, pool, pid, &q, &what);
	}
	if (rc < 0) {
		snprintf(err, errlen, "port %s: device \"%s\" failed to %s: %s", conf->name,
			 conf->device, what, rte_strerror(-rc));
		rte_eth_dev_close(pid);
		return -ENODEV;
	}
	snprintf(out->name, sizeof(out->name), "%s", conf->name);
	out->port_id = pid;
	out->ip_be = conf->ip_be;
	out->has_ip6 = conf->ip6 != NULL;
	if (out->has_ip6)
		memcpy(out->ip6, conf->ip6, sizeof(out->ip6));
	out->rate_bps = conf->rate_bps;
	out->overhead = conf->overhead;
	out->rx_desc = conf->rx_desc;
	out->tx_desc = conf->tx_desc;
	out->nb_txq = q.tx;
	out->nb_rxq = q.rx;
	out->rss = q.rss_hf != 0;
	out->rx_ip_cksum = q.rx_offloads != 0;
	out->tx_ip_cksum = q.tx_offloads != 0;
	if (conf->mac != NULL)
		memcpy(out->mac.addr_bytes, conf->mac, RTE_ETHER_ADDR_LEN);
	else
		rte_eth_macaddr_get(pid, &out->mac);
	SP_LOG(INFO, "%s: device %s is DPDK port %u, %u rx queue(s), steering: %s; %s; IPv4 "
	       "checksums %s on rx, %s on tx", conf->name, conf->device, pid, q.rx,
	       sp_port_steering(out),
	       q.tx > 1 ? "a tx queue for each forwarding lcore" : "one tx queue, the LC lcore's",
	       out->rx_ip_cksum ? "by the device" : "in software",
	       out->tx_ip_cksum ? "by the device" : "in software");
	if (conf->host[0] != '\0' && open_host(conf, pool, nb_lc, out, err, errlen) < 0) {
		sp_port_close(out);
		return -ENODEV;
	}
	return 0;
}

const char *
sp_port_steering(const struct sp_port *p)
{
	return p->nb_rxq == 1 ? "one queue" : p->rss ? "rss" : "device";
}

void
sp_port_close(struct sp_port *p)
{
	/* Stopping flushes what a pcap port has written. */
	rte_eth_dev_stop(p->port_id);
	rte_eth_dev_close(p->port_id);
	if (p->has_host) {
		rte_eth_dev_stop(p->host_pid);
		rte_eth_dev_close(p->host_pid);
	}
}
