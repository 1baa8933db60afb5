/* SPDX-License-Identifier: BSD-3-Clause */
/* Inside the fleet's registry (fleet.c and its parts): shared helpers and the methods. */
#ifndef SP_FLEET_INT_H
#define SP_FLEET_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "fleet.h"

#define MAX_TRIES 64   /* transactions retried after another writer changed what they read */

/* A node as placement sees it. */
struct candidate {
	char node[SP_NAME_LEN * 2];
	json_t *cap;
	int64_t mod;
	bool live;
};


/* Every one of MAX_TRIES transactions found what it read changed: e says so; NULL. */
json_t *fl_kept_changing(struct sp_rpc_error *e);
/* The registry is unreachable: e says so (SP_RPC_UNAVAILABLE); NULL. */
json_t *fl_etcd_failed(struct fleet *f, struct sp_rpc_error *e);
/* The JSON at key: 1 (into *v, *mod its revision), 0 absent (*mod 0), -1 error (e filled). */
int fl_read_json(struct fleet *f, const char *key, json_t **v, int64_t *mod,
		 struct sp_rpc_error *e);
/* A transaction's put of v (compact, sorted keys) at key. */
json_t *fl_op_put_json(const char *key, json_t *v);
/* The name a registry key ends with (after its last '/'; etcd's answer may lack one). */
const char *fl_key_name(const char *key);
/* The whole number at key of o, or dflt. */
uint64_t fl_u64(json_t *o, const char *key, uint64_t dflt);
/* params' key, a slice name (no '/'), or NULL with e filled. */
const char *fl_slice_name(json_t *params, const char *key, struct sp_rpc_error *e);
/* The slice's record and its revision, or NULL with e filled. */
json_t *fl_record(struct fleet *f, const char *name, int64_t *mod, struct sp_rpc_error *e);
/* Every node that joined (capacity/), whether live: how many, or -1 (e filled). */
long fl_candidates(struct fleet *f, struct candidate **out, struct sp_rpc_error *e);
void fl_candidates_free(struct candidate *c, long n);

/* The methods (fleet_call's table). */
typedef json_t *(*fl_method)(struct fleet *f, json_t *params, struct sp_rpc_error *e);
#define FL_METHOD(name) json_t *name(struct fleet *f, json_t *params, struct sp_rpc_error *e)
FL_METHOD(fl_slice_create);
FL_METHOD(fl_slice_delete);
FL_METHOD(fl_slice_replace);
FL_METHOD(fl_slice_list);
FL_METHOD(fl_slice_status);
FL_METHOD(fl_node_list);
FL_METHOD(fl_endpoint_reserve);
FL_METHOD(fl_endpoint_release);
FL_METHOD(fl_queue_bind);
FL_METHOD(fl_queue_set);
FL_METHOD(fl_queue_unbind);
FL_METHOD(fl_filter_insert);
FL_METHOD(fl_filter_delete);
FL_METHOD(fl_filter_list);
FL_METHOD(fl_policy_get);
FL_METHOD(fl_policy_set);

#endif
