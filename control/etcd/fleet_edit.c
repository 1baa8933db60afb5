/* SPDX-License-Identifier: BSD-3-Clause */
/* A slice's record edited: its endpoints and queues; and its filters. */
#include "fleet_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slicepath/proto.h>

#include "common/filter_json.h"
#include "common/text.h"

/*
 * Change the slice's record with edit (the method's result, or NULL with e
 * filled) and write it, unless it changed meanwhile.
 */
static json_t *
edit_record(struct fleet *f, json_t *params,
	    json_t *(*edit)(json_t *rec, json_t *params, struct sp_rpc_error *e),
	    struct sp_rpc_error *e)
{
	const char *name = fl_slice_name(params, "slice", e);

	for (int tries = 0; name != NULL && tries < MAX_TRIES; tries++) {
		int64_t mod;
		json_t *rec = fl_record(f, name, &mod, e), *r, *ops;
		char key[FLEET_KEY_LEN];
		int held;

		if (rec == NULL)
			return NULL;
		r = edit(rec, params, e);
		if (r == NULL) {
			json_decref(rec);
			return NULL;
		}
		fleet_key(f, key, FLEET_SLICES "%s", name);
		ops = json_pack("[o]", fl_op_put_json(key, rec));
		json_decref(rec);
		held = etcd_txn(f->etcd, json_pack("[o]", etcd_cmp_mod(key, mod)), ops, NULL, NULL);
		if (held == 1)
			return r;
		json_decref(r);
		if (held < 0)
			return fl_etcd_failed(f, e);
	}
	return name == NULL ? NULL : fl_kept_changing(e);
}

/* The params a node replays: all but "slice". */
static json_t *
replayed(json_t *params)
{
	json_t *p = json_deep_copy(params);

	json_object_del(p, "slice");
	return p;
}

static json_t *
edit_reserve(json_t *rec, json_t *params, struct sp_rpc_error *e)
{
	json_t *eps = json_object_get(rec, "endpoints"), *ep;
	bool tcp = json_object_get(params, "tcp_port") != NULL;
	const char *proto = tcp ? "tcp_port" : "udp_port";
	uint64_t port = fl_u64(params, proto, 0), bw = fl_u64(params, "bandwidth", SP_DEFAULT_BANDWIDTH);
	uint64_t quota = fl_u64(json_object_get(rec, "create"), "bandwidth",
			     SP_DEFAULT_SLICE_BANDWIDTH), held = 0;
	unsigned int index = 0;
	bool used[SP_MAX_SLICE_ENDPOINTS] = {false};
	size_t i;

	if (port == 0 || port > UINT16_MAX)
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\": a fleet's endpoint names its "
				   "port (1 to 65535): each node must give the same", proto);
	json_array_foreach(eps, i, ep) {
		uint64_t idx = fl_u64(ep, "index", 0);

		if (idx < SP_MAX_SLICE_ENDPOINTS)
			used[idx] = true;
		held += fl_u64(ep, "bandwidth", SP_DEFAULT_BANDWIDTH);
		if (fl_u64(ep, proto, 0) == port && json_equal(json_object_get(ep, "port"),
							    json_object_get(params, "port")))
			return sp_rpc_fail(e, SP_RPC_EXISTS, "the slice holds %s %" PRIu64 " already",
					   proto, port);
	}
	while (index < SP_MAX_SLICE_ENDPOINTS && used[index])
		index++;
	if (index == SP_MAX_SLICE_ENDPOINTS)
		return sp_rpc_fail(e, SP_RPC_QUOTA, "the slice has %d endpoints, as many as a slice "
				   "may", SP_MAX_SLICE_ENDPOINTS);
	if (held + bw > quota) {
		char b[3][SP_RATE_STR_LEN];

		return sp_rpc_fail(e, SP_RPC_QUOTA, "the slice may reserve %s bit/s in all and "
				   "its endpoints hold %s; %s asked",
				   sp_format_rate(quota, b[0], sizeof(b[0])),
				   sp_format_rate(held, b[1], sizeof(b[1])),
				   sp_format_rate(bw, b[2], sizeof(b[2])));
	}
	ep = replayed(params);
	json_object_set_new(ep, "index", json_integer(index));
	json_array_append_new(eps, ep);
	return json_pack("{s:i, s:I}", "endpoint", index, proto, (json_int_t)port);
}

/* The index in "endpoints" of endpoint idx, or -1. */
static long
endpoint_at(json_t *rec, uint64_t idx)
{
	json_t *ep;
	size_t i;

	json_array_foreach(json_object_get(rec, "endpoints"), i, ep)
		if (fl_u64(ep, "index", UINT64_MAX) == idx)
			return (long)i;
	return -1;
}

static json_t *
edit_release(json_t *rec, json_t *params, struct sp_rpc_error *e)
{
	uint64_t idx = fl_u64(params, "endpoint", UINT64_MAX);
	long at = endpoint_at(rec, idx);
	const char *qid;
	json_t *q;

	if (at < 0)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "the slice has no endpoint %" PRIu64, idx);
	json_object_foreach(json_object_get(rec, "queues"), qid, q)
		if (fl_u64(q, "endpoint", UINT64_MAX) == idx)
			return sp_rpc_fail(e, SP_RPC_BUSY, "queue %s is bound to endpoint %" PRIu64
					   "; unbind it first", qid, idx);
	json_array_remove(json_object_get(rec, "endpoints"), (size_t)at);
	return json_pack("{s:I}", "released", (json_int_t)idx);
}

static json_t *
edit_queue(json_t *rec, json_t *params, struct sp_rpc_error *e, bool bind)
{
	uint64_t qid = fl_u64(params, "queue", UINT64_MAX);
	json_t *qs = json_object_get(rec, "queues"), *q, *p;
	char id[24];

	if (qid >= SP_MAX_SLICE_QUEUES)
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"queue\": 0 to %d",
				   SP_MAX_SLICE_QUEUES - 1);
	snprintf(id, sizeof(id), "%" PRIu64, qid);
	q = json_object_get(qs, id);
	if (bind && endpoint_at(rec, fl_u64(params, "endpoint", UINT64_MAX)) < 0)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "the slice has no endpoint %" PRIu64,
				   fl_u64(params, "endpoint", UINT64_MAX));
	if (!bind && q == NULL)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "the slice has no queue %s bound", id);
	p = replayed(params);
	json_object_del(p, "queue");
	if (q != NULL && !bind)
		json_object_update(q, p);
	else
		json_object_set(qs, id, p);
	json_decref(p);
	return json_pack("{s:O}", "queue", json_object_get(qs, id));
}

static json_t *
edit_bind(json_t *rec, json_t *params, struct sp_rpc_error *e)
{
	return edit_queue(rec, params, e, true);
}

static json_t *
edit_set(json_t *rec, json_t *params, struct sp_rpc_error *e)
{
	return edit_queue(rec, params, e, false);
}

static json_t *
edit_unbind(json_t *rec, json_t *params, struct sp_rpc_error *e)
{
	uint64_t qid = fl_u64(params, "queue", UINT64_MAX);
	char id[24];

	snprintf(id, sizeof(id), "%" PRIu64, qid);
	if (json_object_del(json_object_get(rec, "queues"), id) != 0)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "the slice has no queue %s bound", id);
	return json_pack("{s:I}", "unbound", (json_int_t)qid);
}

/*
 * Write (or, with del, delete) the slice's filters, ETCD_TXN_OPS a transaction,
 * each holding only while the slice's record is unchanged (the slice still
 * there): how many (*revision: the store's after the last), or -1 with e
 * filled.
 */
static long
write_filters(struct fleet *f, const char *name, json_t *filters, bool del, int64_t *revision,
	      struct sp_rpc_error *e)
{
	bool cached = f->cached_mod != 0 && strcmp(f->cached_name, name) == 0;
	int64_t mod = cached ? f->cached_mod : 0;
	json_t *ops = NULL, *flt;
	size_t i, done = 0;
	char key[FLEET_KEY_LEN], rkey[FLEET_KEY_LEN];

	if (!cached) {
		json_t *rec = fl_record(f, name, &mod, e);

		if (rec == NULL)
			return -1;
		json_decref(rec);
		f->cached_mod = mod;
		snprintf(f->cached_name, sizeof(f->cached_name), "%s", name);
	}
	fleet_key(f, rkey, FLEET_SLICES "%s", name);
	json_array_foreach(filters, i, flt) {
		json_int_t pos = json_integer_value(json_object_get(flt, SP_FILTER_POSITION));

		if (!json_is_integer(json_object_get(flt, SP_FILTER_POSITION)) || pos < 0 ||
		    pos > UINT32_MAX) {
			json_decref(ops);
			sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "filter %zu: \"" SP_FILTER_POSITION
				    "\" 0 to %u", i, UINT32_MAX);
			return -1;
		}
		if (ops == NULL)
			ops = json_array();
		fleet_key(f, key, FLEET_FILTERS "%s/%010" JSON_INTEGER_FORMAT, name, pos);
		json_array_append_new(ops, del ? etcd_op_delete(key, false) : fl_op_put_json(key, flt));
		if (json_array_size(ops) == ETCD_TXN_OPS || i + 1 == json_array_size(filters)) {
			int held = etcd_txn(f->etcd, json_pack("[o]", etcd_cmp_mod(rkey, mod)), ops,
					    NULL, revision);

			ops = NULL;
			if (held != 1) {
				f->cached_mod = 0;
				if (held == 0 && cached && done == 0) /* the revision was stale: read again */
					return write_filters(f, name, filters, del, revision, e);
				if (held < 0)
					fl_etcd_failed(f, e);
				else
					sp_rpc_fail(e, SP_RPC_BUSY, "slice %s changed while its "
						    "filters were written (%zu written); write them "
						    "again", name, done);
				return -1;
			}
			done = i + 1;
		}
	}
	return (long)done;
}

/*
 * {"slice", filter or "filters": [...]} -> {"written", "revision"}: the
 * slice is in force with them on a node whose status has that revision.
 */
json_t *
fl_filter_insert(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = fl_slice_name(params, "slice", e);
	json_t *list = json_object_get(params, "filters");
	int64_t rev = 0;
	long n;

	if (name == NULL)
		return NULL;
	list = list != NULL ? json_incref(list) : json_pack("[o]", replayed(params));
	n = write_filters(f, name, list, false, &rev, e);
	json_decref(list);
	return n < 0 ? NULL : json_pack("{s:I, s:I}", "written", (json_int_t)n, "revision",
					(json_int_t)rev);
}

/* {"slice", "position"} -> {"deleted", "revision"} */
json_t *
fl_filter_delete(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = fl_slice_name(params, "slice", e);
	json_t *pos = json_object_get(params, SP_FILTER_POSITION), *list;
	int64_t rev = 0;
	long n;

	if (name == NULL)
		return NULL;
	list = json_pack("[{s:O}]", SP_FILTER_POSITION, pos);
	n = write_filters(f, name, list, true, &rev, e);
	json_decref(list);
	return n < 0 ? NULL : json_pack("{s:O, s:I}", "deleted", pos, "revision", (json_int_t)rev);
}

/* {"slice"} -> its filters: [{"position", "key", ...}] */
json_t *
fl_filter_list(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = fl_slice_name(params, "slice", e);
	int64_t mod;
	json_t *rec = name != NULL ? fl_record(f, name, &mod, e) : NULL, *list;
	struct etcd_kv *kvs;
	char key[FLEET_KEY_LEN];
	long n;

	if (rec == NULL)
		return NULL;
	fleet_key(f, key, FLEET_FILTERS "%s/", name);
	json_decref(rec);
	n = etcd_get(f->etcd, key, true, &kvs, NULL);
	if (n < 0)
		return fl_etcd_failed(f, e);
	list = json_array();
	for (long i = 0; i < n; i++)
		json_array_append_new(list, json_loads(kvs[i].value, 0, NULL) ?: json_null());
	etcd_kvs_free(kvs, (size_t)n);
	return list;
}

/* The methods that edit the record: each its edit under edit_record's transaction. */
#define EDIT_METHOD(method, edit)                                                         \
	json_t *method(struct fleet *f, json_t *p, struct sp_rpc_error *e)                \
	{                                                                                 \
		return edit_record(f, p, edit, e);                                        \
	}
EDIT_METHOD(fl_endpoint_reserve, edit_reserve)
EDIT_METHOD(fl_endpoint_release, edit_release)
EDIT_METHOD(fl_queue_bind, edit_bind)
EDIT_METHOD(fl_queue_set, edit_set)
EDIT_METHOD(fl_queue_unbind, edit_unbind)
