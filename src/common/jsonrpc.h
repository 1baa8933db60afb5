/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The JSON-RPC 2.0 side every slicepath server shares (slicepathd's
 * management socket, slicectld's public one): one request object per line
 * in, one response line out; errors with the stable codes of
 * slicepath/proto.h; readers for named parameters that say exactly what was
 * wrong. No DPDK, no sockets: the servers bring their own.
 */
#ifndef SP_JSONRPC_H
#define SP_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "json.h"

#include <slicepath/proto.h>

struct sp_rpc_error {
	int code; /* SP_RPC_* of slicepath/proto.h */
	char message[512];
};

/*
 * A server's methods: the result of method (a new reference), or NULL with
 * e filled. params is an object (an absent one comes as an empty object).
 * An unknown method is answered with sp_method_find()'s refusal (method_list.h).
 */
typedef json_t *(*sp_rpc_dispatch)(void *ctx, const char *method, json_t *params,
				   struct sp_rpc_error *e);

/*
 * Handle one request line (without its newline). Returns the response line
 * (malloc'd, no newline) or NULL when nothing is to be sent (a
 * notification of a method that exists).
 */
char *sp_rpc_handle_line(const char *line, size_t len, sp_rpc_dispatch dispatch, void *ctx);
/* The response line to request id (NULL: none) with result (stolen) or error e. */
char *sp_rpc_respond(json_t *id, json_t *result, const struct sp_rpc_error *e);
/* An error response to no request in particular (a line too long, a refused client). */
char *sp_rpc_error_line(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Fill e and return NULL, for `return sp_rpc_fail(e, ...)` in methods. */
json_t *sp_rpc_fail(struct sp_rpc_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Parameter readers: 0, or -1 with e filled (SP_RPC_INVALID_PARAMS). */
int sp_rpc_uint(json_t *obj, const char *key, uint64_t max, uint64_t *v, struct sp_rpc_error *e);
int sp_rpc_string(json_t *obj, const char *key, const char **v, struct sp_rpc_error *e);
/* An optional whole number in [min, max]: *v is left as it is when absent. */
int sp_rpc_optional_uint(json_t *obj, const char *key, uint64_t min, uint64_t max, uint64_t *v,
			 struct sp_rpc_error *e);
/* An optional boolean: *v is left as it is when absent. */
int sp_rpc_optional_bool(json_t *obj, const char *key, bool *v, struct sp_rpc_error *e);
/*
 * Refuse a key of obj that allowed (names separated by spaces, "" for none)
 * does not list: 0, or -1 with e filled naming it and what what takes.
 * what names the object: a method ("slice.create") or a part ("filters[3]").
 */
int sp_rpc_known_keys(json_t *obj, const char *what, const char *allowed,
		      struct sp_rpc_error *e);
/*
 * "slice": a slice's name (*name set, *id 0) or id (*id set, *name NULL).
 * A name is never all digits (sp_slice_name_problem()), so a string of
 * digits is refused with a hint to give the id as a number.
 */
int sp_rpc_slice_ref(json_t *params, const char **name, int64_t *id, struct sp_rpc_error *e);

#endif
