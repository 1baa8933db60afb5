/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the API fuzz targets (fuzz_rpc, fuzz_ctld): an in-memory
 * slicepathd node without lcores, and the JSON-RPC answer checks.
 */
#ifndef SP_FUZZ_NODE_H
#define SP_FUZZ_NODE_H

#include "node/node.h"

/* The one slice of the node's config, unmanaged. */
#define SP_FUZZ_SLICE 1
#define SP_FUZZ_QUOTA 64

/*
 * EAL, counters and the node (once): one NPE with 4096 filter positions and
 * 64 queues, ports p0 and p1 (10 Gb/s links and schedulers), and slice
 * alpha (id SP_FUZZ_SLICE): endpoints on p0 and p1 (UDP 5001, 100 Mb/s),
 * queue 0 bound on p1, SP_FUZZ_QUOTA filter positions, 256 bytes of memory.
 */
struct sp_node *sp_fuzz_node(void);

/*
 * text is one JSON-RPC 2.0 response object: "jsonrpc": "2.0", an id, and
 * exactly one of result and error, an error with an integer code and a
 * message. Aborts (through SP_FUZZ_CHECK) otherwise.
 */
void sp_fuzz_check_answer(const char *text);

/* Every slice's filters within its quota, in position order; the NPE's quota sums match. */
void sp_fuzz_check_slices(const struct sp_node *node);

#endif
