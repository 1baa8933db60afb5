/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the management API, sp_rpc_handle(), on one request line,
 * against a node of one slice (alpha: two endpoints on ports p0 and p1,
 * queue 0 bound on p1, 64 filter positions, 256 bytes of memory). State
 * carries over between inputs, as it does between a client's requests.
 *
 * Invariants: every answer is one JSON-RPC 2.0 response object holding
 * either a result or an error with an integer code and a message; a
 * request without an id (a valid notification) gets none; the slice's
 * filters always list in position order within its quota.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sanitizer/lsan_interface.h>

#include "fuzz_pkt.h"
#include "mgmt/rpc.h"
#include "stats/stats.h"

#define SLICE 1
#define QUOTA 64

static struct sp_node node;
static struct sp_config cfg;

static void
make_node(void)
{
	struct sp_lookup_params lp = {.name = "fuzz", .capacity = 4096, .max_slices = SP_MAX_SLICES,
				      .socket = SOCKET_ID_ANY};
	struct sp_qm_params qp = {.name = "fuzz", .nb_ports = 2, .max_queues = 64,
				  .max_owners = SP_MAX_SLICES, .socket = SOCKET_ID_ANY};
	char err[256];
	struct sp_slice *s;

	cfg.nb_npes = 1;
	cfg.npes[0].queues = 64;
	node.cfg = &cfg;
	node.nb_ports = 2;
	strcpy(node.ports[0].name, "p0");
	strcpy(node.ports[1].name, "p1");
	node.npes[0].lookup = sp_lookup_create(&lp);
	node.npes[0].qm = sp_qm_create(&qp);
	SP_FUZZ_CHECK(node.npes[0].lookup != NULL && node.npes[0].qm != NULL, "no tables");
	for (uint16_t p = 0; p < 2; p++) {
		SP_FUZZ_CHECK(sp_qm_port_config(node.npes[0].qm, p, 10000000000ull, 24) == 0, "port");
		SP_FUZZ_CHECK(sp_qm_owner_reserve(node.npes[0].qm, SLICE, p, 100000000) == 0, "rsv");
		node.endpoints[p] = (struct sp_endpoint){.port = p, .udp_port_be = htons(5001),
							 .slice = SLICE, .bandwidth_bps = 100000000};
	}
	s = sp_slice_create(SLICE, "alpha", "ipv4", 0, 256, err, sizeof(err));
	SP_FUZZ_CHECK(s != NULL, "slice: %s", err);
	s->filter_quota = QUOTA;
	s->queue_quota = 8;
	s->nb_endpoints = 2;
	s->endpoints[0] = 0;
	s->endpoints[1] = 1;
	node.slices[SLICE] = s;
	SP_FUZZ_CHECK(sp_lookup_slice_add(node.npes[0].lookup, SLICE, QUOTA) == 0, "slice table");
	SP_FUZZ_CHECK(sp_qm_owner_quota(node.npes[0].qm, SLICE, 1000) == 0, "quota");
	SP_FUZZ_CHECK(sp_node_queue_bind(&node, s, 0, 1, 1000000, 65536, 1024, err,
					 sizeof(err)) == 0, "queue: %s", err);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sp_fuzz_eal_init();
	SP_FUZZ_CHECK(sp_stats_init() == 0, "no counters");
	/*
	 * The node's heap objects are referenced from DPDK memory, which
	 * LeakSanitizer does not scan: allocated here, they count as roots.
	 */
	__lsan_disable();
	make_node();
	__lsan_enable();
	return 0;
}

static void
check_answer(const char *text)
{
	json_t *r = json_loads(text, 0, NULL), *error;

	SP_FUZZ_CHECK(json_is_object(r), "the answer is not a JSON object: %s", text);
	SP_FUZZ_CHECK(json_is_string(json_object_get(r, "jsonrpc")) &&
			      strcmp(json_string_value(json_object_get(r, "jsonrpc")), "2.0") == 0,
		      "no \"jsonrpc\": \"2.0\": %s", text);
	SP_FUZZ_CHECK(json_object_get(r, "id") != NULL, "no id: %s", text);
	error = json_object_get(r, "error");
	SP_FUZZ_CHECK((error == NULL) != (json_object_get(r, "result") == NULL),
		      "not exactly one of result and error: %s", text);
	SP_FUZZ_CHECK(error == NULL || (json_is_integer(json_object_get(error, "code")) &&
					json_is_string(json_object_get(error, "message"))),
		      "an error without code or message: %s", text);
	json_decref(r);
}

static void
check_filters(void)
{
	uint32_t pos = 0, last = 0;
	bool first = true;

	for (; sp_lookup_next(node.npes[0].lookup, SLICE, &pos) == 0; pos++) {
		SP_FUZZ_CHECK(pos < QUOTA && (first || pos > last), "filter at position %u", pos);
		first = false;
		last = pos;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *answer = sp_rpc_handle(&node, (const char *)data, size);

	if (answer != NULL) {
		check_answer(answer);
		free(answer);
	}
	check_filters();
	return 0;
}
