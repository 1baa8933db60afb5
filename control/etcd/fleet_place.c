/* SPDX-License-Identifier: BSD-3-Clause */
/* Placement: slices onto nodes with room, off them, deleted; each one transaction. */
#include "fleet_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slicepath/proto.h>

#include "common/text.h"

static int
by_load(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	uint64_t sx = fl_u64(x->cap, "used_slices", 0), sy = fl_u64(y->cap, "used_slices", 0);
	uint64_t bx = fl_u64(x->cap, "used_bandwidth", 0), by = fl_u64(y->cap, "used_bandwidth", 0);

	if (x->live != y->live)
		return x->live ? -1 : 1;
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return bx < by ? -1 : bx > by;
}

static bool
has_room(const struct candidate *c, uint64_t bw)
{
	return fl_u64(c->cap, "used_slices", 0) < fl_u64(c->cap, "slices", 0) &&
	       fl_u64(c->cap, "used_bandwidth", 0) + bw <= fl_u64(c->cap, "bandwidth", 0);
}

/* Every registered node (capacity/), live or not: the count, or -1 (e filled). */
long
fl_candidates(struct fleet *f, struct candidate **out, struct sp_rpc_error *e)
{
	struct etcd_kv *caps, *lives;
	char key[FLEET_KEY_LEN];
	long n, nl, k = 0;

	fleet_key(f, key, "capacity/");
	n = etcd_get(f->etcd, key, true, &caps, NULL);
	fleet_key(f, key, "live/");
	nl = n < 0 ? -1 : etcd_get(f->etcd, key, true, &lives, NULL);
	if (n < 0 || nl < 0) {
		if (n >= 0)
			etcd_kvs_free(caps, (size_t)n);
		fl_etcd_failed(f, e);
		return -1;
	}
	*out = calloc((size_t)n + 1, sizeof(**out));
	for (long i = 0; i < n; i++) {
		struct candidate *c = &(*out)[k];
		const char *node = fl_key_name(caps[i].key);
		json_t *text = json_string(node);

		/* A name no node could have written (longer than a node's, not UTF-8 text,
		 * which every answer carrying it would need) is no candidate: skipped. */
		json_decref(text);
		if (text == NULL || node[0] == '\0' || strlen(node) >= sizeof(c->node))
			continue;
		k++;
		snprintf(c->node, sizeof(c->node), "%s", node);
		c->cap = json_loads(caps[i].value, 0, NULL);
		if (c->cap == NULL)
			c->cap = json_object();
		c->mod = caps[i].mod_revision;
		for (long j = 0; j < nl; j++)
			c->live |= strcmp(fl_key_name(lives[j].key), c->node) == 0;
	}
	etcd_kvs_free(caps, (size_t)n);
	etcd_kvs_free(lives, (size_t)nl);
	return k;
}

void
fl_candidates_free(struct candidate *c, long n)
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
				char b[2][SP_RATE_STR_LEN];

				sp_rpc_fail(e, SP_RPC_NO_ROOM, "node %s has no room: %" PRIu64 " of %"
					    PRIu64 " slices, %s of %s bit/s given", c[j].node,
					    fl_u64(c[j].cap, "used_slices", 0),
					    fl_u64(c[j].cap, "slices", 0),
					    sp_format_rate(fl_u64(c[j].cap, "used_bandwidth", 0), b[0],
							   sizeof(b[0])),
					    sp_format_rate(fl_u64(c[j].cap, "bandwidth", 0), b[1],
							   sizeof(b[1])));
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
		char b[SP_RATE_STR_LEN];

		sp_rpc_fail(e, SP_RPC_NO_ROOM, "%" JSON_INTEGER_FORMAT " nodes asked; %ld of the %ld "
			    "live nodes have room for a slice of %s bit/s",
			    json_integer_value(want), k, live, sp_format_rate(bw, b, sizeof(b)));
		return -1;
	}
	return k;
}

static void
take(json_t *cap, const char *key, int64_t by)
{
	json_object_set_new(cap, key, json_integer((json_int_t)fl_u64(cap, key, 0) + by));
}

/* {"name", "codeopt", ..., "nodes": N or [NAMES]} -> {"name", "nodes"} */
json_t *
fl_slice_create(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = fl_slice_name(params, "name", e);
	json_t *want = json_object_get(params, "nodes"), *create, *rec;
	uint64_t bw = fl_u64(params, "bandwidth", SP_DEFAULT_SLICE_BANDWIDTH);
	char key[FLEET_KEY_LEN];

	if (name == NULL)
		return NULL;
	if (want == NULL)
		want = json_integer(1);
	else
		json_incref(want);
	if (!(json_is_integer(want) && json_integer_value(want) > 0 &&
	      json_integer_value(want) <= FLEET_MAX_NODES) &&
	    !(json_is_array(want) && json_array_size(want) > 0)) {
		json_decref(want);
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"nodes\": how many (1 to %d), or "
				   "a list of node names", FLEET_MAX_NODES);
	}
	create = json_deep_copy(params);
	json_object_del(create, "nodes");
	for (int tries = 0; tries < MAX_TRIES; tries++) {
		struct candidate *c;
		long n = fl_candidates(f, &c, e), k;
		json_t *cmp, *ops, *nodes;
		int64_t mod;
		int held;

		if (n < 0)
			break;
		fleet_key(f, key, FLEET_SLICES "%s", name);
		if (fl_read_json(f, key, &rec, &mod, e) != 0) {
			json_decref(rec);
			if (mod != 0)
				sp_rpc_fail(e, SP_RPC_EXISTS, "the fleet has a slice %s already", name);
			fl_candidates_free(c, n);
			break;
		}
		k = choose(want, c, n, bw, e);
		if (k < 0) {
			fl_candidates_free(c, n);
			break;
		}
		cmp = json_pack("[o]", etcd_cmp_mod(key, 0));
		ops = json_array();
		nodes = json_array();
		for (long i = 0; i < k; i++)
			json_array_append_new(nodes, json_string(c[i].node));
		rec = json_pack("{s:O, s:o, s:[], s:{}}", "create", create, "nodes", nodes,
				"endpoints", "queues");
		json_array_append_new(ops, fl_op_put_json(key, rec));
		for (long i = 0; i < k; i++) {
			fleet_key(f, key, "capacity/%s", c[i].node);
			json_array_append_new(cmp, etcd_cmp_mod(key, c[i].mod));
			take(c[i].cap, "used_slices", 1);
			take(c[i].cap, "used_bandwidth", (int64_t)bw);
			json_array_append_new(ops, fl_op_put_json(key, c[i].cap));
		}
		fl_candidates_free(c, n);
		held = etcd_txn(f->etcd, cmp, ops, NULL, NULL);
		if (held < 0) {
			json_decref(rec);
			if (strstr(etcd_error(f->etcd), "too many operations") != NULL)
				sp_rpc_fail(e, SP_RPC_NO_ROOM, "a slice on %ld nodes is placed in one "
					    "transaction of %ld operations: start etcd with "
					    "--max-txn-ops of at least that (its default is 128)", k,
					    k + 1);
			else
				fl_etcd_failed(f, e);
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
		fl_kept_changing(e);
	json_decref(create);
	json_decref(want);
	return NULL;
}

/* {"slice"}: the slice and its filters gone, its nodes' capacity given back. */
json_t *
fl_slice_delete(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = fl_slice_name(params, "slice", e);

	for (int tries = 0; name != NULL && tries < MAX_TRIES; tries++) {
		int64_t mod;
		json_t *rec = fl_record(f, name, &mod, e), *cmp, *ops, *node;
		uint64_t bw;
		char key[FLEET_KEY_LEN];
		size_t i;
		int held;

		if (rec == NULL)
			return NULL;
		bw = fl_u64(json_object_get(rec, "create"), "bandwidth", SP_DEFAULT_SLICE_BANDWIDTH);
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
			if (fl_read_json(f, key, &cap, &cmod, e) < 0) {
				json_decref(cmp);
				json_decref(ops);
				json_decref(rec);
				return NULL;
			}
			if (cap != NULL) {
				take(cap, "used_slices", -1);
				take(cap, "used_bandwidth", -(int64_t)bw);
				json_array_append_new(cmp, etcd_cmp_mod(key, cmod));
				json_array_append_new(ops, fl_op_put_json(key, cap));
				json_decref(cap);
			}
		}
		json_decref(rec);
		held = etcd_txn(f->etcd, cmp, ops, NULL, NULL);
		if (held < 0)
			return fl_etcd_failed(f, e);
		if (held == 1)
			return json_pack("{s:s}", "deleted", name);
	}
	return name == NULL ? NULL : fl_kept_changing(e);
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
json_t *
fl_slice_replace(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = fl_slice_name(params, "slice", e);
	const char *from = json_string_value(json_object_get(params, "node"));

	if (name != NULL && from == NULL)
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"node\": the node to move it off");
	for (int tries = 0; name != NULL && tries < MAX_TRIES; tries++) {
		int64_t mod;
		json_t *rec = fl_record(f, name, &mod, e), *nodes, *node, *cmp, *ops, *r;
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
		n = fl_candidates(f, &c, e);
		if (n < 0) {
			json_decref(rec);
			return NULL;
		}
		/* Not onto a node that holds it already: every record of that name (etcd lists
		 * a key once; a reply that lists one twice must not make it a target). */
		json_array_foreach(nodes, i, node)
			for (long j = 0; j < n; j++)
				if (strcmp(c[j].node, json_string_value(node) ?: "") == 0)
					c[j].live = false;
		bw = fl_u64(json_object_get(rec, "create"), "bandwidth", SP_DEFAULT_SLICE_BANDWIDTH);
		r = json_integer(1);
		if (choose(r, c, n, bw, e) < 0) {
			json_decref(r);
			json_decref(rec);
			fl_candidates_free(c, n);
			return NULL;
		}
		json_decref(r);
		to = &c[0];
		old = candidate_named(c, n, from);
		fleet_key(f, key, FLEET_SLICES "%s", name);
		json_array_set_new(nodes, (size_t)at, json_string(to->node));
		cmp = json_pack("[o]", etcd_cmp_mod(key, mod));
		ops = json_pack("[o]", fl_op_put_json(key, rec));
		for (int j = 0; j < 2; j++) { /* the new node's capacity taken, the old's given back */
			struct candidate *x = j == 0 ? to : old;

			if (x == NULL)
				continue;
			fleet_key(f, key, "capacity/%s", x->node);
			take(x->cap, "used_slices", x == to ? 1 : -1);
			take(x->cap, "used_bandwidth", x == to ? (int64_t)bw : -(int64_t)bw);
			json_array_append_new(cmp, etcd_cmp_mod(key, x->mod));
			json_array_append_new(ops, fl_op_put_json(key, x->cap));
		}
		r = json_pack("{s:s, s:O, s:s, s:s}", "name", name, "nodes", nodes, "from", from,
			      "to", to->node);
		json_decref(rec);
		fl_candidates_free(c, n);
		held = etcd_txn(f->etcd, cmp, ops, NULL, NULL);
		if (held == 1)
			return r;
		json_decref(r);
		if (held < 0)
			return fl_etcd_failed(f, e);
	}
	return name == NULL ? NULL : fl_kept_changing(e);
}

