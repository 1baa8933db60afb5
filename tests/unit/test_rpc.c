/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepathd's management methods (src/mgmt/rpc*.c) on the in-memory node,
 * request line in, response line out: a slice's life through the API with
 * what each answer says and what the node then holds, and refusals that
 * name what was wrong and change nothing. slice.move runs on a second NPE
 * (sp_test_node_add_npe()); nat.list only refuses here (no host slice);
 * stats.missed shows a miss the NPE met. Every method the list gives
 * slicepathd is answered, none other.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>
#include <rte_ip.h>
#include <rte_lcore.h>

#include "decap/decap_worker.h"
#include "mgmt/rpc.h"
#include "npe/npe.h"
#include "stats/stats.h"
#include "sp_test.h"
#include "sp_test_node.h"

static struct sp_node *node; /* the test's: sp_test_node_setup() */

/* The response to method with params (JSON text), parsed; its id checked. */
static json_t *
call(const char *method, const char *params)
{
	char line[4096];
	char *answer;
	json_t *r;

	snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"%s\",\"params\":%s}",
		 method, params);
	answer = sp_test_rpc_handle(node, line, strlen(line));
	assert_non_null(answer);
	r = json_loads(answer, 0, NULL);
	free(answer);
	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "id")), 7);
	return r;
}

/* The result of a call that must succeed (a new reference). */
static json_t *
ok(const char *method, const char *params)
{
	json_t *r = call(method, params), *res = json_incref(json_object_get(r, "result"));

	if (res == NULL)
		fail_msg("%s %s: %s", method, params,
			 json_string_value(json_object_get(json_object_get(r, "error"), "message")));
	json_decref(r);
	return res;
}

/* A call that must fail with code, its message holding text. */
static void
refused(const char *method, const char *params, int code, const char *text)
{
	json_t *r = call(method, params), *e = json_object_get(r, "error");
	const char *msg = json_string_value(json_object_get(e, "message"));

	assert_non_null(e);
	assert_int_equal(json_integer_value(json_object_get(e, "code")), code);
	if (strstr(msg, text) == NULL)
		fail_msg("%s %s: \"%s\" is not in \"%s\"", method, params, text, msg);
	json_decref(r);
}

static int64_t
num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* A filter on the first 16 bits, to the slice's endpoint ep and queue 0. */
#define FILTER(pos, dst, ep)                                                                       \
	"{\"position\":" #pos ",\"key\":\"" dst "000000000000000000000000\",\"mask\":"             \
	"\"ffff000000000000000000000000\",\"result\":{\"endpoint\":" #ep ",\"queue\":0,"         \
	"\"next_hop\":\"10.0.0.9:7001\"}}"

static void
test_a_slice_through_the_api(void **state)
{
	node = *state; /* first: the declarations below read it */
	json_t *r, *list;

	r = ok(SP_M_SLICE_CREATE, "{\"name\":\"beta\",\"codeopt\":\"ipv4\",\"filter_quota\":16,"
				   "\"queue_quota\":2,\"buffer_quota\":100,\"memory\":64}");
	assert_int_equal(num(r, "id"), 2);
	assert_non_null(node->slices[2]);
	json_decref(r);
	r = ok(SP_M_ENDPOINT_RESERVE, "{\"slice\":\"beta\",\"port\":\"p0\",\"udp_port\":6000,"
				       "\"bandwidth\":1000000}");
	assert_int_equal(num(r, "endpoint"), 0);
	assert_int_equal(num(r, "udp_port"), 6000);
	json_decref(r);
	json_decref(ok(SP_M_QUEUE_BIND, "{\"slice\":2,\"queue\":0,\"endpoint\":0,"
					"\"share\":1000000}"));
	r = ok(SP_M_FILTER_INSERT, "{\"slice\":\"beta\",\"filters\":[" FILTER(3, "c0a8", 0) ","
				   FILTER(5, "0a01", 0) "]}");
	assert_int_equal(num(r, "written"), 2);
	json_decref(r);
	json_decref(ok(SP_M_FILTER_DELETE, "{\"slice\":\"beta\",\"position\":3}"));
	list = ok(SP_M_FILTER_LIST, "{\"slice\":\"beta\"}");
	assert_int_equal(json_array_size(list), 1);
	assert_int_equal(num(json_array_get(list, 0), "position"), 5);
	assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "key")),
			    "0a01000000000000000000000000");
	json_decref(list);
	json_decref(ok(SP_M_MEM_WRITE, "{\"slice\":\"beta\",\"offset\":10,\"data\":\"c0ffee\"}"));
	r = ok(SP_M_MEM_READ, "{\"slice\":\"beta\",\"offset\":9,\"length\":5}");
	assert_string_equal(json_string_value(json_object_get(r, "data")), "00c0ffee00");
	json_decref(r);
	r = ok(SP_M_STATS_GET, "{\"slice\":\"beta\"}");
	assert_int_equal(num(json_object_get(r, "slice"), "rx_pkts"), 0);
	assert_non_null(json_object_get(json_object_get(r, "slice"), "reasons"));
	assert_int_equal(json_array_size(json_object_get(r, "endpoints")), 1);
	json_decref(r);
	json_decref(ok(SP_M_SLICE_DELETE, "{\"slice\":\"beta\"}"));
	assert_null(node->slices[2]);
	list = ok(SP_M_SLICE_LIST, "{}");
	assert_int_equal(json_array_size(list), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "name")),
			    "alpha");
	json_decref(list);
}

static void
test_node_info_and_state(void **state)
{
	node = *state; /* first: the declarations below read it */
	json_t *r, *npe;

	r = ok(SP_M_NODE_INFO, "{}");
	npe = json_array_get(json_object_get(r, "npes"), 0);
	assert_int_equal(num(npe, "filters"), SP_TEST_FILTERS);
	assert_int_equal(num(npe, "queues"), SP_TEST_QUEUES);
	assert_int_equal(num(npe, "filter_quotas"), SP_TEST_QUOTA);
	assert_int_equal(json_array_size(json_object_get(r, "ports")), 2);
	json_decref(r);
	r = ok(SP_M_STATE_DUMP, "{}");
	assert_int_equal(json_array_size(json_object_get(r, "slices")), 1);
	json_decref(r);
}

/* Each refused with its code and a message naming what was wrong; nothing changes. */
static void
test_refusals(void **state)
{
	node = *state; /* first: the declarations below read it */
	refused("slice.destroy", "{}", SP_RPC_METHOD_NOT_FOUND, "no method \"slice.destroy\"");
	refused(SP_M_FILTER_LIST, "{\"slice\":\"alpha\",\"verbose\":1}", SP_RPC_INVALID_PARAMS,
		"\"verbose\" is not a parameter of filter.list, which takes slice");
	refused(SP_M_FILTER_LIST, "{\"slice\":\"1\"}", SP_RPC_INVALID_PARAMS,
		"string of digits");
	refused(SP_M_FILTER_LIST, "{\"slice\":9}", SP_RPC_NOT_FOUND, "no slice has id 9");
	refused(SP_M_FILTER_INSERT, "{\"slice\":\"alpha\",\"filters\":[" FILTER(1, "0a00", 1) "],"
				    "\"position\":1}", SP_RPC_INVALID_PARAMS,
		"\"position\" beside \"filters\"");
	refused(SP_M_FILTER_INSERT, "{\"slice\":\"alpha\",\"filters\":[" FILTER(64, "0a00", 1) "]}",
		SP_RPC_QUOTA, "filters[0].position 64 is beyond slice alpha's filter quota of 64");
	refused(SP_M_MEM_READ, "{\"slice\":\"alpha\",\"offset\":250,\"length\":10}", SP_RPC_QUOTA,
		"beyond slice alpha's memory of 256 bytes");
	refused(SP_M_SLICE_CREATE, "{\"name\":\"12\",\"codeopt\":\"ipv4\"}", SP_RPC_INVALID_PARAMS,
		"must not be all digits");
	refused(SP_M_ENDPOINT_RESERVE, "{\"slice\":\"alpha\",\"port\":\"p0\",\"udp_port\":5001}",
		SP_RPC_EXISTS, "5001");
	assert_null(node->slices[2]);
	assert_int_equal(node->slices[SP_TEST_SLICE]->nb_endpoints, 2);
}

/*
 * The method list (slicepath/methods.h) is what slicepathd answers: each
 * method it gives slicepathd reaches a handler, any other is no method, a
 * parameter the list does not give slicepathd is refused, each message
 * listing what slicepathd has.
 */
static void
test_method_list(void **state)
{
	json_t *r;

	node = *state;
	assert_null(sp_rpc_unhandled());
	for (int id = 0; id < SP_METHOD_COUNT; id++) {
		if (!sp_method_served(SP_ON_MGMT, id))
			continue;
		r = call(sp_method_name(id), "{}");
		if (json_integer_value(json_object_get(json_object_get(r, "error"), "code")) ==
		    SP_RPC_METHOD_NOT_FOUND)
			fail_msg("%s is slicepathd's, answered as no method", sp_method_name(id));
		json_decref(r);
	}
	refused(SP_M_WHOAMI, "{}", SP_RPC_METHOD_NOT_FOUND, "no method \"whoami\"; the methods are "
		"slice.create, slice.delete, slice.move, slice.list, nat.list, endpoint.reserve, "
		"endpoint.release, queue.bind, queue.set, queue.unbind, filter.insert, filter.delete, "
		"filter.list, mem.read, mem.write, codeopt.load, stats.get, stats.missed, state.dump, "
		"sched.set, node.info");
	refused(SP_M_SLICE_CREATE, "{\"name\":\"b\",\"codeopt\":\"ipv4\",\"create_netns\":true}",
		SP_RPC_INVALID_PARAMS, "\"create_netns\" is not a parameter of slice.create, which "
		"takes name, codeopt, owner, npe, memory, filter_quota, queue_quota, buffer_quota, "
		"netns, nat_ports, id, managed, nat_first");
	refused(SP_M_ENDPOINT_RESERVE, "{\"slice\":\"alpha\",\"until_exit\":true}",
		SP_RPC_INVALID_PARAMS, "\"until_exit\" is not a parameter of endpoint.reserve, which "
		"takes slice, port, udp_port, tcp_port, bandwidth, inbound, index");
	refused(SP_M_STATE_DUMP, "{\"slice\":\"alpha\"}", SP_RPC_INVALID_PARAMS,
		"\"slice\" is not a parameter of state.dump, which takes none");
	assert_null(node->slices[2]);
}

/* Slice id's reservation on port of NPE npe's scheduler (bit/s). */
static uint64_t
reserved(uint16_t npe, uint16_t id, uint16_t port)
{
	struct sp_qm_room r;

	assert_int_equal(sp_qm_room(node->npes[npe].qm, id, port, &r), 0);
	return r.owner_bps;
}

/* slice.move (src/node/slice_move.c): filters, bound queues and reservations go with it. */
static void
test_slice_move(void **state)
{
	node = *state; /* first: the declarations below read it */
	struct sp_slice *a = node->slices[SP_TEST_SLICE];
	struct sp_qm_queue_conf c;
	json_t *r, *list;

	sp_test_node_add_npe(node);
	json_decref(ok(SP_M_FILTER_INSERT, "{\"slice\":\"alpha\",\"filters\":["
					   FILTER(7, "0a01", 1) "]}"));
	json_decref(ok(SP_M_QUEUE_SET, "{\"slice\":\"alpha\",\"queue\":0,\"threshold\":131072}"));
	r = ok(SP_M_SLICE_MOVE, "{\"slice\":\"alpha\",\"npe\":1}");
	assert_int_equal(json_object_size(r), 1);
	assert_int_equal(num(r, "npe"), 1);
	json_decref(r);
	assert_ptr_equal(node->slices[SP_TEST_SLICE], a);
	assert_int_equal(a->npe, 1);
	assert_int_equal(node->npes[0].filter_quotas, 0);
	assert_int_equal(node->npes[0].queue_quotas, 0);
	assert_int_equal(node->npes[1].filter_quotas, SP_TEST_QUOTA);
	assert_int_equal(node->npes[1].queue_quotas, a->queue_quota);
	/* Its filter, at its position, read from NPE 1's table. */
	list = ok(SP_M_FILTER_LIST, "{\"slice\":\"alpha\"}");
	assert_int_equal(json_array_size(list), 1);
	assert_int_equal(num(json_array_get(list, 0), "position"), 7);
	json_decref(list);
	assert_int_equal(sp_lookup_next(node->npes[0].lookup, SP_TEST_SLICE, &(uint32_t){0}) == 0,
			 0);
	/* Its queue, bound on NPE 1 as it was: endpoint, threshold, share. */
	assert_int_not_equal(a->qmap[0], SP_QUEUE_UNBOUND);
	assert_int_equal(a->qendpoint[0], 1);
	assert_int_equal(sp_qm_queue_conf(node->npes[1].qm, a->qmap[0], &c), 0);
	assert_int_equal(c.max_bytes, 131072);
	assert_int_equal(c.max_pkts, 1024);
	assert_int_equal(c.share_bps, 1000000);
	/* Its endpoints' reservations (100 Mb/s on each port) moved with it. */
	for (uint16_t p = 0; p < 2; p++) {
		assert_int_equal(reserved(1, SP_TEST_SLICE, p), 100000000);
		assert_int_equal(reserved(0, SP_TEST_SLICE, p), 0);
	}
	/* Where it is already: nothing to do, the same answer. */
	r = ok(SP_M_SLICE_MOVE, "{\"slice\":1,\"npe\":1}");
	assert_int_equal(num(r, "npe"), 1);
	json_decref(r);
	assert_int_equal(node->npes[1].filter_quotas, SP_TEST_QUOTA);
}

/* A move that does not fit, or names no NPE or slice, changes nothing. */
static void
test_slice_move_refused(void **state)
{
	node = *state; /* first: the declarations below read it */
	struct sp_slice *a = node->slices[SP_TEST_SLICE];

	refused(SP_M_SLICE_MOVE, "{\"slice\":\"alpha\",\"npe\":1}", SP_RPC_INVALID_PARAMS,
		"no NPE 1: the node has 1");
	sp_test_node_add_npe(node);
	refused(SP_M_SLICE_MOVE, "{\"slice\":\"alpha\",\"npe\":2}", SP_RPC_INVALID_PARAMS,
		"no NPE 2: the node has 2");
	refused(SP_M_SLICE_MOVE, "{\"slice\":9,\"npe\":1}", SP_RPC_NOT_FOUND, "no slice has id 9");
	refused(SP_M_SLICE_MOVE, "{\"slice\":\"alpha\",\"npe\":\"1\"}", SP_RPC_INVALID_PARAMS,
		"\"npe\"");
	refused(SP_M_SLICE_MOVE, "{\"slice\":\"alpha\",\"npe\":-1}", SP_RPC_INVALID_PARAMS,
		"\"npe\"");
	refused(SP_M_SLICE_MOVE, "{\"slice\":\"alpha\"}", SP_RPC_INVALID_PARAMS, "\"npe\"");
	/* NPE 1's scheduler on p0 sends less than alpha reserves there. */
	json_decref(ok(SP_M_SCHED_SET, "{\"npe\":1,\"port\":\"p0\",\"rate\":50000000}"));
	refused(SP_M_SLICE_MOVE, "{\"slice\":\"alpha\",\"npe\":1}", SP_RPC_NO_ROOM,
		"slice alpha reserves 100M bit/s on p0, and NPE 1's scheduler there sends 50M "
		"bit/s of which 0 are reserved");
	/* NPE 1 has too few filter positions left for alpha's quota. */
	json_decref(ok(SP_M_SCHED_SET, "{\"npe\":1,\"port\":\"p0\",\"rate\":5000000000}"));
	json_decref(ok(SP_M_SLICE_CREATE, "{\"name\":\"big\",\"codeopt\":\"ipv4\",\"npe\":1,"
					  "\"filter_quota\":4090}"));
	refused(SP_M_SLICE_MOVE, "{\"slice\":\"alpha\",\"npe\":1}", SP_RPC_NO_ROOM,
		"NPE 1 has 6 of its 4096 filter positions left, slice alpha's quota is 64");
	assert_int_equal(a->npe, 0);
	assert_ptr_equal(node->slices[SP_TEST_SLICE], a);
	assert_int_equal(node->npes[0].filter_quotas, SP_TEST_QUOTA);
	assert_int_equal(node->npes[1].filter_quotas, 4090);
	assert_int_equal(node->npes[1].queue_quotas, node->slices[2]->queue_quota);
	assert_int_not_equal(a->qmap[0], SP_QUEUE_UNBOUND);
	for (uint16_t p = 0; p < 2; p++) {
		assert_int_equal(reserved(0, SP_TEST_SLICE, p), 100000000);
		assert_int_equal(reserved(1, SP_TEST_SLICE, p), 0);
	}
}

/* endpoint.release: alpha's endpoint 0 (p0) goes, its reservation with it; 1 has a queue. */
static void
test_endpoint_release(void **state)
{
	node = *state; /* first: the declarations below read it */
	struct sp_slice *a = node->slices[SP_TEST_SLICE];
	uint16_t slot = a->endpoints[0];
	json_t *r;

	json_decref(ok(SP_M_SLICE_CREATE, "{\"name\":\"beta\",\"codeopt\":\"ipv4\"}"));
	refused(SP_M_ENDPOINT_RELEASE, "{\"slice\":\"beta\",\"endpoint\":0}", SP_RPC_NOT_FOUND,
		"slice beta has no endpoint 0");
	refused(SP_M_ENDPOINT_RELEASE, "{\"slice\":\"alpha\",\"endpoint\":1}", SP_RPC_BUSY,
		"queue 0 of slice alpha was bound for endpoint 1; unbind it first");
	refused(SP_M_ENDPOINT_RELEASE, "{\"slice\":\"alpha\",\"endpoint\":2}", SP_RPC_NOT_FOUND,
		"slice alpha has no endpoint 2");
	refused(SP_M_ENDPOINT_RELEASE, "{\"slice\":\"alpha\",\"endpoint\":70000}",
		SP_RPC_INVALID_PARAMS, "\"endpoint\"");
	refused(SP_M_ENDPOINT_RELEASE, "{\"slice\":\"alpha\",\"endpoint\":\"0\"}",
		SP_RPC_INVALID_PARAMS, "\"endpoint\"");
	refused(SP_M_ENDPOINT_RELEASE, "{\"slice\":\"gamma\",\"endpoint\":0}", SP_RPC_NOT_FOUND,
		"no slice is named \"gamma\"");
	assert_int_equal(node->endpoints[slot].slice, SP_TEST_SLICE);
	assert_int_equal(reserved(0, SP_TEST_SLICE, 0), 100000000);

	r = ok(SP_M_ENDPOINT_RELEASE, "{\"slice\":\"alpha\",\"endpoint\":0}");
	assert_int_equal(json_object_size(r), 1);
	assert_int_equal(num(r, "released"), 1);
	json_decref(r);
	assert_int_equal(a->endpoints[0], SP_ENDPOINT_NONE);
	assert_int_equal(node->endpoints[slot].slice, 0);
	assert_int_equal(reserved(0, SP_TEST_SLICE, 0), 0);
	assert_int_equal(reserved(0, SP_TEST_SLICE, 1), 100000000);
	refused(SP_M_ENDPOINT_RELEASE, "{\"slice\":\"alpha\",\"endpoint\":0}", SP_RPC_NOT_FOUND,
		"slice alpha has no endpoint 0");
	/* Its UDP port on p0 is free again: beta takes it. */
	r = ok(SP_M_ENDPOINT_RESERVE, "{\"slice\":\"beta\",\"port\":\"p0\",\"udp_port\":5001}");
	assert_int_equal(num(r, "udp_port"), 5001);
	json_decref(r);
}

/* queue.set and queue.unbind on alpha's queue 0 (bound for endpoint 1 on p1). */
static void
test_queue_set_and_unbind(void **state)
{
	node = *state; /* first: the declarations below read it */
	struct sp_slice *a = node->slices[SP_TEST_SLICE];
	struct sp_qm_queue_conf c;
	json_t *r, *q;

	/* What a call does not name stays as it was. */
	r = ok(SP_M_QUEUE_SET, "{\"slice\":\"alpha\",\"queue\":0,\"threshold\":131072,"
			       "\"threshold_packets\":300}");
	assert_int_equal(num(json_object_get(r, "queue"), "share"), 1000000);
	json_decref(r);
	r = ok(SP_M_QUEUE_SET, "{\"slice\":\"alpha\",\"queue\":0,\"share\":2000000}");
	assert_int_equal(json_object_size(r), 2);
	assert_int_equal(num(r, "set"), 1);
	q = json_object_get(r, "queue");
	assert_int_equal(num(q, "id"), 0);
	assert_int_equal(num(q, "endpoint"), 1);
	assert_int_equal(num(q, "threshold"), 131072);
	assert_int_equal(num(q, "threshold_packets"), 300);
	assert_int_equal(num(q, "share"), 2000000);
	json_decref(r);
	r = ok(SP_M_QUEUE_SET, "{\"slice\":\"alpha\",\"queue\":0,\"threshold_packets\":300}");
	assert_int_equal(num(json_object_get(r, "queue"), "share"), 2000000);
	json_decref(r);
	assert_int_equal(sp_qm_queue_conf(node->npes[0].qm, a->qmap[0], &c), 0);
	assert_int_equal(c.max_bytes, 131072);
	assert_int_equal(c.max_pkts, 300);
	assert_int_equal(c.share_bps, 2000000);
	assert_int_equal(c.port, 1);

	json_decref(ok(SP_M_SLICE_CREATE, "{\"name\":\"beta\",\"codeopt\":\"ipv4\"}"));
	refused(SP_M_QUEUE_SET, "{\"slice\":\"beta\",\"queue\":0,\"share\":5}", SP_RPC_NOT_FOUND,
		"slice beta has no queue 0 bound");
	refused(SP_M_QUEUE_SET, "{\"slice\":\"alpha\",\"queue\":3}", SP_RPC_NOT_FOUND,
		"slice alpha has no queue 3 bound");
	refused(SP_M_QUEUE_SET, "{\"slice\":\"alpha\",\"queue\":8}", SP_RPC_NOT_FOUND,
		"slice alpha has no queue 8 bound");
	refused(SP_M_QUEUE_SET, "{\"slice\":\"alpha\",\"queue\":0,\"share\":0}",
		SP_RPC_INVALID_PARAMS, "\"share\"");
	refused(SP_M_QUEUE_SET, "{\"slice\":\"alpha\",\"queue\":0,\"threshold\":\"big\"}",
		SP_RPC_INVALID_PARAMS, "\"threshold\"");
	refused(SP_M_QUEUE_SET, "{\"slice\":\"alpha\",\"queue\":0,\"share\":200000000}",
		SP_RPC_NO_ROOM, "a share of 200M bit/s does not fit: the slice reserves 100M bit/s "
		"on p1 and its other queues there share 0, so at most 100M is left");
	refused(SP_M_QUEUE_SET, "{\"slice\":\"alpha\",\"queue\":0,\"endpoint\":0}",
		SP_RPC_INVALID_PARAMS, "\"endpoint\" is not a parameter of queue.set");
	assert_int_equal(sp_qm_queue_conf(node->npes[0].qm, a->qmap[0], &c), 0);
	assert_int_equal(c.max_bytes, 131072);
	assert_int_equal(c.share_bps, 2000000);

	refused(SP_M_QUEUE_UNBIND, "{\"slice\":\"beta\",\"queue\":0}", SP_RPC_NOT_FOUND,
		"slice beta has no queue 0 bound");
	refused(SP_M_QUEUE_UNBIND, "{\"slice\":\"alpha\",\"queue\":2}", SP_RPC_NOT_FOUND,
		"slice alpha has no queue 2 bound");
	refused(SP_M_QUEUE_UNBIND, "{\"slice\":\"alpha\",\"queue\":-1}", SP_RPC_INVALID_PARAMS,
		"\"queue\"");
	refused(SP_M_QUEUE_UNBIND, "{\"slice\":\"alpha\",\"queue\":0,\"share\":1}",
		SP_RPC_INVALID_PARAMS, "\"share\" is not a parameter of queue.unbind");
	assert_int_not_equal(a->qmap[0], SP_QUEUE_UNBOUND);
	r = ok(SP_M_QUEUE_UNBIND, "{\"slice\":\"alpha\",\"queue\":0}");
	assert_int_equal(json_object_size(r), 1);
	assert_int_equal(num(r, "unbound"), 1);
	json_decref(r);
	assert_int_equal(a->qmap[0], SP_QUEUE_UNBOUND);
	assert_int_equal(node->npes[0].nb_queues, 1); /* the physical queue, free again */
	refused(SP_M_QUEUE_SET, "{\"slice\":\"alpha\",\"queue\":0}", SP_RPC_NOT_FOUND,
		"slice alpha has no queue 0 bound");
	refused(SP_M_QUEUE_UNBIND, "{\"slice\":\"alpha\",\"queue\":0}", SP_RPC_NOT_FOUND,
		"slice alpha has no queue 0 bound");
	/* Endpoint 1 has no queue now: it may go. */
	json_decref(ok(SP_M_ENDPOINT_RELEASE, "{\"slice\":\"alpha\",\"endpoint\":1}"));
}

/* sched.set: an NPE's scheduler on a port, answered with what is in force. */
static void
test_sched_set(void **state)
{
	node = *state; /* first: the declarations below read it */
	struct sp_qm_room room;
	json_t *r, *sc;

	r = ok(SP_M_SCHED_SET, "{\"npe\":0,\"port\":\"p1\",\"rate\":4000000000,\"overhead\":20}");
	assert_int_equal(num(r, "set"), 1);
	sc = json_object_get(r, "scheduler");
	assert_int_equal(num(sc, "npe"), 0);
	assert_string_equal(json_string_value(json_object_get(sc, "port")), "p1");
	assert_int_equal(num(sc, "rate"), 4000000000);
	assert_int_equal(num(sc, "overhead"), 20);
	assert_int_equal(num(sc, "reserved"), 100000000); /* alpha's endpoint 1 */
	json_decref(r);
	assert_int_equal(sp_qm_room(node->npes[0].qm, 0, 1, &room), 0);
	assert_int_equal(room.rate_bps, 4000000000);
	assert_int_equal(room.overhead, 20);
	/* Without "overhead": the one in force stays. */
	r = ok(SP_M_SCHED_SET, "{\"npe\":0,\"port\":\"p1\",\"rate\":3000000000}");
	assert_int_equal(num(json_object_get(r, "scheduler"), "overhead"), 20);
	assert_int_equal(num(json_object_get(r, "scheduler"), "rate"), 3000000000);
	json_decref(r);

	refused(SP_M_SCHED_SET, "{\"npe\":1,\"port\":\"p1\",\"rate\":1000}", SP_RPC_NOT_FOUND,
		"no NPE 1: the node has 1");
	refused(SP_M_SCHED_SET, "{\"npe\":0,\"port\":\"p9\",\"rate\":1000}", SP_RPC_NOT_FOUND,
		"the node has no port \"p9\"");
	refused(SP_M_SCHED_SET, "{\"npe\":0,\"port\":\"p1\",\"rate\":0}", SP_RPC_INVALID_PARAMS,
		"\"rate\" must be at least 1 bit/s");
	refused(SP_M_SCHED_SET, "{\"npe\":0,\"port\":\"p1\",\"rate\":20000000000}", SP_RPC_NO_ROOM,
		"p1 sends 10G bit/s and the other NPEs' schedulers there 0, so at most 10G is left");
	refused(SP_M_SCHED_SET, "{\"npe\":0,\"port\":\"p1\",\"rate\":50000000}", SP_RPC_NO_ROOM,
		"the slices on NPE 0 reserve 100M bit/s on p1: the rate cannot go below that");
	refused(SP_M_SCHED_SET, "{\"npe\":0,\"port\":\"p1\",\"rate\":1000,\"overhead\":256}",
		SP_RPC_INVALID_PARAMS, "\"overhead\"");
	refused(SP_M_SCHED_SET, "{\"npe\":0,\"port\":1,\"rate\":1000}", SP_RPC_INVALID_PARAMS,
		"\"port\"");
	refused(SP_M_SCHED_SET, "{\"npe\":0,\"port\":\"p1\"}", SP_RPC_INVALID_PARAMS, "\"rate\"");
	assert_int_equal(sp_qm_room(node->npes[0].qm, 0, 1, &room), 0);
	assert_int_equal(room.rate_bps, 3000000000);
	assert_int_equal(room.overhead, 20);
	/* The other NPE's rate counts against the link. */
	sp_test_node_add_npe(node);
	refused(SP_M_SCHED_SET, "{\"npe\":1,\"port\":\"p0\",\"rate\":6000000000}", SP_RPC_NO_ROOM,
		"p0 sends 10G bit/s and the other NPEs' schedulers there 5G, so at most 5G is left");
}

/* "1:/evil/\n" and "1:/fine/\n2:/a(b/\n" in hex: dpi's pattern lines. */
#define DPI_GOOD "313a2f6576696c2f0a"
#define DPI_BAD "313a2f66696e652f0a323a2f6128622f0a"

/* codeopt.load: data for a slice's code option (dpi takes patterns; ipv4 nothing). */
static void
test_codeopt_load(void **state)
{
	node = *state; /* first: the declarations below read it */
	struct sp_slice *d;
	void *db;
	json_t *r;

	refused(SP_M_CODEOPT_LOAD, "{\"slice\":\"alpha\",\"data\":\"00\"}", SP_RPC_INVALID_PARAMS,
		"code option ipv4 of slice alpha takes no data");
	json_decref(ok(SP_M_SLICE_CREATE, "{\"name\":\"deep\",\"codeopt\":\"dpi\"}"));
	d = node->slices[2];
	assert_null(sp_slice_priv(d));
	r = ok(SP_M_CODEOPT_LOAD, "{\"slice\":\"deep\",\"data\":\"" DPI_GOOD "\"}");
	assert_int_equal(json_object_size(r), 1);
	assert_int_equal(num(r, "loaded"), 9);
	json_decref(r);
	db = sp_slice_priv(d);
	assert_non_null(db);
	refused(SP_M_CODEOPT_LOAD, "{\"slice\":\"deep\",\"data\":\"" DPI_BAD "\"}",
		SP_RPC_INVALID_PARAMS, "line 2 (/a(b/): Hyperscan cannot compile it");
	refused(SP_M_CODEOPT_LOAD, "{\"slice\":\"deep\",\"data\":\"zz\"}", SP_RPC_INVALID_PARAMS,
		"\"data\" must be hex digits, two per byte");
	refused(SP_M_CODEOPT_LOAD, "{\"slice\":\"deep\",\"data\":\"313\"}", SP_RPC_INVALID_PARAMS,
		"\"data\" must be hex digits, two per byte");
	refused(SP_M_CODEOPT_LOAD, "{\"slice\":\"deep\",\"data\":12}", SP_RPC_INVALID_PARAMS,
		"\"data\"");
	refused(SP_M_CODEOPT_LOAD, "{\"slice\":7,\"data\":\"00\"}", SP_RPC_NOT_FOUND,
		"no slice has id 7");
	assert_ptr_equal(sp_slice_priv(d), db); /* the patterns loaded stay */
	/* No patterns at all: a list on which nothing matches, in force. */
	r = ok(SP_M_CODEOPT_LOAD, "{\"slice\":\"deep\",\"data\":\"\"}");
	assert_int_equal(num(r, "loaded"), 0);
	json_decref(r);
	assert_ptr_not_equal(sp_slice_priv(d), db);
}

/* nat.list: only a host slice with NAT has a table; the others are told so. */
static void
test_nat_list_refused(void **state)
{
	node = *state; /* first: the declarations below read it */
	refused(SP_M_NAT_LIST, "{\"slice\":\"alpha\"}", SP_RPC_INVALID_PARAMS,
		"slice alpha has no NAT: only host slices (codeopt \"host\") created with "
		"nat_ports above 0 do");
	refused(SP_M_NAT_LIST, "{\"slice\":4}", SP_RPC_NOT_FOUND, "no slice has id 4");
	refused(SP_M_NAT_LIST, "{}", SP_RPC_INVALID_PARAMS, "\"slice\"");
	refused(SP_M_NAT_LIST, "{\"slice\":true}", SP_RPC_INVALID_PARAMS, "\"slice\"");
}

/*
 * stats.missed: a frame that no filter matched shows as its key, with the
 * endpoint and port it came in on (gone once that endpoint is released),
 * and the slice's misses in all.
 */
static void
test_stats_missed(void **state)
{
	node = *state; /* first: the declarations below read it */
	struct sp_lcore_stats *st = sp_stats_lcore(rte_lcore_id());
	struct rte_mbuf *m = sp_test_node_frame(node, RTE_IPV4(10, 99, 0, 1), 64, 0);
	struct sp_decap_out out;
	json_t *r, *k;

	memset(st, 0, sizeof(*st));
	r = ok(SP_M_STATS_MISSED, "{\"slice\":\"alpha\"}");
	assert_int_equal(json_array_size(json_object_get(r, "missed")), 0);
	assert_int_equal(num(r, "misses"), 0);
	json_decref(r);
	sp_decap_burst(node->decap, 0, &m, 1, &out, st);
	assert_int_equal(out.nb_fwd, 1);
	sp_npe_process(&node->fastpath, &node->npes[0], out.fwd, out.nb_fwd, st);
	r = ok(SP_M_STATS_MISSED, "{\"slice\":1}");
	assert_string_equal(json_string_value(json_object_get(r, "slice")), "alpha");
	assert_string_equal(json_string_value(json_object_get(r, "codeopt")), "ipv4");
	assert_int_equal(num(r, "keep"), SP_MISSED_KEEP);
	assert_int_equal(num(r, "misses"), 1);
	assert_int_equal(json_array_size(json_object_get(r, "missed")), 1);
	k = json_array_get(json_object_get(r, "missed"), 0);
	/* dst 10.99.0.1, src 192.0.2.1, ports 1000 and 2000, UDP: filter.insert's key. */
	assert_string_equal(json_string_value(json_object_get(k, "key")),
			    "0a630001c000020103e807d01100");
	assert_int_equal(num(k, "endpoint"), 0);
	assert_string_equal(json_string_value(json_object_get(k, "port")), "p0");
	assert_false(json_boolean_value(json_object_get(k, "injected")));
	assert_true(num(k, "age_ms") >= 0);
	json_decref(r);
	json_decref(ok(SP_M_ENDPOINT_RELEASE, "{\"slice\":\"alpha\",\"endpoint\":0}"));
	r = ok(SP_M_STATS_MISSED, "{\"slice\":\"alpha\"}");
	k = json_array_get(json_object_get(r, "missed"), 0);
	assert_non_null(json_object_get(k, "key"));
	assert_null(json_object_get(k, "endpoint"));
	assert_null(json_object_get(k, "port"));
	json_decref(r);
	refused(SP_M_STATS_MISSED, "{\"slice\":9}", SP_RPC_NOT_FOUND, "no slice has id 9");
	refused(SP_M_STATS_MISSED, "{}", SP_RPC_INVALID_PARAMS, "\"slice\"");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		SP_TEST_ON_NODE(test_a_slice_through_the_api),
		SP_TEST_ON_NODE(test_node_info_and_state),
		SP_TEST_ON_NODE(test_refusals),
		SP_TEST_ON_NODE(test_method_list),
		SP_TEST_ON_NODE(test_slice_move),
		SP_TEST_ON_NODE(test_slice_move_refused),
		SP_TEST_ON_NODE(test_endpoint_release),
		SP_TEST_ON_NODE(test_queue_set_and_unbind),
		SP_TEST_ON_NODE(test_sched_set),
		SP_TEST_ON_NODE(test_codeopt_load),
		SP_TEST_ON_NODE(test_nat_list_refused),
		SP_TEST_ON_NODE(test_stats_missed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
