/* SPDX-License-Identifier: BSD-3-Clause */
#include "sp_test_node.h"

#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_ip.h>
#include <rte_malloc.h>

#include <slicepath/ipv4.h>

#include "mgmt/rpc.h"
#include "sp_test.h"
#include "sp_test_frame.h"
#include "stats/stats.h"

#define LINK_BPS 10000000000ull
#define RING_SIZE 1024

static const uint32_t port_ip[2] = {RTE_IPV4(10, 0, 0, 1), RTE_IPV4(10, 1, 0, 1)};

static struct rte_ring *
ring(const char *what, unsigned int n)
{
	char name[RTE_RING_NAMESIZE];
	struct rte_ring *r;

	snprintf(name, sizeof(name), "test_%s%u", what, n);
	r = rte_ring_create(name, RING_SIZE, SOCKET_ID_ANY, RING_F_SC_DEQ);
	SP_TEST_CHECK(r != NULL, "cannot create ring %s", name);
	return r;
}

/* NPE node->nb_npes, its tables named after name, schedulers at bps on both ports. */
static void
make_npe(struct sp_node *node, const char *name, uint64_t bps)
{
	struct sp_lookup_params lp = {.name = name, .capacity = SP_TEST_FILTERS,
				      .max_slices = SP_MAX_SLICES, .socket = SOCKET_ID_ANY};
	struct sp_qm_params qp = {.name = name, .nb_ports = 2, .max_queues = SP_TEST_QUEUES,
				  .max_owners = SP_MAX_SLICES, .socket = SOCKET_ID_ANY};
	struct sp_npe *npe = &node->npes[node->nb_npes];

	npe->id = node->nb_npes++;
	npe->lookup = sp_lookup_create(&lp);
	npe->qm = sp_qm_create(&qp);
	SP_TEST_CHECK(npe->lookup != NULL && npe->qm != NULL, "no tables for NPE %u", npe->id);
	npe->filter_capacity = SP_TEST_FILTERS;
	npe->queue_capacity = SP_TEST_QUEUES;
	for (uint16_t p = 0; p < 2; p++)
		SP_TEST_CHECK(sp_qm_port_config(npe->qm, p, bps, 24) == 0, "port %u", p);
}

static void
make_tables(struct sp_node *node, unsigned int n)
{
	char name[32];
	const struct rte_ether_addr nh_mac = SP_TEST_NH_MAC;

	snprintf(name, sizeof(name), "test_node%u", n);
	node->decap = sp_decap_create(name, SP_MAX_ENDPOINTS, SOCKET_ID_ANY);
	node->neigh = sp_neigh_create(name, 64, SOCKET_ID_ANY);
	SP_TEST_CHECK(node->decap != NULL && node->neigh != NULL, "no tables");
	make_npe(node, name, LINK_BPS);
	for (uint16_t p = 0; p < 2; p++)
		SP_TEST_CHECK(sp_decap_set_port(node->decap, p, node->ports[p].ip_be,
						&node->ports[p].mac) == 0, "port %u", p);
	SP_TEST_CHECK(sp_neigh_set(node->neigh, 1, rte_cpu_to_be_32(SP_TEST_NH_IP), &nh_mac,
				   SP_NEIGH_STATIC) == 0, "next hop");
	snprintf(name, sizeof(name), "test_resolve%u", n);
	node->resolve_ring = sp_neigh_want_ring(name, RING_SIZE, SOCKET_ID_ANY, RING_F_SC_DEQ);
	SP_TEST_CHECK(node->resolve_ring != NULL, "cannot create ring %s", name);
	node->exc_ring = ring("exc", n);
	node->learn_ring = ring("learn", n);
	node->ctrl_tx_ring = ring("ctrl_tx", n);
}

static void
make_slice(struct sp_node *node)
{
	struct sp_slice_spec spec = {.id = SP_TEST_SLICE, .name = "alpha", .codeopt = "ipv4",
				     .npe = 0, .mem_bytes = 256, .filter_quota = SP_TEST_QUOTA,
				     .queue_quota = 8, .buffer_quota = 1000,
				     .owner = SP_OWNER_NONE};
	char err[512];
	struct sp_slice *s;
	uint16_t ep = SP_ENDPOINT_ANY;

	SP_TEST_CHECK(sp_node_slice_add(node, &spec, &s, err, sizeof(err)) == 0, "slice: %s", err);
	for (uint16_t p = 0; p < 2; p++, ep = SP_ENDPOINT_ANY) {
		const struct sp_endpoint_req req = {.port = p, .udp_port = 5001,
						    .bandwidth_bps = 100000000, .inbound_bps = 0};

		SP_TEST_CHECK(sp_node_endpoint_add(node, s, &req, &ep, err, sizeof(err)) == 0,
			      "endpoint: %s", err);
	}
	SP_TEST_CHECK(sp_node_queue_bind(node, s, 0, 1, 1000000, 65536, 1024, err,
					 sizeof(err)) == 0, "queue: %s", err);
}

void
sp_test_node_create(struct sp_node *node)
{
	static bool stats;
	static unsigned int made;

	sp_test_eal_init();
	if (!stats)
		SP_TEST_CHECK(sp_stats_init() == 0, "no counters");
	stats = true;
	memset(node, 0, sizeof(*node));
	node->pool = sp_test_eal_init();
	node->nb_ports = 2;
	for (uint16_t p = 0; p < 2; p++) {
		snprintf(node->ports[p].name, sizeof(node->ports[p].name), "p%u", p);
		node->ports[p].ip_be = rte_cpu_to_be_32(port_ip[p]);
		node->ports[p].mac = (struct rte_ether_addr){{0x02, 0, 0, 0, 0, (uint8_t)(0x10 + p)}};
		node->ports[p].rate_bps = LINK_BPS;
		node->ports[p].overhead = 24;
	}
	make_tables(node, made++);
	sp_node_fastpath_init(node);
	make_slice(node);
}

void
sp_test_node_add_npe(struct sp_node *node)
{
	static unsigned int made;
	char name[32];

	SP_TEST_CHECK(node->nb_npes == 1, "the node has %u NPEs already", node->nb_npes);
	for (uint16_t p = 0; p < 2; p++)
		SP_TEST_CHECK(sp_qm_port_config(node->npes[0].qm, p, SP_TEST_NPE_BPS, 24) == 0,
			      "port %u", p);
	snprintf(name, sizeof(name), "test_npe1_%u", made++);
	make_npe(node, name, SP_TEST_NPE_BPS);
}

int
sp_test_node_setup(void **state)
{
	static struct sp_node node;

	sp_test_node_create(&node);
	*state = &node;
	return 0;
}

int
sp_test_node_teardown(void **state)
{
	sp_test_node_free(*state);
	return 0;
}

struct rte_mbuf *
sp_test_node_frame(const struct sp_node *node, uint32_t inner_dst, uint8_t ttl, uint8_t tag)
{
	const struct rte_ether_addr peer_mac = {{0x02, 0xaa, 0, 0, 0, 0x02}};
	const struct sp_test_ip outer = {.src = RTE_IPV4(10, 0, 0, 2),
					 .dst = rte_be_to_cpu_32(node->ports[0].ip_be),
					 .proto = IPPROTO_UDP, .ttl = 64};
	const struct sp_test_ip inner = {.src = RTE_IPV4(192, 0, 2, 1), .dst = inner_dst,
					 .proto = IPPROTO_UDP, .ttl = ttl};
	uint8_t f[SP_TEST_FRAME_LEN];
	size_t n = sp_test_eth(f, &node->ports[0].mac, &peer_mac, RTE_ETHER_TYPE_IPV4);

	n += sp_test_ipv4(f + n, &outer, 8 + 28 + 16);
	n += sp_test_udp(f + n, 7000, 5001, 28 + 16);
	n += sp_test_ipv4(f + n, &inner, 8 + 16);
	n += sp_test_udp(f + n, 1000, 2000, 16);
	memset(f + n, tag, 16);
	return sp_test_pkt(f, sizeof(f), 0);
}

int
sp_test_node_route(struct sp_node *node, uint16_t npe, uint32_t pos, uint32_t dst_net,
		   uint32_t nh_ip, uint16_t nh_port)
{
	struct sp_filter f = {.result = {.endpoint = 1, .queue = 0,
					 .nh_ip = rte_cpu_to_be_32(nh_ip),
					 .nh_port = rte_cpu_to_be_16(nh_port)}};
	const uint32_t net = rte_cpu_to_be_32(dst_net), mask = RTE_BE32(0xffff0000);

	memcpy(&f.key.b[SP_IPV4_KEY_DST], &net, 4);
	memcpy(&f.mask.b[SP_IPV4_KEY_DST], &mask, 4);
	return sp_lookup_write(node->npes[npe].lookup, SP_TEST_SLICE, pos, &f);
}

void
sp_test_node_free(struct sp_node *node)
{
	char err[512];

	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		if (node->slices[i] != NULL)
			sp_node_slice_del(node, node->slices[i], err, sizeof(err));
	for (uint16_t n = 0; n < node->nb_npes; n++) {
		sp_lookup_free(node->npes[n].lookup);
		sp_qm_free(node->npes[n].qm);
	}
	rte_ring_free(node->resolve_ring);
	rte_ring_free(node->exc_ring);
	rte_ring_free(node->learn_ring);
	rte_ring_free(node->ctrl_tx_ring);
	sp_decap_free(node->decap);
	sp_neigh_free(node->neigh);
	memset(node, 0, sizeof(*node));
}

char *
sp_test_rpc_handle(struct sp_node *node, const char *line, size_t len)
{
	struct sp_rpc_pending pending = {0};
	char *answer = sp_rpc_handle(node, line, len, &pending);

	if (pending.table == NULL)
		return answer;
	pending.answer = answer;
	while (!sp_rpc_pending_ready(&pending, &answer))
		usleep(100);
	return answer;
}
