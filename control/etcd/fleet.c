/* SPDX-License-Identifier: BSD-3-Clause */
#include "fleet.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slicepath/proto.h>

#include "common/method_list.h"
#include "fleet_int.h"

/* The handler of each method the list gives the fleet (slicepath/methods.h). */
static const fl_method handlers[SP_METHOD_COUNT] = {
	[SP_METHOD_SLICE_CREATE] = fl_slice_create,
	[SP_METHOD_SLICE_DELETE] = fl_slice_delete,
	[SP_METHOD_SLICE_LIST] = fl_slice_list,
	[SP_METHOD_SLICE_STATUS] = fl_slice_status,
	[SP_METHOD_SLICE_REPLACE] = fl_slice_replace,
	[SP_METHOD_POLICY_GET] = fl_policy_get,
	[SP_METHOD_POLICY_SET] = fl_policy_set,
	[SP_METHOD_NODE_LIST] = fl_node_list,
	[SP_METHOD_ENDPOINT_RESERVE] = fl_endpoint_reserve,
	[SP_METHOD_ENDPOINT_RELEASE] = fl_endpoint_release,
	[SP_METHOD_QUEUE_BIND] = fl_queue_bind,
	[SP_METHOD_QUEUE_SET] = fl_queue_set,
	[SP_METHOD_QUEUE_UNBIND] = fl_queue_unbind,
	[SP_METHOD_FILTER_INSERT] = fl_filter_insert,
	[SP_METHOD_FILTER_DELETE] = fl_filter_delete,
	[SP_METHOD_FILTER_LIST] = fl_filter_list,
};

/* The first method the list gives the fleet that has no handler above, or NULL. */
static const char *
unhandled(void)
{
	for (int id = 0; id < SP_METHOD_COUNT; id++)
		if (sp_method_served(SP_ON_FLEET, id) && handlers[id] == NULL)
			return sp_method_name(id);
	return NULL;
}

struct fleet *
fleet_open(const struct etcd_opts *o, const char *prefix, char *err, size_t len)
{
	struct fleet *f = calloc(1, sizeof(*f));
	size_t n;

	if (unhandled() != NULL) { /* the list gained a method of the fleet's: handle it above */
		snprintf(err, len, "the fleet has no handler for %s", unhandled());
		free(f);
		return NULL;
	}
	prefix = prefix != NULL ? prefix : FLEET_DEFAULT_PREFIX;
	n = strlen(prefix);
	if (f == NULL || n == 0 || n >= sizeof(f->prefix) || prefix[n - 1] == '/') {
		snprintf(err, len, "the fleet's prefix \"%s\": 1 to %zu characters, no '/' at the "
			 "end", prefix, sizeof(f->prefix) - 1);
		free(f);
		return NULL;
	}
	snprintf(f->prefix, sizeof(f->prefix), "%s", prefix);
	f->etcd = etcd_open(o, err, len);
	if (f->etcd == NULL) {
		free(f);
		return NULL;
	}
	return f;
}

void
fleet_close(struct fleet *f)
{
	if (f != NULL)
		etcd_close(f->etcd);
	free(f);
}

void
fleet_split_user(char *s, struct etcd_opts *o)
{
	char *colon = strchr(s, ':');

	o->user = s;
	o->password = NULL;
	if (colon != NULL) {
		*colon = '\0';
		o->password = colon + 1;
	}
}

void
fleet_key(const struct fleet *f, char *key, const char *fmt, ...)
{
	int n = snprintf(key, FLEET_KEY_LEN, "%s/", f->prefix);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key + n, FLEET_KEY_LEN - (size_t)n, fmt, ap);
	va_end(ap);
}

long
fleet_filter_position(const char *key)
{
	const char *slash = strrchr(key, '/');
	char *end;
	long pos;

	if (slash == NULL || slash[1] == '\0')
		return -1;
	pos = strtol(slash + 1, &end, 10);
	return *end == '\0' && pos >= 0 ? pos : -1;
}

json_t *
fl_kept_changing(struct sp_rpc_error *e)
{
	return sp_rpc_fail(e, SP_RPC_BUSY, "the fleet's registry changed %d times under this "
			   "request; try again", MAX_TRIES);
}

json_t *
fl_etcd_failed(struct fleet *f, struct sp_rpc_error *e)
{
	return sp_rpc_fail(e, SP_RPC_UNAVAILABLE, "the fleet's registry: %s",
			   etcd_error(f->etcd));
}

/* The JSON at key: 1 (into *v, *mod its revision), 0 absent (*mod 0), -1 error (e filled). */
int
fl_read_json(struct fleet *f, const char *key, json_t **v, int64_t *mod, struct sp_rpc_error *e)
{
	struct etcd_kv *kvs;
	long n = etcd_get(f->etcd, key, false, &kvs, NULL);

	*v = NULL;
	*mod = 0;
	if (n < 0) {
		fl_etcd_failed(f, e);
		return -1;
	}
	if (n > 0) {
		*v = json_loads(kvs[0].value, 0, NULL);
		*mod = kvs[0].mod_revision;
	}
	etcd_kvs_free(kvs, (size_t)n);
	if (n > 0 && *v == NULL) {
		sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "the fleet's registry: %s is not JSON", key);
		return -1;
	}
	return n > 0;
}

json_t *
fl_op_put_json(const char *key, json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	json_t *op = etcd_op_put(key, text, 0);

	free(text);
	return op;
}

const char *
fl_key_name(const char *key)
{
	const char *slash = strrchr(key, '/');

	return slash != NULL ? slash + 1 : key;
}

uint64_t
fl_u64(json_t *o, const char *key, uint64_t dflt)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : dflt;
}

const char *
fl_slice_name(json_t *params, const char *key, struct sp_rpc_error *e)
{
	const char *name = json_string_value(json_object_get(params, key));

	if (name == NULL || *name == '\0' || strchr(name, '/') != NULL)
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\": a slice's name", key);
	return name != NULL && *name != '\0' && strchr(name, '/') == NULL ? name : NULL;
}

/* ------------------------------------------------------------- the record */

/* The slice's record and its revision, or NULL with e filled. */
json_t *
fl_record(struct fleet *f, const char *name, int64_t *mod, struct sp_rpc_error *e)
{
	char key[FLEET_KEY_LEN];
	json_t *rec;
	int rc;

	fleet_key(f, key, FLEET_SLICES "%s", name);
	rc = fl_read_json(f, key, &rec, mod, e);
	if (rc == 0)
		sp_rpc_fail(e, SP_RPC_NOT_FOUND, "the fleet has no slice %s", name);
	return rc == 1 ? rec : NULL;
}

json_t *
fleet_call(struct fleet *f, const char *method, json_t *params, struct sp_rpc_error *e)
{
	int id = sp_method_find(SP_ON_FLEET, method, e);

	if (id < 0 || sp_method_check_params(SP_ON_FLEET, id, params, e) < 0)
		return NULL;
	return handlers[id](f, params, e);
}
