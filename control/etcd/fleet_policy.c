/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fleet's policy (PREFIX/policy): for now whether slices leave a node
 * that stays down, and after how long. Every node's heartbeat enforces it;
 * the transactions of slice.replace make one of them win.
 */
#include "fleet_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slicepath/proto.h>

#define MAX_DOWN_AFTER (7 * 86400) /* a week */

json_t *
fl_policy_get(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	char key[FLEET_KEY_LEN];
	json_t *p;
	int64_t mod;

	(void)params;
	fleet_key(f, key, "policy");
	if (fl_read_json(f, key, &p, &mod, e) < 0)
		return NULL;
	return p != NULL ? p : json_pack("{s:i}", "replace_down_after", 0);
}

/* {"replace_down_after": seconds (0: never)} -> the policy now */
json_t *
fl_policy_set(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	json_t *v = json_object_get(params, "replace_down_after"), *p;
	char key[FLEET_KEY_LEN], *text;
	int rc;

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    json_integer_value(v) > MAX_DOWN_AFTER)
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"replace_down_after\": seconds a node "
				   "stays down before its slices go elsewhere, 0 (never) to %d",
				   MAX_DOWN_AFTER);
	p = json_pack("{s:O}", "replace_down_after", v);
	text = json_dumps(p, JSON_COMPACT | JSON_SORT_KEYS);
	fleet_key(f, key, "policy");
	rc = etcd_put(f->etcd, key, text, 0, NULL);
	free(text);
	if (rc < 0) {
		json_decref(p);
		return fl_etcd_failed(f, e);
	}
	return p;
}

json_t *
fleet_replace_down(struct fleet *f, json_t *down_since, double now)
{
	struct sp_rpc_error e = {0};
	json_t *policy = fl_policy_get(f, NULL, &e), *done = json_array();
	int64_t after = json_integer_value(json_object_get(policy, "replace_down_after"));
	struct candidate *c;
	struct etcd_kv *kvs = NULL;
	char key[FLEET_KEY_LEN];
	long n = after > 0 ? fl_candidates(f, &c, &e) : -1, ns;

	json_decref(policy);
	if (n < 0) {
		json_object_clear(down_since); /* no policy, or the registry unreachable */
		return done;
	}
	for (long i = 0; i < n; i++) {
		if (c[i].live)
			json_object_del(down_since, c[i].node);
		else if (json_object_get(down_since, c[i].node) == NULL)
			json_object_set_new(down_since, c[i].node, json_real(now));
	}
	fl_candidates_free(c, n);
	fleet_key(f, key, FLEET_SLICES);
	ns = json_object_size(down_since) > 0 ? etcd_get(f->etcd, key, true, &kvs, NULL) : 0;
	for (long k = 0; k < ns; k++) {
		json_t *rec = json_loads(kvs[k].value, 0, NULL), *node;
		size_t i;

		json_array_foreach(json_object_get(rec, "nodes"), i, node) {
			json_t *since = json_object_get(down_since, json_string_value(node) ?: "");
			json_t *p, *r;

			if (since == NULL || now - json_real_value(since) < (double)after)
				continue;
			p = json_pack("{s:s, s:O}", "slice", fl_key_name(kvs[k].key), "node",
				      node);
			memset(&e, 0, sizeof(e));
			r = fl_slice_replace(f, p, &e);
			if (r == NULL && e.code == SP_RPC_NOT_FOUND) {
				json_decref(p); /* another node moved (or deleted) it first */
				continue;
			}
			if (r == NULL)
				json_object_set_new(p, "error", json_string(e.message));
			else
				json_object_set(p, "to", json_object_get(r, "to"));
			json_decref(r);
			json_array_append_new(done, p);
		}
		json_decref(rec);
	}
	etcd_kvs_free(kvs, ns > 0 ? (size_t)ns : 0); /* no slice: an empty list still */
	return done;
}
