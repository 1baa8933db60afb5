/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the API fuzz targets (fuzz_rpc, fuzz_ctld): one in-memory
 * slicepathd node (tests/lib/sp_test_node.h), and the JSON-RPC answer checks.
 */
#ifndef SP_FUZZ_NODE_H
#define SP_FUZZ_NODE_H

#include "sp_test_node.h"

/* The node, made at the first call, its memory scanned by LeakSanitizer. */
struct sp_node *sp_fuzz_node(void);

/*
 * text is one JSON-RPC 2.0 response object: "jsonrpc": "2.0", an id, and
 * exactly one of result and error, an error with an integer code and a
 * message. Aborts (through SP_TEST_CHECK) otherwise.
 */
void sp_fuzz_check_answer(const char *text);

/* Every slice's filters within its quota, in position order; the NPE's quota sums match. */
void sp_fuzz_check_slices(const struct sp_node *node);

#endif
