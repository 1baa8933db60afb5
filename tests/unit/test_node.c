/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Changing the node while it runs (src/node/slice_ops.c): slices, their
 * endpoints and queues are added and removed within the NPE's room and the
 * ports' bandwidth, every refusal says why and changes nothing, and what a
 * slice held is the next one's once it is gone: quotas, queues, endpoint
 * slots, UDP ports.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>

#include "sp_test.h"
#include "sp_test_node.h"

static struct sp_node *node; /* the test's: sp_test_node_setup() */
static char err[512];

static struct sp_slice *
add_slice(uint16_t id, const char *name, uint32_t filters, uint16_t queues, int want)
{
	const struct sp_slice_spec spec = {.id = id, .name = name, .codeopt = "ipv4", .npe = 0,
					   .mem_bytes = 64, .filter_quota = filters,
					   .queue_quota = queues, .buffer_quota = 100,
					   .owner = SP_OWNER_NONE};
	struct sp_slice *s = NULL;

	err[0] = '\0';
	assert_int_equal(sp_node_slice_add(node, &spec, &s, err, sizeof(err)), want);
	return s;
}

static int
add_endpoint(struct sp_slice *s, uint16_t port, uint16_t udp, uint64_t bw, uint64_t in,
	     uint16_t *idx)
{
	const struct sp_endpoint_req req = {.port = port, .udp_port = udp, .bandwidth_bps = bw,
					    .inbound_bps = in};

	err[0] = '\0';
	return sp_node_endpoint_add(node, s, &req, idx, err, sizeof(err));
}

static void
test_slice_refusals_change_nothing(void **state)
{
	node = *state; /* first: the declarations below read it */
	const struct sp_npe *npe = &node->npes[0];
	uint64_t filters = npe->filter_quotas, queues = npe->queue_quotas;
	const struct sp_slice_spec bad_co = {.id = 9, .name = "x", .codeopt = "nope", .npe = 0,
					     .filter_quota = 1, .queue_quota = 1,
					     .buffer_quota = 1, .owner = SP_OWNER_NONE};
	struct sp_slice *s;

	add_slice(SP_TEST_SLICE, "beta", 1, 1, -EEXIST);
	assert_non_null(strstr(err, "id 1"));
	add_slice(2, "alpha", 1, 1, -EEXIST);
	assert_non_null(strstr(err, "alpha"));
	add_slice(2, "big", SP_TEST_FILTERS, 1, -ENOSPC);
	assert_non_null(strstr(err, "filter positions"));
	add_slice(2, "many", 1, SP_TEST_QUEUES, -ENOSPC);
	assert_int_equal(sp_node_slice_add(node, &bad_co, &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "nope"));
	assert_null(node->slices[2]);
	assert_null(node->slices[9]);
	assert_int_equal(npe->filter_quotas, filters);
	assert_int_equal(npe->queue_quotas, queues);
}

static void
test_endpoints(void **state)
{
	node = *state; /* first: the declarations below read it */
	struct sp_slice *s = add_slice(2, "beta", 8, 4, 0);
	uint16_t idx = SP_ENDPOINT_ANY, again;

	/* alpha holds UDP 5001 on p0: taken; any free port starts at 1024. */
	assert_int_equal(add_endpoint(s, 0, 5001, 1000000, 0, &idx), -EADDRINUSE);
	assert_int_equal(s->nb_endpoints, 0); /* as if never asked */
	assert_int_equal(add_endpoint(s, 0, 0, 1000000, 0, &idx), 0);
	assert_int_equal(idx, 0);
	assert_int_equal(rte_be_to_cpu_16(node->endpoints[s->endpoints[0]].l4_port_be), 1024);
	/* The index asked for, taken, and an inbound reservation beyond the link. */
	again = 0;
	assert_int_equal(add_endpoint(s, 1, 6000, 1000000, 0, &again), -EEXIST);
	again = 3;
	assert_int_equal(add_endpoint(s, 1, 6000, 1000000, 20000000000ull, &again), -ENOSPC);
	assert_non_null(strstr(err, "inbound"));
	assert_int_equal(add_endpoint(s, 1, 6000, 1000000, 0, &again), 0);
	assert_int_equal(again, 3);
	assert_int_equal(s->nb_endpoints, 4);
	/* Released: its index reads as free and is given again first. */
	assert_int_equal(sp_node_endpoint_del(node, s, 0, err, sizeof(err)), 0);
	assert_int_equal(sp_node_endpoint_del(node, s, 0, err, sizeof(err)), -ENOENT);
	idx = SP_ENDPOINT_ANY;
	assert_int_equal(add_endpoint(s, 0, 0, 1000000, 0, &idx), 0);
	assert_int_equal(idx, 0);
}

static void
test_queues(void **state)
{
	node = *state; /* first: the declarations below read it */
	struct sp_slice *s = add_slice(2, "beta", 8, 4, 0);
	uint16_t p0 = SP_ENDPOINT_ANY, p1 = SP_ENDPOINT_ANY;
	uint32_t phys;

	assert_int_equal(add_endpoint(s, 0, 7000, 2000000, 0, &p0), 0);
	assert_int_equal(add_endpoint(s, 1, 7000, 2000000, 0, &p1), 0);
	/* A share beyond the slice's reservation on the port. */
	assert_int_equal(sp_node_queue_bind(node, s, 0, p1, 3000000, 65536, 64, err,
					    sizeof(err)), -ENOSPC);
	assert_int_equal(s->qmap[0], SP_QUEUE_UNBOUND);
	assert_int_equal(sp_node_queue_bind(node, s, 0, p1, 2000000, 65536, 64, err,
					    sizeof(err)), 0);
	phys = s->qmap[0];
	assert_int_equal(sp_qm_queue_port(node->npes[0].qm, phys), 1);
	/* Bound on p1 it stays there; its endpoint cannot go while it is bound. */
	assert_int_equal(sp_node_queue_bind(node, s, 0, p0, 1000000, 65536, 64, err,
					    sizeof(err)), -EBUSY);
	assert_int_equal(sp_node_endpoint_del(node, s, p1, err, sizeof(err)), -EBUSY);
	assert_int_equal(sp_node_queue_unbind(node, s, 0, err, sizeof(err)), 0);
	assert_int_equal(sp_node_queue_unbind(node, s, 0, err, sizeof(err)), -ENOENT);
	assert_int_equal(sp_qm_queue_port(node->npes[0].qm, phys), -ENOENT);
	assert_int_equal(sp_node_endpoint_del(node, s, p1, err, sizeof(err)), 0);
}

/* A slice gone gives back all it held: the next one gets the same room, ports and queues. */
static void
test_delete_gives_back(void **state)
{
	node = *state; /* first: the declarations below read it */
	const struct sp_npe *npe = &node->npes[0];
	uint64_t filters = npe->filter_quotas, queues = npe->queue_quotas;
	uint16_t nb_endpoints = node->nb_endpoints;
	struct sp_slice *s = add_slice(2, "beta", SP_TEST_FILTERS - filters, 4, 0);
	uint16_t ep = SP_ENDPOINT_ANY;

	assert_int_equal(add_endpoint(s, 1, 8000, 5000000, 1000000, &ep), 0);
	assert_int_equal(sp_node_queue_bind(node, s, 1, ep, 5000000, 65536, 64, err,
					    sizeof(err)), 0);
	assert_int_equal(sp_node_inbound_reserved(node, 1), 1000000);
	add_slice(3, "gamma", 1, 1, -ENOSPC); /* every filter position is beta's */
	assert_int_equal(sp_node_slice_del(node, s, err, sizeof(err)), 0);
	assert_null(node->slices[2]);
	assert_int_equal(npe->filter_quotas, filters);
	assert_int_equal(npe->queue_quotas, queues);
	assert_int_equal(sp_node_inbound_reserved(node, 1), 0);
	s = add_slice(3, "gamma", SP_TEST_FILTERS - filters, 4, 0);
	ep = SP_ENDPOINT_ANY;
	assert_int_equal(add_endpoint(s, 1, 8000, 5000000, 0, &ep), 0);
	assert_true(node->nb_endpoints <= nb_endpoints + 1);
}

static void
test_codeopt_without_data(void **state)
{
	node = *state; /* first: the declarations below read it */
	assert_int_equal(sp_node_codeopt_load(node, node->slices[SP_TEST_SLICE], "x", 1, err,
					      sizeof(err)), -ENOTSUP);
	assert_non_null(strstr(err, "takes no data"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		SP_TEST_ON_NODE(test_slice_refusals_change_nothing),
		SP_TEST_ON_NODE(test_endpoints),
		SP_TEST_ON_NODE(test_queues),
		SP_TEST_ON_NODE(test_delete_gives_back),
		SP_TEST_ON_NODE(test_codeopt_without_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
