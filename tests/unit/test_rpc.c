/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepathd's management methods (src/mgmt/rpc*.c) on the in-memory node,
 * request line in, response line out: a slice's life through the API with
 * what each answer says and what the node then holds, and refusals that
 * name what was wrong and change nothing.
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

#include "mgmt/rpc.h"
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		SP_TEST_ON_NODE(test_a_slice_through_the_api),
		SP_TEST_ON_NODE(test_node_info_and_state),
		SP_TEST_ON_NODE(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
