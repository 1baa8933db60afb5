/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A filter in the API's JSON form (docs/api.md): {"position", "key",
 * "mask", "result": {"endpoint", "queue", "next_hop", "data"}}, both ways,
 * for slicepathd's methods, the config, libslicectl and slicectl alike.
 * Each field's name is written here only. No DPDK.
 */
#ifndef SP_FILTER_JSON_H
#define SP_FILTER_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include <slicepath/key.h>

#include "jsonrpc.h"

#define SP_FILTER_POSITION "position"
#define SP_FILTER_KEY "key"
#define SP_FILTER_MASK "mask"
#define SP_FILTER_RESULT "result"
#define SP_FILTER_HITS "hits" /* filter.list's, beside the fields */
#define SP_RESULT_ENDPOINT "endpoint"
#define SP_RESULT_QUEUE "queue"
#define SP_RESULT_NEXT_HOP "next_hop"
#define SP_RESULT_DATA "data"

/* The fields of a filter, and of its result, in the order written: X(name). */
#define SP_FILTER_FIELDS(X)                                                                        \
	X(SP_FILTER_POSITION) X(SP_FILTER_KEY) X(SP_FILTER_MASK) X(SP_FILTER_RESULT)
#define SP_RESULT_FIELDS(X)                                                                        \
	X(SP_RESULT_ENDPOINT) X(SP_RESULT_QUEUE) X(SP_RESULT_NEXT_HOP) X(SP_RESULT_DATA)

/* A list as an array's elements: {SP_FILTER_FIELDS(SP_FIELD_ELEMENT) NULL}. */
#define SP_FIELD_ELEMENT(name) name,
/* A list as text, each name after a separator then skipped (SP_FILTER_KEYS). */
#define SP_FIELD_SPACED(name) " " name
#define SP_FIELD_LISTED(name) ", " name

/* The lists as sp_rpc_known_keys() takes them: "position key mask result". */
#define SP_FILTER_KEYS (&(SP_FILTER_FIELDS(SP_FIELD_SPACED))[1])
#define SP_RESULT_KEYS (&(SP_RESULT_FIELDS(SP_FIELD_SPACED))[1])
/* The filter's for people: "position, key, mask, result". */
#define SP_FILTER_FIELD_NAMES (&(SP_FILTER_FIELDS(SP_FIELD_LISTED))[2])

/* Whether two results say the same, field by field (never their padding). */
bool sp_result_equal(const struct sp_result *a, const struct sp_result *b);

/* The JSON of a filter (a new reference). */
json_t *sp_filter_json(uint32_t position, const struct sp_key *key, const struct sp_key *mask,
		       const struct sp_result *r);

/*
 * The same from text as a person gave it, for the server to check: a
 * result's next_hop and data (NULL: none), a filter's position (beyond
 * UINT32_MAX refused there, not wrapped here) with result (taken over).
 */
json_t *sp_result_json_text(uint16_t endpoint, uint16_t queue, const char *next_hop,
			    const char *data);
json_t *sp_filter_json_text(uint64_t position, const char *key, const char *mask, json_t *result);

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
