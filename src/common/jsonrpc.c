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

/* Whether word is one of the names of list (separated by spaces). */
static bool
listed(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list + strspn(list, " "); *p != '\0'; p += strcspn(p, " "),
	     p += strspn(p, " "))
		if (strncmp(p, word, len) == 0 && (p[len] == ' ' || p[len] == '\0'))
			return true;
	return false;
}

/* The names of list as "a, b, c" into out (len bytes), or "none". */
static void
joined(const char *list, char *out, size_t len)
{
	size_t n = 0;

	out[0] = '\0';
	for (const char *p = list + strspn(list, " "); *p != '\0' && n < len; p += strspn(p, " ")) {
		int w = (int)strcspn(p, " ");

		n += (size_t)snprintf(out + n, len - n, "%s%.*s", n > 0 ? ", " : "", w, p);
		p += w;
	}
	if (out[0] == '\0')
		snprintf(out, len, "none");
}

int
sp_rpc_known_keys(json_t *obj, const char *what, const char *allowed, struct sp_rpc_error *e)
{
	const char *key;
	char list[256];
	json_t *v;

	json_object_foreach(obj, key, v) {
		if (listed(allowed, key))
			continue;
		joined(allowed, list, sizeof(list));
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\" is not a parameter of %s, which takes "
			    "%s", key, what, list);
		return -1;
	}
	return 0;
}

int
sp_rpc_slice_ref(json_t *params, const char **name, int64_t *id, struct sp_rpc_error *e)
{
	json_t *j = json_object_get(params, "slice");

	*name = NULL;
	*id = 0;
	if (json_is_integer(j)) {
		*id = json_integer_value(j);
		return 0;
	}
	if (!json_is_string(j)) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"slice\" must be a slice's name or id, got %s",
			    j == NULL ? "nothing" : sp_json_type_name(j));
		return -1;
	}
	*name = json_string_value(j);
	if ((*name)[0] != '\0' && strspn(*name, "0123456789") == strlen(*name)) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"slice\": \"%.20s\" is a string of digits, "
			    "which no slice's name is; give a slice id as a number (\"slice\": %.20s)",
			    *name, *name);
		return -1;
	}
	return 0;
}

int
sp_rpc_uint(json_t *obj, const char *key, uint64_t max, uint64_t *v, struct sp_rpc_error *e)
{
	json_t *j = json_object_get(obj, key);
	char text[32];
	uint64_t u;

	if (j == NULL) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\" is missing", key);
		return -1;
	}
	if (!json_is_number(j) || !sp_json_whole(j, &u, text) || u > max) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\" must be a whole number from 0 to %" PRIu64
			    ", got %s", key, max,
			    json_is_number(j) ? text : sp_json_type_name(j));
		return -1;
	}
	*v = u;
	return 0;
}

int
sp_rpc_string(json_t *obj, const char *key, const char **v, struct sp_rpc_error *e)
{
	json_t *j = json_object_get(obj, key);

	if (j == NULL || !json_is_string(j)) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\" must be a string, got %s", key,
			    j == NULL ? "nothing" : sp_json_type_name(j));
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
			    sp_json_type_name(j));
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
			    "parameters, got %s", sp_json_type_name(*params));
	else
		return json_string_value(method);
	return NULL;
}

/* Nothing but JSON's whitespace: skipped, as an empty line is. */
static bool
blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '\n')
			return false;
	return true;
}

/* Beyond any parameter's range: 2^63, where json_int_t ends. */
#define INT_END 9223372036854775808.0

static bool
beyond_int(double v)
{
	return v >= INT_END || v < -INT_END;
}

/* The path (in path, "filters[2].position") of the first number in v beyond json_int_t. */
static bool
find_big(json_t *v, char *path, size_t cap)
{
	size_t at = strlen(path);
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_real(v))
		return beyond_int(json_real_value(v));
	json_object_foreach(v, key, item) {
		snprintf(path + at, cap - at, "%s%s", at > 0 ? "." : "", key);
		if (find_big(item, path, cap))
			return true;
	}
	json_array_foreach(v, i, item) {
		snprintf(path + at, cap - at, "[%zu]", i);
		if (find_big(item, path, cap))
			return true;
	}
	path[at] = '\0';
	return false;
}

/* A whole number written as a real (9.0, 1e0) within json_int_t. */
static bool
whole_real(const json_t *v)
{
	return json_is_real(v) && !beyond_int(json_real_value(v)) &&
	       json_real_value(v) == (double)(json_int_t)json_real_value(v);
}

/*
 * A request with a whole number beyond 64 bits is valid JSON that jansson
 * cannot hold: read again with every number as a real to say which
 * parameter, and to answer the request's id.
 */
static char *
too_big(const char *line, size_t len, const json_error_t *first)
{
	struct sp_rpc_error e = {.code = SP_RPC_INVALID_PARAMS};
	json_t *req = json_loadb(line, len, JSON_DECODE_INT_AS_REAL, NULL), *id = NULL;
	json_t *rid = json_object_get(req, "id");
	char path[256] = "";
	char *text;

	if (json_is_string(rid))
		id = json_incref(rid);
	else if (whole_real(rid))
		id = json_integer((json_int_t)json_real_value(rid));
	if (find_big(json_object_get(req, "params"), path, sizeof(path)))
		sp_rpc_fail(&e, SP_RPC_INVALID_PARAMS, "\"%s\" is beyond the 64-bit integers "
			    "slicepath takes", path);
	else
		sp_rpc_fail(&e, SP_RPC_INVALID_PARAMS, "a number at column %d is beyond the 64-bit "
			    "integers slicepath takes (%s)", first->column, first->text);
	text = sp_rpc_respond(id, NULL, &e);
	json_decref(id);
	json_decref(req);
	return text;
}

/*
 * One rule for every integer a request holds: a whole number written as a
 * real (9.0, 1e0) is that integer, wherever it stands ("slice", "position",
 * an offset, inside a filter); a fraction stays a real, which every integer
 * parameter refuses, naming it.
 */
static void
whole_reals_to_integers(json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;

	json_object_foreach(v, key, item) {
		if (whole_real(item))
			json_object_set_new(v, key, json_integer((json_int_t)json_real_value(item)));
		else
			whole_reals_to_integers(item);
	}
	json_array_foreach(v, i, item) {
		if (whole_real(item))
			json_array_set_new(v, i, json_integer((json_int_t)json_real_value(item)));
		else
			whole_reals_to_integers(item);
	}
}

char *
sp_rpc_handle_line(const char *line, size_t len, sp_rpc_dispatch dispatch, void *ctx)
{
	struct sp_rpc_error e = {0};
	json_t *req, *params, *result = NULL, *id;
	const char *method;
	json_error_t je;
	char *text;

	if (blank(line, len))
		return NULL;
	req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (req == NULL && json_error_code(&je) == json_error_numeric_overflow)
		return too_big(line, len, &je);
	if (req == NULL) {
		sp_rpc_fail(&e, SP_RPC_PARSE_ERROR, "not JSON: %s at column %d", je.text, je.column);
		return sp_rpc_respond(NULL, NULL, &e);
	}
	if (!json_is_object(req)) {
		sp_rpc_fail(&e, SP_RPC_INVALID_REQUEST, "a request is one JSON object per line (no "
			    "batches), got %s", sp_json_type_name(req));
		json_decref(req);
		return sp_rpc_respond(NULL, NULL, &e);
	}
	id = json_object_get(req, "id");
	method = check_request(req, &params, &e);
	if (method != NULL) {
		json_t *empty = params == NULL ? json_object() : NULL;

		whole_reals_to_integers(params);
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
