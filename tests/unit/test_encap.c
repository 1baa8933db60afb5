/* SPDX-License-Identifier: BSD-3-Clause */
/* The framework's half of header format: mapping a filter's result to the
 * slice's endpoint and queue, and the outer Ethernet/IPv4/UDP header, or
 * Ethernet/IPv6/UDP for an IPv6 next hop. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ip.h>

#include <slicepath/cksum.h>

#include "sp_test.h"
#include "encap/encap.h"
#include "node/node.h"

static struct sp_node node;
static struct sp_neigh_cache neigh_cache;
static struct sp_slice slice;

static const uint8_t inner[] = {0x45, 0, 0, 20, 0, 0, 0, 0, 63, 17, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
static const uint8_t port1_mac[6] = {0x02, 0, 0, 0, 1, 1};
static const uint8_t nh_mac[6] = {0x02, 0, 0, 0, 1, 2};
static const uint8_t nh6_mac[6] = {0x02, 0, 0, 0, 1, 6};
static const uint8_t port1_ip6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1};
static const uint8_t nh6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2};

static uint32_t
ip(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return rte_cpu_to_be_32((uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d);
}

static int
setup(void **state __rte_unused)
{
	struct rte_ether_addr mac;

	sp_test_eal_init();
	memset(&node, 0, sizeof(node));
	node.nb_ports = 2;
	node.ports[0].ip_be = ip(10, 0, 0, 1);
	node.ports[1].ip_be = ip(10, 0, 1, 1);
	memcpy(node.ports[1].mac.addr_bytes, port1_mac, 6);
	node.ports[1].has_ip6 = true; /* port 0 has none */
	memcpy(node.ports[1].ip6, port1_ip6, 16);
	node.neigh = sp_neigh_create("encap_neigh", 64, 0);
	node.resolve_ring = sp_neigh_want_ring("encap_resolve", 64, 0, RING_F_SC_DEQ);
	assert_non_null(node.neigh);
	assert_non_null(node.resolve_ring);
	memcpy(mac.addr_bytes, nh_mac, 6);
	assert_int_equal(sp_neigh_set(node.neigh, 1, ip(10, 0, 1, 2), &mac, SP_NEIGH_LEARNED), 0);
	memcpy(mac.addr_bytes, nh6_mac, 6);
	{
		const struct sp_ip a = sp_ip_v6(nh6);

		assert_int_equal(sp_neigh_set_ip(node.neigh, 1, &a, &mac, SP_NEIGH_STATIC), 0);
	}
	/* Endpoint 0 on port 0 (UDP 5001), endpoint 1 on port 1 (UDP 5001). */
	node.endpoints[0] = (struct sp_endpoint){.port = 0, .l4_port_be = rte_cpu_to_be_16(5001),
						 .ip_be = ip(10, 0, 0, 1), .slice = 1};
	node.endpoints[1] = (struct sp_endpoint){.port = 1, .l4_port_be = rte_cpu_to_be_16(5001),
						 .ip_be = ip(10, 0, 1, 1), .slice = 1};
	node.nb_endpoints = 2;
	sp_node_fastpath_init(&node);
	sp_encap_prepare(&node.fastpath, &node.endpoints[0]);
	sp_encap_prepare(&node.fastpath, &node.endpoints[1]);
	memset(&slice, 0, sizeof(slice));
	slice.id = 1;
	slice.nb_endpoints = 2;
	slice.endpoints[0] = 0;
	slice.endpoints[1] = 1;
	slice.queue_quota = 4;
	for (unsigned int q = 0; q < SP_MAX_SLICE_QUEUES; q++)
		slice.qmap[q] = SP_QUEUE_UNBOUND;
	slice.qmap[0] = 7; /* on port 1 */
	slice.qport[0] = 1;
	slice.qmap[1] = 8; /* on port 0 */
	slice.qport[1] = 0;
	node.slices[1] = &slice;
	return 0;
}

static int
teardown(void **state __rte_unused)
{
	sp_neigh_free(node.neigh);
	rte_ring_free(node.resolve_ring);
	return 0;
}

/* A packet as decap leaves it: inner header at the data offset, outer
 * headroom free, result as the lookup wrote it. */
static struct rte_mbuf *
forwarded(uint16_t endpoint, uint16_t queue, uint32_t nh_ip, uint16_t nh_port)
{
	struct rte_mbuf *m = sp_test_pkt(inner, sizeof(inner), 0);
	struct sp_meta *meta = sp_meta(m);

	meta->slice = 1;
	meta->result.endpoint = endpoint;
	meta->result.queue = queue;
	meta->result.nh_ip = nh_ip;
	meta->result.nh_port = rte_cpu_to_be_16(nh_port);
	return m;
}

static void
test_outer_header_bytes(void **state __rte_unused)
{
	struct rte_mbuf *m = forwarded(1, 0, ip(10, 0, 1, 2), 6001);
	const uint8_t *p;
	struct rte_ipv4_hdr iph;

	assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, &m, 1, NULL), 1);
	assert_int_equal(sp_meta(m)->verdict, SP_FORWARD);
	assert_int_equal(sp_meta(m)->out_port, 1);
	assert_int_equal(sp_meta(m)->queue, 7);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 42 + sizeof(inner));
	p = rte_pktmbuf_mtod(m, const uint8_t *);
	assert_memory_equal(p, nh_mac, 6);
	assert_memory_equal(p + 6, port1_mac, 6);
	assert_int_equal(p[12] << 8 | p[13], 0x0800);
	memcpy(&iph, p + 14, sizeof(iph));
	assert_int_equal(iph.version_ihl, 0x45);
	assert_int_equal(rte_be_to_cpu_16(iph.total_length), 20 + 8 + sizeof(inner));
	assert_int_equal(rte_be_to_cpu_16(iph.fragment_offset), 0x4000);
	assert_int_equal(iph.time_to_live, 64);
	assert_int_equal(iph.next_proto_id, 17);
	assert_int_equal(iph.src_addr, ip(10, 0, 1, 1));
	assert_int_equal(iph.dst_addr, ip(10, 0, 1, 2));
	assert_int_equal(rte_raw_cksum(p + 14, 20), 0xffff); /* header checksum valid */
	/* UDP: from the slice's endpoint on port 1 to the next hop, no checksum. */
	assert_int_equal(p[34] << 8 | p[35], 5001);
	assert_int_equal(p[36] << 8 | p[37], 6001);
	assert_int_equal(p[38] << 8 | p[39], 8 + sizeof(inner));
	assert_int_equal(p[40] << 8 | p[41], 0);
	assert_memory_equal(p + 42, inner, sizeof(inner));
	rte_pktmbuf_free(m);
}

/* The checksum, summed from the endpoint's template, is right whatever the next hop and length. */
static void
test_outer_checksum_any_hop_and_length(void **state __rte_unused)
{
	struct rte_ether_addr mac;

	memcpy(mac.addr_bytes, nh_mac, 6);
	srand(3);
	for (int i = 0; i < 50; i++) {
		uint32_t nh = (uint32_t)rand() ^ (uint32_t)rand() << 16;
		struct rte_mbuf *m = forwarded(1, 0, nh, (uint16_t)rand());
		uint16_t extra = (uint16_t)(rand() % 1400);
		struct rte_ipv4_hdr iph;

		assert_int_equal(sp_neigh_set(node.neigh, 1, nh, &mac, SP_NEIGH_LEARNED), 0);
		assert_non_null(rte_pktmbuf_append(m, extra));
		assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, &m, 1, NULL), 1);
		memcpy(&iph, rte_pktmbuf_mtod_offset(m, const uint8_t *, 14), sizeof(iph));
		assert_int_equal(rte_be_to_cpu_16(iph.total_length), 28 + sizeof(inner) + extra);
		assert_int_equal(iph.dst_addr, nh);
		assert_int_equal(rte_raw_cksum(&iph, sizeof(iph)), 0xffff);
		rte_pktmbuf_free(m);
	}
}

/*
 * In one burst, packets to a few next hops (MACs, addresses, UDP ports)
 * in runs and in turns, of any length: each header is its own packet's.
 */
static void
test_outer_header_per_packet_in_a_burst(void **state __rte_unused)
{
	enum { N = 12, HOPS = 3 };
	/* Runs of one hop and port; a hop's port changing; a port's hop changing. */
	static const unsigned int hop[N] = {0, 0, 0, 1, 1, 0, 2, 2, 2, 0, 0, 1};
	static const uint16_t nh_port[N] = {6000, 6000, 6001, 6001, 6000, 6000,
					    6000, 6001, 6001, 6001, 6001, 6001};
	struct rte_ether_addr mac[HOPS];
	uint32_t nh[HOPS];
	uint16_t extra[N];
	struct rte_mbuf *m[N];

	srand(5);
	for (unsigned int h = 0; h < HOPS; h++) {
		nh[h] = ip(10, 0, 1, (uint8_t)(20 + h));
		mac[h] = (struct rte_ether_addr){{0x02, 0, 0, 0, 2, (uint8_t)h}};
		assert_int_equal(sp_neigh_set(node.neigh, 1, nh[h], &mac[h], SP_NEIGH_LEARNED), 0);
	}
	/* The hops into the lcore's neighbor cache first: its answers, not the table's, are
	 * what runs share. */
	for (unsigned int h = 0; h < HOPS; h++) {
		m[h] = forwarded(1, 0, nh[h], 1);
		assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, &m[h], 1, NULL), 1);
		assert_non_null(sp_neigh_cache_find(&neigh_cache, 1, nh[h]));
	}
	rte_pktmbuf_free_bulk(m, HOPS);
	for (unsigned int i = 0; i < N; i++) {
		extra[i] = (uint16_t)(rand() % 1400);
		m[i] = forwarded(1, 0, nh[hop[i]], nh_port[i]);
		assert_non_null(rte_pktmbuf_append(m[i], extra[i]));
	}
	assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, m, N, NULL), N);
	for (unsigned int i = 0; i < N; i++) {
		const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);
		struct rte_ipv4_hdr iph;

		assert_memory_equal(p, mac[hop[i]].addr_bytes, 6);
		memcpy(&iph, p + 14, sizeof(iph));
		assert_int_equal(rte_be_to_cpu_16(iph.total_length), 28 + sizeof(inner) + extra[i]);
		assert_int_equal(iph.dst_addr, nh[hop[i]]);
		assert_int_equal(rte_raw_cksum(&iph, sizeof(iph)), 0xffff);
		assert_int_equal(p[36] << 8 | p[37], nh_port[i]);
		assert_int_equal(p[38] << 8 | p[39], 8 + sizeof(inner) + extra[i]);
	}
	rte_pktmbuf_free_bulk(m, N);
}

/*
 * A port whose device writes IPv4 checksums (its tx offload): the header
 * leaves with the checksum field zero and the mbuf asking the device for
 * it (IPv4 after 14 bytes, 20 long); summed as the device sums, the bytes
 * are those the software path writes.
 */
static void
test_outer_checksum_by_the_device(void **state __rte_unused)
{
	struct rte_mbuf *sw = forwarded(1, 0, ip(10, 0, 1, 2), 6001), *hw;
	struct rte_ipv4_hdr *iph;

	assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, &sw, 1, NULL), 1);
	assert_int_equal(sw->ol_flags & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM), 0);
	node.ports[1].tx_ip_cksum = true;
	sp_encap_prepare(&node.fastpath, &node.endpoints[1]);
	hw = forwarded(1, 0, ip(10, 0, 1, 2), 6001);
	hw->l4_len = 20; /* as an earlier user of the mbuf might have left it */
	assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, &hw, 1, NULL), 1);
	assert_int_equal(hw->ol_flags & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM),
			 RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM);
	assert_int_equal(hw->l2_len, 14);
	assert_int_equal(hw->l3_len, 20);
	assert_int_equal(hw->l4_len, 0);
	iph = rte_pktmbuf_mtod_offset(hw, struct rte_ipv4_hdr *, 14);
	assert_int_equal(iph->hdr_checksum, 0);
	iph->hdr_checksum = rte_ipv4_cksum(iph); /* what the device does */
	assert_int_equal(rte_pktmbuf_pkt_len(hw), rte_pktmbuf_pkt_len(sw));
	assert_memory_equal(rte_pktmbuf_mtod(hw, void *), rte_pktmbuf_mtod(sw, void *),
			    rte_pktmbuf_pkt_len(sw));
	node.ports[1].tx_ip_cksum = false;
	sp_encap_prepare(&node.fastpath, &node.endpoints[1]);
	rte_pktmbuf_free(sw);
	rte_pktmbuf_free(hw);
}

/* A next hop's new MAC is on the next packet, though the cache held the old one. */
static void
test_next_hop_mac_change(void **state __rte_unused)
{
	struct rte_ether_addr mac = {{0x02, 0, 0, 0, 9, 9}};
	uint32_t nh = ip(10, 0, 1, 3);
	struct rte_mbuf *m;

	assert_int_equal(sp_neigh_set(node.neigh, 1, nh, &mac, SP_NEIGH_LEARNED), 0);
	for (int i = 0; i < 3; i++) {
		if (i == 2) {
			mac.addr_bytes[5] = 0x0a;
			assert_int_equal(sp_neigh_set(node.neigh, 1, nh, &mac, SP_NEIGH_LEARNED), 0);
		}
		m = forwarded(1, 0, nh, 1);
		assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, &m, 1, NULL), 1);
		assert_memory_equal(rte_pktmbuf_mtod(m, const uint8_t *), mac.addr_bytes, 6);
		rte_pktmbuf_free(m);
	}
}

static void
expect_drop(struct rte_mbuf *m, enum sp_reason reason)
{
	assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, &m, 1, NULL), 0);
	assert_int_equal(sp_meta(m)->verdict, SP_DROP);
	assert_int_equal(sp_meta(m)->reason, reason);
	assert_int_equal(rte_pktmbuf_pkt_len(m), sizeof(inner)); /* untouched */
	rte_pktmbuf_free(m);
}

static void
test_result_the_slice_does_not_own(void **state __rte_unused)
{
	expect_drop(forwarded(2, 0, ip(10, 0, 1, 2), 1), SP_REASON_BAD_RESULT);  /* no endpoint 2 */
	expect_drop(forwarded(1, 4, ip(10, 0, 1, 2), 1), SP_REASON_BAD_RESULT);  /* over quota */
	expect_drop(forwarded(1, 2, ip(10, 0, 1, 2), 1), SP_REASON_BAD_RESULT);  /* unbound */
	expect_drop(forwarded(1, 1, ip(10, 0, 1, 2), 1), SP_REASON_BAD_RESULT);  /* other port */
}

static void
test_unresolved_next_hop_asks_management(void **state __rte_unused)
{
	const struct sp_ip want = sp_ip_v4(ip(10, 0, 1, 9));
	struct sp_neigh_want req;

	expect_drop(forwarded(1, 0, ip(10, 0, 1, 9), 1), SP_REASON_NO_NEIGHBOR);
	assert_int_equal(rte_ring_dequeue_elem(node.resolve_ring, &req, sizeof(req)), 0);
	assert_int_equal(req.port, 1);
	assert_memory_equal(&req.ip, &want, sizeof(want));
}

/* The misses, and only they, are told apart (the NPE holds them): not another reason's drop. */
static void
test_misses_are_told(void **state __rte_unused)
{
	struct rte_mbuf *m[3] = {forwarded(1, 0, ip(10, 0, 1, 2), 1),
				 forwarded(1, 0, ip(10, 0, 1, 9), 1),
				 forwarded(1, 0, ip(10, 0, 1, 9), 1)};
	uint64_t missed = 0;
	struct sp_neigh_want req;

	sp_meta_drop(m[2], SP_REASON_NO_NEIGHBOR); /* a code option's say, before encap */
	assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, m, 3, &missed), 1);
	assert_int_equal(missed, 1u << 1);
	while (rte_ring_dequeue_elem(node.resolve_ring, &req, sizeof(req)) == 0)
		;
	rte_pktmbuf_free_bulk(m, 3);
}

static void
test_skips_packets_already_out(void **state __rte_unused)
{
	struct rte_mbuf *m[2] = {forwarded(1, 0, ip(10, 0, 1, 2), 1),
				 forwarded(1, 0, ip(10, 0, 1, 2), 1)};

	sp_meta_exception(m[0], SP_REASON_TTL_EXPIRED);
	assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, m, 2, NULL), 1); /* the one still forwarded */
	assert_int_equal(sp_meta(m[0])->reason, SP_REASON_TTL_EXPIRED);
	assert_int_equal(rte_pktmbuf_pkt_len(m[0]), sizeof(inner));
	assert_int_equal(rte_pktmbuf_pkt_len(m[1]), 42 + sizeof(inner));
	rte_pktmbuf_free_bulk(m, 2);
}

/*
 * Each packet of a burst mapped by its own slice and result, whatever the
 * packets before it: encap maps a run of alike ones once.
 */
static void
test_burst_maps_each_packet_by_its_own_slice_and_result(void **state __rte_unused)
{
	struct sp_slice other = slice;
	struct rte_ether_addr mac;
	struct rte_mbuf *m[5] = {forwarded(1, 0, ip(10, 0, 1, 2), 1),
				 forwarded(2, 0, ip(10, 0, 1, 2), 1), /* no endpoint 2 */
				 forwarded(1, 0, ip(10, 0, 1, 2), 1),
				 forwarded(1, 0, ip(10, 0, 0, 2), 1), /* slice 2: its own mapping */
				 forwarded(1, 0, ip(10, 0, 1, 2), 1)};
	static const uint8_t want_port[5] = {1, 0, 1, 0, 1};
	static const uint32_t want_queue[5] = {7, 0, 7, 9, 7};

	/* Slice 2's endpoint 1 is node endpoint 0 (port 0), its queue 0 node queue 9 there. */
	other.id = 2;
	other.endpoints[1] = 0;
	other.qmap[0] = 9;
	other.qport[0] = 0;
	node.slices[2] = &other;
	sp_meta(m[3])->slice = 2;
	memcpy(mac.addr_bytes, nh_mac, 6);
	assert_int_equal(sp_neigh_set(node.neigh, 0, ip(10, 0, 0, 2), &mac, SP_NEIGH_LEARNED), 0);
	assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, m, 5, NULL), 4);
	for (unsigned int i = 0; i < 5; i++) {
		const struct sp_meta *meta = sp_meta(m[i]);

		if (i == 1) {
			assert_int_equal(meta->verdict, SP_DROP);
			assert_int_equal(meta->reason, SP_REASON_BAD_RESULT);
			assert_int_equal(rte_pktmbuf_pkt_len(m[i]), sizeof(inner));
			continue;
		}
		assert_int_equal(meta->verdict, SP_FORWARD);
		assert_int_equal(meta->out_port, want_port[i]);
		assert_int_equal(meta->out_ep, want_port[i]); /* node endpoint i is on port i */
		assert_int_equal(meta->queue, want_queue[i]);
		assert_memory_equal(rte_pktmbuf_mtod_offset(m[i], uint8_t *, 6),
				    node.ports[want_port[i]].mac.addr_bytes, 6);
	}
	node.slices[2] = NULL;
	rte_pktmbuf_free_bulk(m, 5);
}

/* A slice deleted between its code option and the outer header: its packets go, counted. */
/* The same result with an IPv6 next hop; inner bytes of len, chained at split (0: not). */
static struct rte_mbuf *
forwarded6(uint16_t endpoint, const uint8_t ip6[16], size_t len, size_t split)
{
	uint8_t bytes[1500];
	struct rte_mbuf *m;
	struct sp_meta *meta;

	for (size_t i = 0; i < len; i++)
		bytes[i] = (uint8_t)(i * 13 + 7);
	m = sp_test_mbuf(bytes, len, split, 0);
	assert_non_null(m);
	meta = sp_meta(m);
	meta->slice = 1;
	meta->verdict = SP_FORWARD;
	meta->result.endpoint = endpoint;
	meta->result.queue = endpoint == 1 ? 0 : 1;
	meta->result.nh_port = rte_cpu_to_be_16(6001);
	meta->result.nh_family = SP_NH_IPV6;
	memcpy(meta->result.nh_ip6, ip6, 16);
	return m;
}

/* Ethernet/IPv6/UDP from port 1's IPv6 address and the endpoint's UDP port, its checksum right. */
static void
test_outer6_header_bytes(void **state __rte_unused)
{
	static const size_t lens[][2] = {{20, 0}, {1, 0}, {333, 0}, {1001, 77}, {1400, 501}};

	for (size_t t = 0; t < RTE_DIM(lens); t++) {
		struct rte_mbuf *m = forwarded6(1, nh6, lens[t][0], lens[t][1]);
		uint8_t p[1600];
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(p + 14);
		size_t len = lens[t][0];

		assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, &m, 1, NULL), 1);
		assert_int_equal(sp_meta(m)->verdict, SP_FORWARD);
		assert_int_equal(sp_meta(m)->out_port, 1);
		assert_int_equal(sp_meta(m)->queue, 7);
		assert_int_equal(rte_pktmbuf_pkt_len(m), 62 + len);
		memcpy(p, rte_pktmbuf_read(m, 0, 62 + len, p), 62 + len);
		assert_memory_equal(p, nh6_mac, 6);
		assert_memory_equal(p + 6, port1_mac, 6);
		assert_int_equal(p[12] << 8 | p[13], 0x86dd);
		assert_int_equal(rte_be_to_cpu_32(ip->vtc_flow), 6u << 28);
		assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 8 + len);
		assert_int_equal(ip->proto, 17);
		assert_int_equal(ip->hop_limits, 64);
		assert_memory_equal(ip->src_addr, port1_ip6, 16);
		assert_memory_equal(ip->dst_addr, nh6, 16);
		assert_int_equal(p[54] << 8 | p[55], 5001);
		assert_int_equal(p[56] << 8 | p[57], 6001);
		assert_int_equal(p[58] << 8 | p[59], 8 + len);
		assert_int_not_equal(p[60] << 8 | p[61], 0); /* IPv6 has no "no checksum" */
		/* The checksum, summed independently: pseudo-header, header, packet. */
		assert_int_equal(sp_cksum_fold((uint64_t)rte_ipv6_phdr_cksum(ip, 0) +
					       rte_raw_cksum(p + 54, 8 + len)), 0xffff);
		for (size_t i = 0; i < len; i++)
			assert_int_equal(p[62 + i], (uint8_t)(i * 13 + 7));
		rte_pktmbuf_free(m);
	}
}

/* IPv6 next hops in a burst: runs of one hop and port, a hop's port changing, an unknown hop between. */
static void
test_outer6_per_packet_in_a_burst(void **state __rte_unused)
{
	enum { N = 10, HOPS = 3 };
	static const unsigned int hop[N] = {0, 0, 1, 1, 0, 3, 0, 2, 2, 0};
	static const uint16_t nh_port[N] = {6000, 6000, 6000, 6001, 6001, 6001, 6001, 6001, 7, 7};
	uint8_t hops[HOPS + 1][16]; /* the last unknown */
	struct rte_ether_addr mac[HOPS];
	struct rte_mbuf *m[N];

	for (unsigned int h = 0; h <= HOPS; h++) {
		memcpy(hops[h], nh6, 16);
		hops[h][14] = (uint8_t)(0x40 + h);
	}
	for (unsigned int h = 0; h < HOPS; h++) {
		const struct sp_ip a = sp_ip_v6(hops[h]);

		mac[h] = (struct rte_ether_addr){{0x02, 0, 0, 0, 6, (uint8_t)h}};
		assert_int_equal(sp_neigh_set_ip(node.neigh, 1, &a, &mac[h], SP_NEIGH_LEARNED), 0);
	}
	for (unsigned int i = 0; i < N; i++) {
		m[i] = forwarded6(1, hops[hop[i]], 20 + 7 * i, 0);
		sp_meta(m[i])->result.nh_port = rte_cpu_to_be_16(nh_port[i]);
	}
	assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, m, N, NULL), N - 1);
	for (unsigned int i = 0; i < N; i++) {
		const uint8_t *p = rte_pktmbuf_mtod(m[i], const uint8_t *);
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(p + 14);
		size_t len = 20 + 7 * i;

		if (hop[i] == HOPS) {
			assert_int_equal(sp_meta(m[i])->reason, SP_REASON_NO_NEIGHBOR);
			continue;
		}
		assert_int_equal(sp_meta(m[i])->verdict, SP_FORWARD);
		assert_int_equal(rte_pktmbuf_pkt_len(m[i]), 62 + len);
		assert_memory_equal(p, mac[hop[i]].addr_bytes, 6);
		assert_memory_equal(ip->dst_addr, hops[hop[i]], 16);
		assert_int_equal(p[56] << 8 | p[57], nh_port[i]);
		assert_int_equal(p[58] << 8 | p[59], 8 + len);
		assert_int_equal(sp_cksum_fold((uint64_t)rte_ipv6_phdr_cksum(ip, 0) +
					       rte_raw_cksum(p + 54, 8 + len)), 0xffff);
	}
	while (rte_ring_dequeue_elem(node.resolve_ring, &(struct sp_neigh_want){0},
				     sizeof(struct sp_neigh_want)) == 0)
		;
	rte_pktmbuf_free_bulk(m, N);
}

/* What an IPv6 next hop cannot go out by: counted, the unresolved one asked for. */
static void
test_outer6_refused(void **state __rte_unused)
{
	static const uint8_t unknown6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 9};
	const struct sp_ip want = sp_ip_v6(unknown6);
	struct rte_mbuf *m[3] = {forwarded6(0, nh6, 20, 0), forwarded6(1, unknown6, 20, 0),
				 forwarded6(1, nh6, 20, 0)};
	struct sp_neigh_want req;
	uint64_t missed = 0;

	sp_meta(m[2])->result.nh_family = 7; /* neither family */
	assert_int_equal(sp_encap_burst(&node.fastpath, &neigh_cache, m, 3, &missed), 0);
	/* Endpoint 0's port 0 has no IPv6 address to send from. */
	assert_int_equal(sp_meta(m[0])->reason, SP_REASON_NO_PORT_IPV6);
	assert_int_equal(sp_meta(m[1])->reason, SP_REASON_NO_NEIGHBOR);
	assert_int_equal(sp_meta(m[2])->reason, SP_REASON_BAD_RESULT);
	assert_int_equal(missed, 1u << 1);
	assert_int_equal(rte_ring_dequeue_elem(node.resolve_ring, &req, sizeof(req)), 0);
	assert_int_equal(req.port, 1);
	assert_memory_equal(&req.ip, &want, sizeof(want));
	assert_int_equal(rte_ring_dequeue_elem(node.resolve_ring, &req, sizeof(req)), -ENOENT);
	/* Untouched: the held one goes through encap again when its neighbor is known. */
	assert_int_equal(rte_pktmbuf_pkt_len(m[1]), 20);
	rte_pktmbuf_free_bulk(m, 3);
}

static void
test_slice_gone(void **state __rte_unused)
{
	node.slices[1] = NULL;
	expect_drop(forwarded(1, 0, ip(10, 0, 1, 2), 1), SP_REASON_NO_ENDPOINT);
	node.slices[1] = &slice;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outer_header_bytes),
		cmocka_unit_test(test_outer_checksum_any_hop_and_length),
		cmocka_unit_test(test_outer_header_per_packet_in_a_burst),
		cmocka_unit_test(test_outer_checksum_by_the_device),
		cmocka_unit_test(test_next_hop_mac_change),
		cmocka_unit_test(test_result_the_slice_does_not_own),
		cmocka_unit_test(test_unresolved_next_hop_asks_management),
		cmocka_unit_test(test_misses_are_told),
		cmocka_unit_test(test_skips_packets_already_out),
		cmocka_unit_test(test_burst_maps_each_packet_by_its_own_slice_and_result),
		cmocka_unit_test(test_slice_gone),
		cmocka_unit_test(test_outer6_header_bytes),
		cmocka_unit_test(test_outer6_per_packet_in_a_burst),
		cmocka_unit_test(test_outer6_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
