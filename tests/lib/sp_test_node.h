/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An in-memory slicepathd node for tests: no ports to probe, no lcores.
 * The NPE loop, slice administration and the management API run on it as
 * they do in the daemon, called from the test's own thread.
 */
#ifndef SP_TEST_NODE_H
#define SP_TEST_NODE_H

#include "node/node.h"

/* The node's slice alpha (ipv4), as the config would make it, unmanaged. */
#define SP_TEST_SLICE 1
#define SP_TEST_QUOTA 64   /* alpha's filter positions */
#define SP_TEST_FILTERS 4096 /* the NPE's */
#define SP_TEST_QUEUES 64    /* the NPE's */
#define SP_TEST_NH_IP RTE_IPV4(10, 1, 0, 2)     /* p1's next hop, resolved (host order) */
#define SP_TEST_NH_MAC {{0x02, 0xbb, 0, 0, 0x01, 0x02}}

/*
 * EAL and the counters (once), then a node: one NPE (SP_TEST_FILTERS filter
 * positions, SP_TEST_QUEUES queues), ports p0 (10.0.0.1) and p1 (10.1.0.1)
 * on 10 Gb/s links with schedulers, the next hop SP_TEST_NH_IP resolved on
 * p1, and slice alpha (id SP_TEST_SLICE, ipv4): endpoints 0 on p0 and 1 on
 * p1 (UDP 5001, 100 Mb/s each), queue 0 bound on p1, SP_TEST_QUOTA filter
 * positions, 256 bytes of memory. The rings the management thread reads
 * are there too (exceptions, next hops to resolve). Aborts on failure.
 */
void sp_test_node_create(struct sp_node *node);
/*
 * A second NPE (id 1) as large as the first, with schedulers on p0 and p1:
 * each link's rate split between the two NPEs (SP_TEST_NPE_BPS each).
 */
#define SP_TEST_NPE_BPS 5000000000ull
void sp_test_node_add_npe(struct sp_node *node);
/*
 * A substrate frame from a peer (10.0.0.2:7000) to alpha's endpoint on p0
 * holding an inner UDP packet from 192.0.2.1:1000 to inner_dst:2000 with
 * that TTL and 16 bytes of payload, each byte tag: SP_TEST_FRAME_LEN bytes.
 */
#define SP_TEST_FRAME_LEN (RTE_ETHER_HDR_LEN + 2 * (20 + 8) + 16)
struct rte_mbuf *sp_test_node_frame(const struct sp_node *node, uint32_t inner_dst, uint8_t ttl,
				    uint8_t tag);
/*
 * Alpha's filter at pos in NPE npe's table: inner destination dst_net/16
 * (host order) to its endpoint on p1 (1), queue 0, next hop nh_ip:nh_port
 * (host order). 0, or sp_lookup_write()'s error.
 */
int sp_test_node_route(struct sp_node *node, uint16_t npe, uint32_t pos, uint32_t dst_net,
		       uint32_t nh_ip, uint16_t nh_port);
/* Free everything sp_test_node_create() made; node is zeroed. */
void sp_test_node_free(struct sp_node *node);

/*
 * A management request handled as slicepathd's socket does it, a pending
 * answer (a write waiting for its compile) waited for: the response line
 * (malloc'd) or NULL for a notification.
 */
char *sp_test_rpc_handle(struct sp_node *node, const char *line, size_t len);

/* cmocka set-up and tear-down: each test's *state is a fresh node. */
int sp_test_node_setup(void **state);
int sp_test_node_teardown(void **state);
/* A cmocka test run on a fresh node. */
#define SP_TEST_ON_NODE(t) cmocka_unit_test_setup_teardown(t, sp_test_node_setup, sp_test_node_teardown)

#endif
