/* SPDX-License-Identifier: BSD-3-Clause */
/* The in-memory node and answer checks of the API fuzz targets (fuzz_node.h). */
#include <string.h>

#include <jansson.h>
#include <rte_memory.h>
#include <sanitizer/lsan_interface.h>

#include "fuzz_node.h"
#include "fuzz_pkt.h"
#include "stats/stats.h"

#define LINK_BPS 10000000000ull

static struct sp_node node;

static void
make_node(void)
{
	struct sp_lookup_params lp = {.name = "fuzz", .capacity = 4096, .max_slices = SP_MAX_SLICES,
				      .socket = SOCKET_ID_ANY};
	struct sp_qm_params qp = {.name = "fuzz", .nb_ports = 2, .max_queues = 64,
				  .max_owners = SP_MAX_SLICES, .socket = SOCKET_ID_ANY};
	struct sp_slice_spec spec = {.id = SP_FUZZ_SLICE, .name = "alpha", .codeopt = "ipv4",
				     .npe = 0, .mem_bytes = 256, .filter_quota = SP_FUZZ_QUOTA,
				     .queue_quota = 8, .buffer_quota = 1000,
				     .owner = SP_OWNER_NONE};
	char err[512];
	struct sp_slice *s;
	uint16_t ep = SP_ENDPOINT_ANY;

	node.nb_npes = 1;
	node.npes[0].filter_capacity = 4096;
	node.npes[0].queue_capacity = 64;
	node.nb_ports = 2;
	for (uint16_t p = 0; p < 2; p++) {
		snprintf(node.ports[p].name, sizeof(node.ports[p].name), "p%u", p);
		node.ports[p].rate_bps = LINK_BPS;
		node.ports[p].overhead = 24;
	}
	node.decap = sp_decap_create("fuzz_node", SP_MAX_ENDPOINTS, SOCKET_ID_ANY);
	node.npes[0].lookup = sp_lookup_create(&lp);
	node.npes[0].qm = sp_qm_create(&qp);
	SP_FUZZ_CHECK(node.decap != NULL && node.npes[0].lookup != NULL && node.npes[0].qm != NULL,
		      "no tables");
	for (uint16_t p = 0; p < 2; p++)
		SP_FUZZ_CHECK(sp_qm_port_config(node.npes[0].qm, p, LINK_BPS, 24) == 0, "port");
	SP_FUZZ_CHECK(sp_node_slice_add(&node, &spec, &s, err, sizeof(err)) == 0, "slice: %s", err);
	for (uint16_t p = 0; p < 2; p++, ep = SP_ENDPOINT_ANY) {
		const struct sp_endpoint_req req = {.port = p, .udp_port = 5001,
						    .bandwidth_bps = 100000000, .inbound_bps = 0};

		SP_FUZZ_CHECK(sp_node_endpoint_add(&node, s, &req, &ep, err, sizeof(err)) == 0,
			      "endpoint: %s", err);
	}
	SP_FUZZ_CHECK(sp_node_queue_bind(&node, s, 0, 1, 1000000, 65536, 1024, err,
					 sizeof(err)) == 0, "queue: %s", err);
}

static int
scan_for_leaks(const struct rte_memseg_list *msl, const struct rte_memseg *ms, size_t len,
	       void *arg)
{
	(void)msl;
	(void)arg;
	__lsan_register_root_region(ms->addr, len);
	return 0;
}

struct sp_node *
sp_fuzz_node(void)
{
	if (node.nb_npes != 0)
		return &node;
	sp_fuzz_eal_init();
	/*
	 * The tables keep heap objects (a slice's lookup state) in DPDK
	 * memory, which LeakSanitizer does not scan by itself.
	 */
	rte_memseg_contig_walk(scan_for_leaks, NULL);
	SP_FUZZ_CHECK(sp_stats_init() == 0, "no counters");
	make_node();
	return &node;
}

void
sp_fuzz_check_answer(const char *text)
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

void
sp_fuzz_check_slices(const struct sp_node *n)
{
	uint64_t filters = 0, queues = 0;

	for (uint16_t id = 1; id < SP_MAX_SLICES; id++) {
		const struct sp_slice *s = n->slices[id];
		uint32_t pos = 0, last = 0;
		bool first = true;

		if (s == NULL)
			continue;
		filters += s->filter_quota;
		queues += s->queue_quota;
		for (; sp_lookup_next(n->npes[0].lookup, id, &pos) == 0; pos++) {
			SP_FUZZ_CHECK(pos < s->filter_quota && (first || pos > last),
				      "slice %u: a filter at position %u", id, pos);
			first = false;
			last = pos;
		}
	}
	SP_FUZZ_CHECK(filters == n->npes[0].filter_quotas && queues == n->npes[0].queue_quotas,
		      "the NPE's quota sums drifted");
}
