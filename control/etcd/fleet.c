/* SPDX-License-Identifier: BSD-3-Clause */
#include "fleet.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slicepath/methods.h>
#include <slicepath/proto.h>

#define MAX_TRIES 64   /* transactions retried after another writer changed what they read */
#define TXN_OPS 128    /* etcd's default --max-txn-ops */
#define MAX_NODES 1024 /* a slice's, and those placement considers */

struct fleet *
fleet_open(const struct etcd_opts *o, const char *prefix, char *err, size_t len)
{
	struct fleet *f = calloc(1, sizeof(*f));
	size_t n;

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

static json_t *
etcd_failed(struct fleet *f, struct sp_rpc_error *e)
{
	return sp_rpc_fail(e, SP_RPC_UNAVAILABLE, "the fleet's registry: %s",
			   etcd_error(f->etcd));
}

/* The JSON at key: 1 (into *v, *mod its revision), 0 absent (*mod 0), -1 error (e filled). */
static int
read_json(struct fleet *f, const char *key, json_t **v, int64_t *mod, struct sp_rpc_error *e)
{
	struct etcd_kv *kvs;
	long n = etcd_get(f->etcd, key, false, &kvs, NULL);

	*v = NULL;
	*mod = 0;
	if (n < 0) {
		etcd_failed(f, e);
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

static json_t *
op_put_json(const char *key, json_t *v)
{
	char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	json_t *op = etcd_op_put(key, text, 0);

	free(text);
	return op;
}

static uint64_t
u64(json_t *o, const char *key, uint64_t dflt)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : dflt;
}

static const char *
slice_name(json_t *params, const char *key, struct sp_rpc_error *e)
{
	const char *name = json_string_value(json_object_get(params, key));

	if (name == NULL || *name == '\0' || strchr(name, '/') != NULL)
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\": a slice's name", key);
	return name != NULL && *name != '\0' && strchr(name, '/') == NULL ? name : NULL;
}

/* ------------------------------------------------------------- placement */

struct candidate {
	char node[SP_NAME_LEN * 2];
	json_t *cap;
	int64_t mod;
	bool live;
};

static int
by_load(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	uint64_t sx = u64(x->cap, "used_slices", 0), sy = u64(y->cap, "used_slices", 0);
	uint64_t bx = u64(x->cap, "used_bandwidth", 0), by = u64(y->cap, "used_bandwidth", 0);

	if (x->live != y->live)
		return x->live ? -1 : 1;
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return bx < by ? -1 : bx > by;
}

static bool
has_room(const struct candidate *c, uint64_t bw)
{
	return u64(c->cap, "used_slices", 0) < u64(c->cap, "slices", 0) &&
	       u64(c->cap, "used_bandwidth", 0) + bw <= u64(c->cap, "bandwidth", 0);
}

/* Every registered node (capacity/), live or not: the count, or -1 (e filled). */
static long
candidates(struct fleet *f, struct candidate **out, struct sp_rpc_error *e)
{
	struct etcd_kv *caps, *lives;
	char key[FLEET_KEY_LEN];
	long n, nl;

	fleet_key(f, key, "capacity/");
	n = etcd_get(f->etcd, key, true, &caps, NULL);
	fleet_key(f, key, "live/");
	nl = n < 0 ? -1 : etcd_get(f->etcd, key, true, &lives, NULL);
	if (n < 0 || nl < 0) {
		if (n >= 0)
			etcd_kvs_free(caps, (size_t)n);
		etcd_failed(f, e);
		return -1;
	}
	*out = calloc((size_t)n + 1, sizeof(**out));
	for (long i = 0; i < n; i++) {
		struct candidate *c = &(*out)[i];

		snprintf(c->node, sizeof(c->node), "%s", strrchr(caps[i].key, '/') + 1);
		c->cap = json_loads(caps[i].value, 0, NULL);
		if (c->cap == NULL)
			c->cap = json_object();
		c->mod = caps[i].mod_revision;
		for (long j = 0; j < nl; j++)
			c->live |= strcmp(strrchr(lives[j].key, '/') + 1, c->node) == 0;
	}
	etcd_kvs_free(caps, (size_t)n);
	etcd_kvs_free(lives, (size_t)nl);
	return n;
}

static void
candidates_free(struct candidate *c, long n)
{
	for (long i = 0; i < n; i++)
		json_decref(c[i].cap);
	free(c);
}

/* Move the chosen nodes of "nodes" (a count, or names) to the front of c: how many, or -1. */
static long
choose(json_t *want, struct candidate *c, long n, uint64_t bw, struct sp_rpc_error *e)
{
	long k = 0, live = 0;

	qsort(c, (size_t)n, sizeof(*c), by_load);
	if (json_is_array(want)) {
		size_t i;
		json_t *name;

		json_array_foreach(want, i, name) {
			long j = k;

			while (j < n && strcmp(c[j].node, json_string_value(name) ?: "") != 0)
				j++;
			if (j == n) {
				sp_rpc_fail(e, SP_RPC_NOT_FOUND, "no node %s has joined the fleet "
					    "(or it is named twice)", json_string_value(name) ?: "?");
				return -1;
			}
			if (!has_room(&c[j], bw)) {
				sp_rpc_fail(e, SP_RPC_NO_ROOM, "node %s has no room: %" PRIu64 " of %"
					    PRIu64 " slices, %" PRIu64 " of %" PRIu64 " bit/s given",
					    c[j].node, u64(c[j].cap, "used_slices", 0),
					    u64(c[j].cap, "slices", 0), u64(c[j].cap, "used_bandwidth", 0),
					    u64(c[j].cap, "bandwidth", 0));
				return -1;
			}
			struct candidate t = c[k];

			c[k++] = c[j];
			c[j] = t;
		}
		return k;
	}
	for (long j = 0; j < n && k < (long)json_integer_value(want); j++) {
		live += c[j].live;
		if (c[j].live && has_room(&c[j], bw)) {
			struct candidate t = c[k];

			c[k++] = c[j];
			c[j] = t;
		}
	}
	if (k < (long)json_integer_value(want)) {
		sp_rpc_fail(e, SP_RPC_NO_ROOM, "%" JSON_INTEGER_FORMAT " nodes asked; %ld of the %ld "
			    "live nodes have room for a slice of %" PRIu64 " bit/s",
			    json_integer_value(want), k, live, bw);
		return -1;
	}
	return k;
}

static void
take(json_t *cap, const char *key, int64_t by)
{
	json_object_set_new(cap, key, json_integer((json_int_t)u64(cap, key, 0) + by));
}

/* {"name", "codeopt", ..., "nodes": N or [NAMES]} -> {"name", "nodes"} */
static json_t *
slice_create(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = slice_name(params, "name", e);
	json_t *want = json_object_get(params, "nodes"), *create, *rec;
	uint64_t bw = u64(params, "bandwidth", SP_DEFAULT_SLICE_BANDWIDTH);
	char key[FLEET_KEY_LEN];

	if (name == NULL)
		return NULL;
	if (want == NULL)
		want = json_integer(1);
	else
		json_incref(want);
	if (!(json_is_integer(want) && json_integer_value(want) > 0 &&
	      json_integer_value(want) <= MAX_NODES) &&
	    !(json_is_array(want) && json_array_size(want) > 0)) {
		json_decref(want);
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"nodes\": how many (1 to %d), or "
				   "a list of node names", MAX_NODES);
	}
	create = json_deep_copy(params);
	json_object_del(create, "nodes");
	for (int tries = 0; tries < MAX_TRIES; tries++) {
		struct candidate *c;
		long n = candidates(f, &c, e), k;
		json_t *cmp, *ops, *nodes;
		int64_t mod;
		int held;

		if (n < 0)
			break;
		fleet_key(f, key, FLEET_SLICES "%s", name);
		if (read_json(f, key, &rec, &mod, e) != 0) {
			json_decref(rec);
			if (mod != 0)
				sp_rpc_fail(e, SP_RPC_EXISTS, "the fleet has a slice %s already", name);
			candidates_free(c, n);
			break;
		}
		k = choose(want, c, n, bw, e);
		if (k < 0) {
			candidates_free(c, n);
			break;
		}
		cmp = json_pack("[o]", etcd_cmp_mod(key, 0));
		ops = json_array();
		nodes = json_array();
		for (long i = 0; i < k; i++)
			json_array_append_new(nodes, json_string(c[i].node));
		rec = json_pack("{s:O, s:o, s:[], s:{}}", "create", create, "nodes", nodes,
				"endpoints", "queues");
		json_array_append_new(ops, op_put_json(key, rec));
		for (long i = 0; i < k; i++) {
			fleet_key(f, key, "capacity/%s", c[i].node);
			json_array_append_new(cmp, etcd_cmp_mod(key, c[i].mod));
			take(c[i].cap, "used_slices", 1);
			take(c[i].cap, "used_bandwidth", (int64_t)bw);
			json_array_append_new(ops, op_put_json(key, c[i].cap));
		}
		candidates_free(c, n);
		held = etcd_txn(f->etcd, cmp, ops, NULL, NULL);
		if (held < 0) {
			json_decref(rec);
			if (strstr(etcd_error(f->etcd), "too many operations") != NULL)
				sp_rpc_fail(e, SP_RPC_NO_ROOM, "a slice on %ld nodes is placed in one "
					    "transaction of %ld operations: start etcd with "
					    "--max-txn-ops of at least that (its default is 128)", k,
					    k + 1);
			else
				etcd_failed(f, e);
			break;
		}
		if (held == 1) {
			json_t *r = json_pack("{s:s, s:O}", "name", name, "nodes",
					      json_object_get(rec, "nodes"));

			json_decref(rec);
			json_decref(create);
			json_decref(want);
			return r;
		}
		json_decref(rec); /* another writer was first: read again */
	}
	if (e->code == 0)
		sp_rpc_fail(e, SP_RPC_BUSY, "the fleet's registry changed %d times under this "
			    "request; try again", MAX_TRIES);
	json_decref(create);
	json_decref(want);
	return NULL;
}

/* ------------------------------------------------------------- the record */

/* The slice's record and its revision, or NULL with e filled. */
static json_t *
record(struct fleet *f, const char *name, int64_t *mod, struct sp_rpc_error *e)
{
	char key[FLEET_KEY_LEN];
	json_t *rec;
	int rc;

	fleet_key(f, key, FLEET_SLICES "%s", name);
	rc = read_json(f, key, &rec, mod, e);
	if (rc == 0)
		sp_rpc_fail(e, SP_RPC_NOT_FOUND, "the fleet has no slice %s", name);
	return rc == 1 ? rec : NULL;
}

/* {"slice"}: the slice and its filters gone, its nodes' capacity given back. */
static json_t *
slice_delete(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = slice_name(params, "slice", e);

	for (int tries = 0; name != NULL && tries < MAX_TRIES; tries++) {
		int64_t mod;
		json_t *rec = record(f, name, &mod, e), *cmp, *ops, *node;
		uint64_t bw;
		char key[FLEET_KEY_LEN];
		size_t i;
		int held;

		if (rec == NULL)
			return NULL;
		bw = u64(json_object_get(rec, "create"), "bandwidth", SP_DEFAULT_SLICE_BANDWIDTH);
		fleet_key(f, key, FLEET_SLICES "%s", name);
		cmp = json_pack("[o]", etcd_cmp_mod(key, mod));
		ops = json_pack("[o]", etcd_op_delete(key, false));
		fleet_key(f, key, FLEET_FILTERS "%s/", name);
		json_array_append_new(ops, etcd_op_delete(key, true));
		json_array_foreach(json_object_get(rec, "nodes"), i, node) {
			const char *n = json_string_value(node);
			json_t *cap;
			int64_t cmod;

			fleet_key(f, key, "capacity/%s", n);
			if (read_json(f, key, &cap, &cmod, e) < 0) {
				json_decref(cmp);
				json_decref(ops);
				json_decref(rec);
				return NULL;
			}
			if (cap != NULL) {
				take(cap, "used_slices", -1);
				take(cap, "used_bandwidth", -(int64_t)bw);
				json_array_append_new(cmp, etcd_cmp_mod(key, cmod));
				json_array_append_new(ops, op_put_json(key, cap));
				json_decref(cap);
			}
		}
		json_decref(rec);
		held = etcd_txn(f->etcd, cmp, ops, NULL, NULL);
		if (held < 0)
			return etcd_failed(f, e);
		if (held == 1)
			return json_pack("{s:s}", "deleted", name);
	}
	return name == NULL ? NULL : sp_rpc_fail(e, SP_RPC_BUSY, "the fleet's registry kept "
						 "changing; try again");
}

/* The candidate named node, or NULL. */
static struct candidate *
candidate_named(struct candidate *c, long n, const char *node)
{
	for (long i = 0; i < n; i++)
		if (strcmp(c[i].node, node) == 0)
			return &c[i];
	return NULL;
}

/*
 * {"slice", "node"} -> {"name", "nodes", "from", "to"}: the slice off node
 * (down, say) onto the least loaded live node with room that does not hold
 * it; the old node deletes its copy when it sees the record (at once, or
 * when it returns).
 */
static json_t *
slice_replace(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = slice_name(params, "slice", e);
	const char *from = json_string_value(json_object_get(params, "node"));

	if (name != NULL && from == NULL)
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"node\": the node to move it off");
	for (int tries = 0; name != NULL && tries < MAX_TRIES; tries++) {
		int64_t mod;
		json_t *rec = record(f, name, &mod, e), *nodes, *node, *cmp, *ops, *r;
		uint64_t bw;
		struct candidate *c, *old, *to;
		long n, at = -1;
		char key[FLEET_KEY_LEN];
		size_t i;
		int held;

		if (rec == NULL)
			return NULL;
		nodes = json_object_get(rec, "nodes");
		json_array_foreach(nodes, i, node)
			if (strcmp(json_string_value(node) ?: "", from) == 0)
				at = (long)i;
		if (at < 0) {
			json_decref(rec);
			return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "slice %s is not on node %s", name,
					   from);
		}
		n = candidates(f, &c, e);
		if (n < 0) {
			json_decref(rec);
			return NULL;
		}
		json_array_foreach(nodes, i, node) { /* not onto a node that holds it already */
			struct candidate *held_by = candidate_named(c, n, json_string_value(node));

			if (held_by != NULL)
				held_by->live = false;
		}
		bw = u64(json_object_get(rec, "create"), "bandwidth", SP_DEFAULT_SLICE_BANDWIDTH);
		r = json_integer(1);
		if (choose(r, c, n, bw, e) < 0) {
			json_decref(r);
			json_decref(rec);
			candidates_free(c, n);
			return NULL;
		}
		json_decref(r);
		to = &c[0];
		old = candidate_named(c, n, from);
		fleet_key(f, key, FLEET_SLICES "%s", name);
		json_array_set_new(nodes, (size_t)at, json_string(to->node));
		cmp = json_pack("[o]", etcd_cmp_mod(key, mod));
		ops = json_pack("[o]", op_put_json(key, rec));
		for (struct candidate *x = to; x != NULL; x = x == to ? old : NULL) {
			fleet_key(f, key, "capacity/%s", x->node);
			take(x->cap, "used_slices", x == to ? 1 : -1);
			take(x->cap, "used_bandwidth", x == to ? (int64_t)bw : -(int64_t)bw);
			json_array_append_new(cmp, etcd_cmp_mod(key, x->mod));
			json_array_append_new(ops, op_put_json(key, x->cap));
		}
		r = json_pack("{s:s, s:O, s:s, s:s}", "name", name, "nodes", nodes, "from", from,
			      "to", to->node);
		json_decref(rec);
		candidates_free(c, n);
		held = etcd_txn(f->etcd, cmp, ops, NULL, NULL);
		if (held == 1)
			return r;
		json_decref(r);
		if (held < 0)
			return etcd_failed(f, e);
	}
	return name == NULL ? NULL : sp_rpc_fail(e, SP_RPC_BUSY, "the fleet's registry kept "
						 "changing; try again");
}

/*
 * Change the slice's record with edit (the method's result, or NULL with e
 * filled) and write it, unless it changed meanwhile.
 */
static json_t *
edit_record(struct fleet *f, json_t *params,
	    json_t *(*edit)(json_t *rec, json_t *params, struct sp_rpc_error *e),
	    struct sp_rpc_error *e)
{
	const char *name = slice_name(params, "slice", e);

	for (int tries = 0; name != NULL && tries < MAX_TRIES; tries++) {
		int64_t mod;
		json_t *rec = record(f, name, &mod, e), *r, *ops;
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
		ops = json_pack("[o]", op_put_json(key, rec));
		json_decref(rec);
		held = etcd_txn(f->etcd, json_pack("[o]", etcd_cmp_mod(key, mod)), ops, NULL, NULL);
		if (held == 1)
			return r;
		json_decref(r);
		if (held < 0)
			return etcd_failed(f, e);
	}
	return name == NULL ? NULL : sp_rpc_fail(e, SP_RPC_BUSY, "the fleet's registry kept "
						 "changing; try again");
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
	uint64_t port = u64(params, proto, 0), bw = u64(params, "bandwidth", SP_DEFAULT_BANDWIDTH);
	uint64_t quota = u64(json_object_get(rec, "create"), "bandwidth",
			     SP_DEFAULT_SLICE_BANDWIDTH), held = 0;
	unsigned int index = 0;
	bool used[SP_MAX_SLICE_ENDPOINTS] = {false};
	size_t i;

	if (port == 0 || port > UINT16_MAX)
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\": a fleet's endpoint names its "
				   "port (1 to 65535): each node must give the same", proto);
	json_array_foreach(eps, i, ep) {
		uint64_t idx = u64(ep, "index", 0);

		if (idx < SP_MAX_SLICE_ENDPOINTS)
			used[idx] = true;
		held += u64(ep, "bandwidth", SP_DEFAULT_BANDWIDTH);
		if (u64(ep, proto, 0) == port && json_equal(json_object_get(ep, "port"),
							    json_object_get(params, "port")))
			return sp_rpc_fail(e, SP_RPC_EXISTS, "the slice holds %s %" PRIu64 " already",
					   proto, port);
	}
	while (index < SP_MAX_SLICE_ENDPOINTS && used[index])
		index++;
	if (index == SP_MAX_SLICE_ENDPOINTS)
		return sp_rpc_fail(e, SP_RPC_QUOTA, "the slice has %d endpoints, as many as a slice "
				   "may", SP_MAX_SLICE_ENDPOINTS);
	if (held + bw > quota)
		return sp_rpc_fail(e, SP_RPC_QUOTA, "the slice may reserve %" PRIu64 " bit/s in all "
				   "and its endpoints hold %" PRIu64 "; %" PRIu64 " asked", quota,
				   held, bw);
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
		if (u64(ep, "index", UINT64_MAX) == idx)
			return (long)i;
	return -1;
}

static json_t *
edit_release(json_t *rec, json_t *params, struct sp_rpc_error *e)
{
	uint64_t idx = u64(params, "endpoint", UINT64_MAX);
	long at = endpoint_at(rec, idx);
	const char *qid;
	json_t *q;

	if (at < 0)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "the slice has no endpoint %" PRIu64, idx);
	json_object_foreach(json_object_get(rec, "queues"), qid, q)
		if (u64(q, "endpoint", UINT64_MAX) == idx)
			return sp_rpc_fail(e, SP_RPC_BUSY, "queue %s is bound to endpoint %" PRIu64
					   "; unbind it first", qid, idx);
	json_array_remove(json_object_get(rec, "endpoints"), (size_t)at);
	return json_pack("{s:I}", "released", (json_int_t)idx);
}

static json_t *
edit_queue(json_t *rec, json_t *params, struct sp_rpc_error *e, bool bind)
{
	uint64_t qid = u64(params, "queue", UINT64_MAX);
	json_t *qs = json_object_get(rec, "queues"), *q, *p;
	char id[24];

	if (qid >= SP_MAX_SLICE_QUEUES)
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"queue\": 0 to %d",
				   SP_MAX_SLICE_QUEUES - 1);
	snprintf(id, sizeof(id), "%" PRIu64, qid);
	q = json_object_get(qs, id);
	if (bind && endpoint_at(rec, u64(params, "endpoint", UINT64_MAX)) < 0)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "the slice has no endpoint %" PRIu64,
				   u64(params, "endpoint", UINT64_MAX));
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
	uint64_t qid = u64(params, "queue", UINT64_MAX);
	char id[24];

	snprintf(id, sizeof(id), "%" PRIu64, qid);
	if (json_object_del(json_object_get(rec, "queues"), id) != 0)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "the slice has no queue %s bound", id);
	return json_pack("{s:I}", "unbound", (json_int_t)qid);
}

/* ------------------------------------------------------------- filters */

/*
 * Write (or, with del, delete) the slice's filters, TXN_OPS a transaction,
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
		json_t *rec = record(f, name, &mod, e);

		if (rec == NULL)
			return -1;
		json_decref(rec);
		f->cached_mod = mod;
		snprintf(f->cached_name, sizeof(f->cached_name), "%s", name);
	}
	fleet_key(f, rkey, FLEET_SLICES "%s", name);
	json_array_foreach(filters, i, flt) {
		json_int_t pos = json_integer_value(json_object_get(flt, "position"));

		if (!json_is_integer(json_object_get(flt, "position")) || pos < 0 ||
		    pos > UINT32_MAX) {
			json_decref(ops);
			sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "filter %zu: \"position\" 0 to %u", i,
				    UINT32_MAX);
			return -1;
		}
		if (ops == NULL)
			ops = json_array();
		fleet_key(f, key, FLEET_FILTERS "%s/%010" JSON_INTEGER_FORMAT, name, pos);
		json_array_append_new(ops, del ? etcd_op_delete(key, false) : op_put_json(key, flt));
		if (json_array_size(ops) == TXN_OPS || i + 1 == json_array_size(filters)) {
			int held = etcd_txn(f->etcd, json_pack("[o]", etcd_cmp_mod(rkey, mod)), ops,
					    NULL, revision);

			ops = NULL;
			if (held != 1) {
				f->cached_mod = 0;
				if (held == 0 && cached && done == 0) /* the revision was stale: read again */
					return write_filters(f, name, filters, del, revision, e);
				if (held < 0)
					etcd_failed(f, e);
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
static json_t *
filter_insert(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = slice_name(params, "slice", e);
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
static json_t *
filter_delete(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = slice_name(params, "slice", e);
	int64_t rev = 0;
	json_t *list;
	long n;

	if (name == NULL)
		return NULL;
	list = json_pack("[{s:O}]", "position", json_object_get(params, "position"));
	n = write_filters(f, name, list, true, &rev, e);
	json_decref(list);
	return n < 0 ? NULL : json_pack("{s:O, s:I}", "deleted", json_object_get(params, "position"),
					"revision", (json_int_t)rev);
}

/* {"slice"} -> its filters: [{"position", "key", ...}] */
static json_t *
filter_list(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = slice_name(params, "slice", e);
	int64_t mod;
	json_t *rec = name != NULL ? record(f, name, &mod, e) : NULL, *list;
	struct etcd_kv *kvs;
	char key[FLEET_KEY_LEN];
	long n;

	if (rec == NULL)
		return NULL;
	fleet_key(f, key, FLEET_FILTERS "%s/", name);
	json_decref(rec);
	n = etcd_get(f->etcd, key, true, &kvs, NULL);
	if (n < 0)
		return etcd_failed(f, e);
	list = json_array();
	for (long i = 0; i < n; i++)
		json_array_append_new(list, json_loads(kvs[i].value, 0, NULL) ?: json_null());
	etcd_kvs_free(kvs, (size_t)n);
	return list;
}

/* ------------------------------------------------------------- views */

/* {} -> [{"node", "live", "seen", "slices", "used_slices", "bandwidth", "used_bandwidth"}] */
static json_t *
node_list(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	struct candidate *c;
	long n = candidates(f, &c, e);
	json_t *list;

	(void)params;
	if (n < 0)
		return NULL;
	list = json_array();
	for (long i = 0; i < n; i++) {
		json_t *o = json_deep_copy(c[i].cap), *live = NULL;
		char key[FLEET_KEY_LEN];
		int64_t mod;

		json_object_set_new(o, "node", json_string(c[i].node));
		json_object_set_new(o, "live", json_boolean(c[i].live));
		fleet_key(f, key, "live/%s", c[i].node);
		if (c[i].live && read_json(f, key, &live, &mod, e) == 1)
			json_object_set(o, "seen", json_object_get(live, "seen"));
		json_decref(live);
		json_array_append_new(list, o);
	}
	candidates_free(c, n);
	return list;
}

/* {} -> [{"name", "codeopt", "nodes"}] */
static json_t *
slice_list(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	struct etcd_kv *kvs;
	char key[FLEET_KEY_LEN];
	json_t *list;
	long n;

	(void)params;
	fleet_key(f, key, FLEET_SLICES);
	n = etcd_get(f->etcd, key, true, &kvs, NULL);
	if (n < 0)
		return etcd_failed(f, e);
	list = json_array();
	for (long i = 0; i < n; i++) {
		json_t *rec = json_loads(kvs[i].value, 0, NULL);

		json_array_append_new(list, json_pack("{s:s, s:O, s:O}", "name",
						      strrchr(kvs[i].key, '/') + 1, "codeopt",
						      json_object_get(json_object_get(rec, "create"),
								      "codeopt"),
						      "nodes", json_object_get(rec, "nodes")));
		json_decref(rec);
	}
	etcd_kvs_free(kvs, (size_t)n);
	return list;
}

/* {"slice"} -> {"name", "revision", "nodes": [{"node", "live", "state", "reason", "revision"}]} */
static json_t *
slice_status(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = slice_name(params, "slice", e);
	int64_t mod, smod;
	json_t *rec = name != NULL ? record(f, name, &mod, e) : NULL, *nodes, *node, *out;
	size_t i;

	if (rec == NULL)
		return NULL;
	nodes = json_array();
	json_array_foreach(json_object_get(rec, "nodes"), i, node) {
		const char *n = json_string_value(node);
		char key[FLEET_KEY_LEN];
		json_t *st, *live, *o;

		fleet_key(f, key, "status/%s/%s", n, name);
		if (read_json(f, key, &st, &smod, e) < 0)
			break;
		fleet_key(f, key, "live/%s", n);
		if (read_json(f, key, &live, &smod, e) < 0) {
			json_decref(st);
			break;
		}
		o = st != NULL ? st : json_pack("{s:s}", "state", "pending");
		json_object_set_new(o, "node", json_string(n));
		json_object_set_new(o, "live", json_boolean(live != NULL));
		json_decref(live);
		json_array_append_new(nodes, o);
	}
	json_decref(rec);
	if (e->code != 0) {
		json_decref(nodes);
		return NULL;
	}
	out = json_pack("{s:s, s:I, s:o}", "name", name, "revision", (json_int_t)mod, "nodes",
			nodes);
	return out;
}

/* ------------------------------------------------------------- dispatch */

static json_t *
do_reserve(struct fleet *f, json_t *p, struct sp_rpc_error *e)
{
	return edit_record(f, p, edit_reserve, e);
}

static json_t *
do_release(struct fleet *f, json_t *p, struct sp_rpc_error *e)
{
	return edit_record(f, p, edit_release, e);
}

static json_t *
do_bind(struct fleet *f, json_t *p, struct sp_rpc_error *e)
{
	return edit_record(f, p, edit_bind, e);
}

static json_t *
do_set(struct fleet *f, json_t *p, struct sp_rpc_error *e)
{
	return edit_record(f, p, edit_set, e);
}

static json_t *
do_unbind(struct fleet *f, json_t *p, struct sp_rpc_error *e)
{
	return edit_record(f, p, edit_unbind, e);
}

static const struct {
	const char *name;
	json_t *(*fn)(struct fleet *f, json_t *params, struct sp_rpc_error *e);
} methods[] = {
	{SP_M_SLICE_CREATE, slice_create},
	{SP_M_SLICE_DELETE, slice_delete},
	{SP_M_SLICE_LIST, slice_list},
	{SP_FLEET_SLICE_STATUS, slice_status},
	{SP_FLEET_SLICE_REPLACE, slice_replace},
	{SP_FLEET_NODE_LIST, node_list},
	{SP_M_ENDPOINT_RESERVE, do_reserve},
	{SP_M_ENDPOINT_RELEASE, do_release},
	{SP_M_QUEUE_BIND, do_bind},
	{SP_M_QUEUE_SET, do_set},
	{SP_M_QUEUE_UNBIND, do_unbind},
	{SP_M_FILTER_INSERT, filter_insert},
	{SP_M_FILTER_DELETE, filter_delete},
	{SP_M_FILTER_LIST, filter_list},
};

json_t *
fleet_call(struct fleet *f, const char *method, json_t *params, struct sp_rpc_error *e)
{
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i].name, method) == 0)
			return methods[i].fn(f, params, e);
	return sp_rpc_fail(e, SP_RPC_METHOD_NOT_FOUND, "a fleet has no method %s (it has: slice "
			   "create, delete, list, status, replace; node list; endpoint reserve, release; "
			   "queue bind, set, unbind; filter insert, delete, list)", method);
}
