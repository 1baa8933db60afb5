/* SPDX-License-Identifier: BSD-3-Clause */
/* The JSON-RPC 2.0 envelope and the parameter readers (jsonrpc.h). */
#include "jsonrpc.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Messages quote what the client sent: keep them printable ASCII, valid in any JSON. */
static void
printable(char *s)
{
	for (char *c = s; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
}

json_t *
sp_rpc_fail(struct sp_rpc_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	printable(e->message);
	return NULL;
}

json_t *
sp_rpc_no_method(struct sp_rpc_error *e, const char *method, const char *const *names, size_t n)
{
	char list[1024] = "";

	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i > 0 ? ", " : "",
			 names[i]);
	return sp_rpc_fail(e, SP_RPC_METHOD_NOT_FOUND, "no method \"%s\"; the methods are %s",
			   method, list);
}

const char *
sp_rpc_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

int
sp_rpc_uint(json_t *obj, const char *key, uint64_t max, uint64_t *v, struct sp_rpc_error *e)
{
	json_t *j = json_object_get(obj, key);

	if (j == NULL) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\" is missing", key);
		return -1;
	}
	if (!json_is_integer(j) || json_integer_value(j) < 0 ||
	    (uint64_t)json_integer_value(j) > max) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\" must be a whole number from 0 to %" PRIu64
			    ", got %s", key, max,
			    json_is_integer(j) ? "one out of range" : sp_rpc_type_name(j));
		return -1;
	}
	*v = (uint64_t)json_integer_value(j);
	return 0;
}

int
sp_rpc_string(json_t *obj, const char *key, const char **v, struct sp_rpc_error *e)
{
	json_t *j = json_object_get(obj, key);

	if (j == NULL || !json_is_string(j)) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\" must be a string, got %s", key,
			    j == NULL ? "nothing" : sp_rpc_type_name(j));
		return -1;
	}
	*v = json_string_value(j);
	return 0;
}

int
sp_rpc_optional_uint(json_t *obj, const char *key, uint64_t min, uint64_t max, uint64_t *v,
		     struct sp_rpc_error *e)
{
	uint64_t got;

	if (json_object_get(obj, key) == NULL)
		return 0;
	if (sp_rpc_uint(obj, key, max, &got, e) < 0)
		return -1;
	if (got < min) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\" must be at least %" PRIu64, key, min);
		return -1;
	}
	*v = got;
	return 0;
}

int
sp_rpc_optional_bool(json_t *obj, const char *key, bool *v, struct sp_rpc_error *e)
{
	json_t *j = json_object_get(obj, key);

	if (j == NULL)
		return 0;
	if (!json_is_boolean(j)) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\" must be true or false, got %s", key,
			    sp_rpc_type_name(j));
		return -1;
	}
	*v = json_is_true(j);
	return 0;
}

char *
sp_rpc_respond(json_t *id, json_t *result, const struct sp_rpc_error *e)
{
	json_t *r = json_pack("{s:s, s:O}", "jsonrpc", "2.0", "id", id != NULL ? id : json_null());
	char *text;

	if (result != NULL)
		json_object_set_new(r, "result", result);
	else
		json_object_set_new(r, "error", json_pack("{s:i, s:s}", "code", e->code, "message",
							  e->message));
	text = json_dumps(r, JSON_COMPACT);
	json_decref(r);
	return text;
}

char *
sp_rpc_error_line(int code, const char *fmt, ...)
{
	struct sp_rpc_error e = {.code = code};
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e.message, sizeof(e.message), fmt, ap);
	va_end(ap);
	printable(e.message);
	return sp_rpc_respond(NULL, NULL, &e);
}

/* Check the envelope: the method's name, or NULL with e filled. */
static const char *
check_request(json_t *req, json_t **params, struct sp_rpc_error *e)
{
	json_t *version = json_object_get(req, "jsonrpc"), *method = json_object_get(req, "method");
	json_t *id = json_object_get(req, "id");

	*params = json_object_get(req, "params");
	if (!json_is_string(version) || strcmp(json_string_value(version), "2.0") != 0)
		sp_rpc_fail(e, SP_RPC_INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\"");
	else if (!json_is_string(method))
		sp_rpc_fail(e, SP_RPC_INVALID_REQUEST, "\"method\" must be a string");
	else if (id != NULL && !json_is_string(id) && !json_is_integer(id) && !json_is_null(id))
		sp_rpc_fail(e, SP_RPC_INVALID_REQUEST, "\"id\" must be a string, an integer or null");
	else if (*params != NULL && !json_is_object(*params))
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"params\" must be an object of named "
			    "parameters, got %s", sp_rpc_type_name(*params));
	else
		return json_string_value(method);
	return NULL;
}

char *
sp_rpc_handle_line(const char *line, size_t len, sp_rpc_dispatch dispatch, void *ctx)
{
	struct sp_rpc_error e = {0};
	json_t *req, *params, *result = NULL, *id;
	const char *method;
	json_error_t je;
	char *text;

	req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (req == NULL) {
		sp_rpc_fail(&e, SP_RPC_PARSE_ERROR, "not JSON: %s at column %d", je.text, je.column);
		return sp_rpc_respond(NULL, NULL, &e);
	}
	if (!json_is_object(req)) {
		sp_rpc_fail(&e, SP_RPC_INVALID_REQUEST, "a request is one JSON object per line (no "
			    "batches), got %s", sp_rpc_type_name(req));
		json_decref(req);
		return sp_rpc_respond(NULL, NULL, &e);
	}
	id = json_object_get(req, "id");
	method = check_request(req, &params, &e);
	if (method != NULL) {
		json_t *empty = params == NULL ? json_object() : NULL;

		result = dispatch(ctx, method, params != NULL ? params : empty, &e);
		json_decref(empty);
	}
	/* A request without an id is a notification: done, nothing to answer
	 * (unless it could not be taken for one: no such method, a bad envelope). */
	if (id == NULL && method != NULL && (result != NULL || e.code != SP_RPC_METHOD_NOT_FOUND)) {
		json_decref(result);
		text = NULL;
	} else {
		text = sp_rpc_respond(id, result, &e);
	}
	json_decref(req);
	return text;
}
