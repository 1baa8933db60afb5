/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fleet's methods (control/etcd/fleet.c) as the method list gives them
 * (slicepath/methods.h): each answered, any other no method, a parameter
 * the list does not give the fleet refused before the registry is asked.
 * No etcd: the registry is a port nothing listens on, so a call that got
 * past the checks says the registry is unreachable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <jansson.h>

#include "common/method_list.h"
#include "fleet.h"

static struct fleet *fleet;

static int
open_fleet(void **state)
{
	struct etcd_opts o = {.urls = "etcd://127.0.0.1:9", .timeout_ms = 500};
	char err[256];

	(void)state;
	fleet = fleet_open(&o, NULL, err, sizeof(err));
	if (fleet == NULL)
		fail_msg("fleet_open: %s", err);
	return 0;
}

static int
close_fleet(void **state)
{
	(void)state;
	fleet_close(fleet);
	return 0;
}

/* method with params (JSON text) must be refused with code and exactly message. */
static void
refused(const char *method, const char *params, int code, const char *message)
{
	struct sp_rpc_error e = {0};
	json_t *p = json_loads(params, 0, NULL), *r = fleet_call(fleet, method, p, &e);

	json_decref(p);
	assert_null(r);
	assert_int_equal(e.code, code);
	assert_string_equal(e.message, message);
}

static void
test_each_fleet_method_answered(void **state)
{
	(void)state;
	for (int id = 0; id < SP_METHOD_COUNT; id++) {
		struct sp_rpc_error e = {0};
		json_t *p, *r;

		if (!sp_method_served(SP_ON_FLEET, id))
			continue;
		p = json_object();
		r = fleet_call(fleet, sp_method_name(id), p, &e);
		json_decref(p);
		json_decref(r);
		if (e.code == SP_RPC_METHOD_NOT_FOUND)
			fail_msg("%s is the fleet's, answered as no method", sp_method_name(id));
	}
}

static void
test_others_refused(void **state)
{
	(void)state;
	refused(SP_M_SLICE_MOVE, "{}", SP_RPC_METHOD_NOT_FOUND, "no method \"slice.move\"; the "
		"methods are slice.create, slice.delete, slice.list, slice.status, slice.replace, "
		"endpoint.reserve, endpoint.release, queue.bind, queue.set, queue.unbind, "
		"filter.insert, filter.delete, filter.list, node.list, policy.get, policy.set");
	refused(SP_M_SLICE_CREATE, "{\"name\": \"a\", \"codeopt\": \"ipv4\", \"id\": 3}",
		SP_RPC_INVALID_PARAMS, "\"id\" is not a parameter of slice.create, which takes "
		"name, codeopt, owner, npe, memory, filter_quota, queue_quota, buffer_quota, netns, "
		"nat_ports, bandwidth, inbound, create_netns, nodes");
	refused(SP_M_ENDPOINT_RESERVE, "{\"slice\": \"a\", \"udp_port\": 5001, \"until_exit\": true}",
		SP_RPC_INVALID_PARAMS, "\"until_exit\" is not a parameter of endpoint.reserve, which "
		"takes slice, port, udp_port, tcp_port, bandwidth, inbound");
	refused(SP_M_POLICY_SET, "{\"replace_down_after\": 60, \"after\": 60}",
		SP_RPC_INVALID_PARAMS, "\"after\" is not a parameter of policy.set, which takes "
		"replace_down_after");
	refused(SP_M_NODE_LIST, "{\"node\": \"n1\"}", SP_RPC_INVALID_PARAMS,
		"\"node\" is not a parameter of node.list, which takes none");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_fleet_method_answered),
		cmocka_unit_test(test_others_refused),
	};

	return cmocka_run_group_tests(tests, open_fleet, close_fleet);
}
