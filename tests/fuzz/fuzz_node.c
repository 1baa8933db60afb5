/* SPDX-License-Identifier: BSD-3-Clause */
/* The node and answer checks of the API fuzz targets (fuzz_node.h). */
#include <string.h>

#include <jansson.h>
#include <rte_memory.h>
#include <sanitizer/lsan_interface.h>

#include "fuzz_node.h"
#include "fuzz_pkt.h"

static struct sp_node node;

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
	sp_test_eal_init();
	/*
	 * The tables keep heap objects (a slice's lookup state) in DPDK
	 * memory, which LeakSanitizer does not scan by itself.
	 */
	rte_memseg_contig_walk(scan_for_leaks, NULL);
	sp_test_node_create(&node);
	return &node;
}

void
sp_fuzz_check_answer(const char *text)
{
	json_t *r = json_loads(text, 0, NULL), *error;

	SP_TEST_CHECK(json_is_object(r), "the answer is not a JSON object: %s", text);
	SP_TEST_CHECK(json_is_string(json_object_get(r, "jsonrpc")) &&
			      strcmp(json_string_value(json_object_get(r, "jsonrpc")), "2.0") == 0,
		      "no \"jsonrpc\": \"2.0\": %s", text);
	SP_TEST_CHECK(json_object_get(r, "id") != NULL, "no id: %s", text);
	error = json_object_get(r, "error");
	SP_TEST_CHECK((error == NULL) != (json_object_get(r, "result") == NULL),
		      "not exactly one of result and error: %s", text);
	SP_TEST_CHECK(error == NULL || (json_is_integer(json_object_get(error, "code")) &&
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
			SP_TEST_CHECK(pos < s->filter_quota && (first || pos > last),
				      "slice %u: a filter at position %u", id, pos);
			first = false;
			last = pos;
		}
	}
	SP_TEST_CHECK(filters == n->npes[0].filter_quotas && queues == n->npes[0].queue_quotas,
		      "the NPE's quota sums drifted");
}
