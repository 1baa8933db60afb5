/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rte_flow rules that steer endpoints to their NPE's queue (src/lc/steer.c):
 * what a NIC is asked to match and where it is asked to send. No NIC here
 * takes them (docs/testing.md); the integration tests check the fallback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <rte_byteorder.h>

#include "lc/steer.h"

#define IP(a, b, c, d) RTE_BE32((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))

static void
test_endpoint_rule(void **state)
{
	struct sp_steer_rule r;
	const struct rte_flow_item_ipv4 *ip, *ipm;
	const struct rte_flow_item_udp *udp, *udpm;
	const struct rte_flow_action_queue *q;

	(void)state;
	sp_steer_rule_endpoint(&r, SP_L4_UDP, IP(10, 0, 0, 1), RTE_BE16(5001), 3);
	assert_true(r.attr.ingress && !r.attr.egress && !r.attr.transfer);
	assert_int_equal(r.attr.priority, 0);
	assert_int_equal(r.pattern[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	assert_null(r.pattern[0].spec); /* any Ethernet frame of the port */
	assert_int_equal(r.pattern[1].type, RTE_FLOW_ITEM_TYPE_IPV4);
	assert_int_equal(r.pattern[2].type, RTE_FLOW_ITEM_TYPE_UDP);
	assert_int_equal(r.pattern[3].type, RTE_FLOW_ITEM_TYPE_END);
	ip = r.pattern[1].spec;
	ipm = r.pattern[1].mask;
	assert_int_equal(ip->hdr.dst_addr, IP(10, 0, 0, 1));
	assert_int_equal(ipm->hdr.dst_addr, UINT32_MAX);
	/* Only the destination: a slice's frames come from anywhere. */
	assert_int_equal(ipm->hdr.src_addr, 0);
	assert_int_equal(ipm->hdr.next_proto_id, 0);
	udp = r.pattern[2].spec;
	udpm = r.pattern[2].mask;
	assert_int_equal(udp->hdr.dst_port, RTE_BE16(5001));
	assert_int_equal(udpm->hdr.dst_port, UINT16_MAX);
	assert_int_equal(udpm->hdr.src_port, 0);
	assert_int_equal(r.actions[0].type, RTE_FLOW_ACTION_TYPE_QUEUE);
	q = r.actions[0].conf;
	assert_int_equal(q->index, 3);
	assert_int_equal(r.actions[1].type, RTE_FLOW_ACTION_TYPE_END);
}

/* A host slice's TCP endpoint: the same rule with a TCP item. */
static void
test_tcp_endpoint_rule(void **state)
{
	const struct rte_flow_item_tcp *tcp, *tcpm;
	struct sp_steer_rule r;

	(void)state;
	sp_steer_rule_endpoint(&r, SP_L4_TCP, IP(10, 0, 0, 1), RTE_BE16(8080), 2);
	assert_int_equal(r.pattern[2].type, RTE_FLOW_ITEM_TYPE_TCP);
	tcp = r.pattern[2].spec;
	tcpm = r.pattern[2].mask;
	assert_int_equal(tcp->hdr.dst_port, RTE_BE16(8080));
	assert_int_equal(tcpm->hdr.dst_port, UINT16_MAX);
	assert_int_equal(tcpm->hdr.src_port, 0);
	assert_int_equal(((const struct rte_flow_action_queue *)r.actions[0].conf)->index, 2);
}

static void
test_default_rule(void **state)
{
	struct sp_steer_rule r, e;
	const struct rte_flow_action_queue *q;

	(void)state;
	sp_steer_rule_default(&r);
	sp_steer_rule_endpoint(&e, SP_L4_UDP, IP(10, 0, 0, 1), RTE_BE16(5001), 1);
	assert_int_equal(r.pattern[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	assert_null(r.pattern[0].spec);
	assert_int_equal(r.pattern[1].type, RTE_FLOW_ITEM_TYPE_END);
	/* Below every endpoint's rule (a higher number is a lower priority). */
	assert_true(r.attr.ingress);
	assert_true(r.attr.priority > e.attr.priority);
	assert_int_equal(r.actions[0].type, RTE_FLOW_ACTION_TYPE_QUEUE);
	q = r.actions[0].conf;
	assert_int_equal(q->index, 0);
	assert_int_equal(r.actions[1].type, RTE_FLOW_ACTION_TYPE_END);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endpoint_rule),
		cmocka_unit_test(test_tcp_endpoint_rule),
		cmocka_unit_test(test_default_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
