/* SPDX-License-Identifier: BSD-3-Clause */
/* What the fleet looks like: its nodes, its slices, one slice on its nodes. */
#include "fleet_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slicepath/proto.h>

/* {} -> [{"node", "live", "seen", "slices", "used_slices", "bandwidth", "used_bandwidth"}] */
json_t *
fl_node_list(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	struct candidate *c;
	long n = fl_candidates(f, &c, e);
	json_t *list;

	(void)params;
	if (n < 0)
		return NULL;
	list = json_array();
	for (long i = 0; i < n; i++) {
		json_t *o = json_deep_copy(c[i].cap), *live = NULL;
		struct sp_rpc_error unseen = {0}; /* "seen" is left out, the list still given */
		char key[FLEET_KEY_LEN];
		int64_t mod;

		json_object_set_new(o, "node", json_string(c[i].node));
		json_object_set_new(o, "live", json_boolean(c[i].live));
		fleet_key(f, key, "live/%s", c[i].node);
		if (c[i].live && fl_read_json(f, key, &live, &mod, &unseen) == 1)
			json_object_set(o, "seen", json_object_get(live, "seen"));
		json_decref(live);
		json_array_append_new(list, o);
	}
	fl_candidates_free(c, n);
	return list;
}

/* {} -> [{"name", "codeopt", "nodes"}] */
json_t *
fl_slice_list(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	struct etcd_kv *kvs;
	char key[FLEET_KEY_LEN];
	json_t *list;
	long n;

	(void)params;
	fleet_key(f, key, FLEET_SLICES);
	n = etcd_get(f->etcd, key, true, &kvs, NULL);
	if (n < 0)
		return fl_etcd_failed(f, e);
	list = json_array();
	for (long i = 0; i < n; i++) {
		json_t *rec = json_loads(kvs[i].value, 0, NULL);

		json_array_append_new(list, json_pack("{s:s, s:O, s:O}", "name",
						      fl_key_name(kvs[i].key), "codeopt",
						      json_object_get(json_object_get(rec, "create"),
								      "codeopt"),
						      "nodes", json_object_get(rec, "nodes")));
		json_decref(rec);
	}
	etcd_kvs_free(kvs, (size_t)n);
	return list;
}

/* {"slice"} -> {"name", "revision", "nodes": [{"node", "live", "state", "reason", "revision"}]} */
json_t *
fl_slice_status(struct fleet *f, json_t *params, struct sp_rpc_error *e)
{
	const char *name = fl_slice_name(params, "slice", e);
	int64_t mod, smod;
	json_t *rec = name != NULL ? fl_record(f, name, &mod, e) : NULL, *nodes, *node, *out;
	size_t i;

	if (rec == NULL)
		return NULL;
	nodes = json_array();
	json_array_foreach(json_object_get(rec, "nodes"), i, node) {
		const char *n = json_string_value(node);
		char key[FLEET_KEY_LEN];
		json_t *st, *live, *o;

		fleet_key(f, key, "status/%s/%s", n, name);
		if (fl_read_json(f, key, &st, &smod, e) < 0)
			break;
		fleet_key(f, key, "live/%s", n);
		if (fl_read_json(f, key, &live, &smod, e) < 0) {
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

