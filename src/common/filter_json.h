/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A filter in the API's JSON form (docs/api.md): {"position", "key",
 * "mask", "result": {"endpoint", "queue", "next_hop", "data"}}, both ways,
 * for slicepathd's methods and libslicectl alike. No DPDK.
 */
#ifndef SP_FILTER_JSON_H
#define SP_FILTER_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include <slicepath/key.h>

#include "jsonrpc.h"

/* The filter's keys, and its result's, as sp_rpc_known_keys() takes them. */
#define SP_FILTER_KEYS "position key mask result"
#define SP_RESULT_KEYS "endpoint queue next_hop data"

/* The JSON of a filter (a new reference). */
json_t *sp_filter_json(uint32_t position, const struct sp_key *key, const struct sp_key *mask,
		       const struct sp_result *r);

/*
 * Read a filter object: 0, or -1 with e filled (SP_RPC_INVALID_PARAMS) and
 * its message naming the field after where ("filters[3]." or ""). With
 * strict, keys a filter does not have are refused (where's own, and the
 * result's); the single filter of a request has its keys beside "slice",
 * which the method's own list checks.
 */
int sp_filter_from_json(json_t *o, const char *where, bool strict, uint32_t *position,
			struct sp_key *key, struct sp_key *mask, struct sp_result *r,
			struct sp_rpc_error *e);

#endif
