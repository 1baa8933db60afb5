/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the management API, sp_rpc_handle(), on one request line,
 * against a node that starts with one slice (alpha: two endpoints on ports
 * p0 and p1, queue 0 bound on p1, 64 filter positions, 256 bytes of
 * memory); slices, endpoints and queues come and go with the requests, as
 * state carries over between inputs like between a client's requests.
 *
 * Invariants: every answer is one JSON-RPC 2.0 response object holding
 * either a result or an error with an integer code and a message; a
 * request without an id (a valid notification) gets none; every slice's
 * filters list in position order within its quota; the NPE's quota sums
 * match its slices.
 */
#include <stdlib.h>

#include "fuzz_node.h"
#include "mgmt/rpc.h"

static struct sp_node *node;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	node = sp_fuzz_node();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *answer = sp_test_rpc_handle(node, (const char *)data, size);

	if (answer != NULL) {
		sp_fuzz_check_answer(answer);
		free(answer);
	}
	sp_fuzz_check_slices(node);
	return 0;
}
