/* SPDX-License-Identifier: BSD-3-Clause */
/* The JSON-RPC 2.0 envelope, the method table and the parameter readers. */
#include "rpc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	sp_rpc_method fn;
} methods[] = {
	{"slice.create", sp_rpc_slice_create},
	{"slice.delete", sp_rpc_slice_delete},
	{"slice.list", sp_rpc_slice_list},
	{"endpoint.reserve", sp_rpc_endpoint_reserve},
	{"endpoint.release", sp_rpc_endpoint_release},
	{"filter.insert", sp_rpc_filter_insert},
	{"filter.delete", sp_rpc_filter_delete},
	{"filter.list", sp_rpc_filter_list},
	{"sched.set", sp_rpc_sched_set},
	{"queue.bind", sp_rpc_queue_bind},
	{"queue.unbind", sp_rpc_queue_unbind},
	{"queue.set", sp_rpc_queue_set},
	{"mem.read", sp_rpc_mem_read},
	{"mem.write", sp_rpc_mem_write},
	{"stats.get", sp_rpc_stats_get},
	{"state.dump", sp_rpc_state_dump},
	{"node.info", sp_rpc_node_info},
};

json_t *
sp_rpc_fail(struct sp_rpc_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof(e->message), fmt, ap);
	va_end(ap);
	/* Messages quote what the client sent: keep them printable ASCII, valid in any JSON. */
	for (char *c = e->message; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
	return NULL;
}

static const char *
type_name(const json_t *v)
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
			    ", got %s", key, max, json_is_integer(j) ? "one out of range" : type_name(j));
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
			    j == NULL ? "nothing" : type_name(j));
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
			    type_name(j));
		return -1;
	}
	*v = json_is_true(j);
	return 0;
}

int
sp_rpc_port(const struct sp_node *node, json_t *params, uint16_t *port, struct sp_rpc_error *e)
{
	const char *name;

	if (sp_rpc_string(params, "port", &name, e) < 0)
		return -1;
	for (*port = 0; *port < node->nb_ports; (*port)++)
		if (strcmp(node->ports[*port].name, name) == 0)
			return 0;
	sp_rpc_fail(e, SP_RPC_NOT_FOUND, "the node has no port \"%s\"", name);
	return -1;
}

/* "slice": a slice's name or node id. */
int
sp_rpc_slice(const struct sp_node *node, json_t *params, struct sp_slice **s,
	     struct sp_rpc_error *e)
{
	json_t *j = json_object_get(params, "slice");

	*s = NULL;
	if (json_is_integer(j)) {
		json_int_t id = json_integer_value(j);

		if (id > 0 && id < SP_MAX_SLICES)
			*s = node->slices[id];
		if (*s == NULL)
			sp_rpc_fail(e, SP_RPC_NOT_FOUND, "no slice has id %" JSON_INTEGER_FORMAT, id);
	} else if (json_is_string(j)) {
		for (unsigned int i = 0; i < SP_MAX_SLICES && *s == NULL; i++)
			if (node->slices[i] != NULL &&
			    strcmp(node->slices[i]->name, json_string_value(j)) == 0)
				*s = node->slices[i];
		if (*s == NULL)
			sp_rpc_fail(e, SP_RPC_NOT_FOUND, "no slice is named \"%s\"",
				    json_string_value(j));
	} else {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"slice\" must be a slice's name or id, got %s",
			    j == NULL ? "nothing" : type_name(j));
	}
	return *s == NULL ? -1 : 0;
}

static char *
respond(json_t *id, json_t *result, const struct sp_rpc_error *e)
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
	return respond(NULL, NULL, &e);
}

/* "slice.create, slice.delete, ...", for the unknown-method message. */
static const char *
method_names(void)
{
	static char names[512];

	if (names[0] == '\0')
		for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i > 0 ? ", " : "", methods[i].name);
	return names;
}

static sp_rpc_method
find(const char *name)
{
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i].name, name) == 0)
			return methods[i].fn;
	return NULL;
}

/* Check the envelope: the method, or NULL with e filled. */
static sp_rpc_method
check_request(json_t *req, json_t **params, struct sp_rpc_error *e)
{
	json_t *version = json_object_get(req, "jsonrpc"), *method = json_object_get(req, "method");
	json_t *id = json_object_get(req, "id");
	sp_rpc_method fn;

	*params = json_object_get(req, "params");
	if (!json_is_string(version) || strcmp(json_string_value(version), "2.0") != 0)
		sp_rpc_fail(e, SP_RPC_INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\"");
	else if (!json_is_string(method))
		sp_rpc_fail(e, SP_RPC_INVALID_REQUEST, "\"method\" must be a string");
	else if (id != NULL && !json_is_string(id) && !json_is_integer(id) && !json_is_null(id))
		sp_rpc_fail(e, SP_RPC_INVALID_REQUEST, "\"id\" must be a string, an integer or null");
	else if (*params != NULL && !json_is_object(*params))
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"params\" must be an object of named "
			    "parameters, got %s", type_name(*params));
	else if ((fn = find(json_string_value(method))) == NULL)
		sp_rpc_fail(e, SP_RPC_METHOD_NOT_FOUND, "no method \"%s\"; the methods are %s",
			    json_string_value(method), method_names());
	else
		return fn;
	return NULL;
}

char *
sp_rpc_handle(struct sp_node *node, const char *line, size_t len)
{
	struct sp_rpc_error e = {0};
	json_t *req, *params, *result = NULL, *id;
	json_error_t je;
	sp_rpc_method fn;
	char *text;

	req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (req == NULL) {
		sp_rpc_fail(&e, SP_RPC_PARSE_ERROR, "not JSON: %s at column %d", je.text, je.column);
		return respond(NULL, NULL, &e);
	}
	if (!json_is_object(req)) {
		sp_rpc_fail(&e, SP_RPC_INVALID_REQUEST, "a request is one JSON object per line (no "
			    "batches), got %s", type_name(req));
		json_decref(req);
		return respond(NULL, NULL, &e);
	}
	id = json_object_get(req, "id");
	fn = check_request(req, &params, &e);
	if (fn != NULL) {
		json_t *empty = params == NULL ? json_object() : NULL;

		result = fn(node, params != NULL ? params : empty, &e);
		json_decref(empty);
	}
	/* A request without an id is a notification: done, nothing to answer. */
	text = id == NULL && fn != NULL ? NULL : respond(id, result, &e);
	if (text == NULL)
		json_decref(result);
	json_decref(req);
	return text;
}
