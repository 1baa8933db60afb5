/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A model node for sp-bench-fleet: what a slicectld in front of a
 * slicepathd keeps of slices (their endpoints, queues and filters), in
 * memory, answering the methods the cluster applier calls. It stands in for
 * the node where a fleet of 100 real ones cannot run on one machine; the
 * etcd side (lease, watch, status) is the real applier's.
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slicepath/methods.h>

#define MODEL_RATE 10000000000LL /* one 10 Gb/s interface */

struct model {
	json_t *slices; /* name -> {"endpoints": [...], "queues": {...}, "filters": {pos: f}} */
};

struct model *
model_new(void)
{
	struct model *m = calloc(1, sizeof(*m));

	if (m != NULL)
		m->slices = json_object();
	return m;
}

void
model_free(struct model *m)
{
	if (m == NULL)
		return;
	json_decref(m->slices);
	free(m);
}

static json_t *
refuse(char *why, size_t len, const char *method, const char *msg)
{
	snprintf(why, len, "%s: %s", method, msg);
	return NULL;
}

static json_t *
filters_list(json_t *s)
{
	json_t *list = json_array(), *f;
	const char *pos;

	json_object_foreach(json_object_get(s, "filters"), pos, f)
		json_array_append(list, f);
	return list;
}

static void
filter_put(json_t *s, json_t *f)
{
	char pos[24];

	snprintf(pos, sizeof(pos), "%" JSON_INTEGER_FORMAT,
		 json_integer_value(json_object_get(f, "position")));
	json_object_set(json_object_get(s, "filters"), pos, f);
}

json_t *
model_apply(void *ctx, const char *method, json_t *params, char *why, size_t len)
{
	struct model *m = ctx;
	const char *name = json_string_value(json_object_get(params, "slice"));
	json_t *s = name != NULL ? json_object_get(m->slices, name) : NULL, *r = NULL, *f;
	size_t i;

	if (strcmp(method, SP_M_IFACE_LIST) == 0) {
		r = json_pack("[{s:s, s:I}]", "name", "p0", "rate", (json_int_t)MODEL_RATE);
	} else if (strcmp(method, SP_M_SLICE_LIST) == 0) {
		const char *n;
		json_t *v;

		r = json_array();
		json_object_foreach(m->slices, n, v)
			json_array_append_new(r, json_pack("{s:s, s:b}", "name", n, "managed", 1));
	} else if (strcmp(method, SP_M_SLICE_CREATE) == 0) {
		json_object_set_new(m->slices, json_string_value(json_object_get(params, "name")),
				    json_pack("{s:[], s:{}, s:{}}", "endpoints", "queues",
					      "filters"));
		r = json_object();
	} else if (s == NULL) {
		r = refuse(why, len, method, "no such slice");
	} else if (strcmp(method, SP_M_SLICE_DELETE) == 0) {
		json_object_del(m->slices, name);
		r = json_object();
	} else if (strcmp(method, SP_M_STATS_GET) == 0) {
		r = json_pack("{s:O, s:O}", "endpoints", json_object_get(s, "endpoints"), "queues",
			      json_object_get(s, "queues"));
	} else if (strcmp(method, SP_M_ENDPOINT_RESERVE) == 0) {
		json_t *eps = json_object_get(s, "endpoints"), *ep = json_deep_copy(params);

		json_object_del(ep, "slice");
		json_object_set_new(ep, "index", json_integer((json_int_t)json_array_size(eps)));
		r = json_pack("{s:I}", "endpoint", (json_int_t)json_array_size(eps));
		json_array_append_new(eps, ep);
	} else if (strcmp(method, SP_M_QUEUE_BIND) == 0 || strcmp(method, SP_M_QUEUE_SET) == 0) {
		char q[24];
		json_t *v = json_deep_copy(params);

		snprintf(q, sizeof(q), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(params, "queue")));
		json_object_del(v, "slice");
		json_object_set_new(json_object_get(s, "queues"), q, v);
		r = json_object();
	} else if (strcmp(method, SP_M_FILTER_LIST) == 0) {
		r = filters_list(s);
	} else if (strcmp(method, SP_M_FILTER_INSERT) == 0) {
		if (json_object_get(params, "filters") != NULL)
			json_array_foreach(json_object_get(params, "filters"), i, f)
				filter_put(s, f);
		else
			filter_put(s, params);
		r = json_object();
	} else if (strcmp(method, SP_M_FILTER_DELETE) == 0) {
		char pos[24];

		snprintf(pos, sizeof(pos), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(params, "position")));
		json_object_del(json_object_get(s, "filters"), pos);
		r = json_object();
	} else {
		r = refuse(why, len, method, "not in the model");
	}
	json_decref(params);
	return r;
}
