/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cluster mode's applier (cluster.c runs it): the registry's spec/ made this
 * node's state through its slicectld's methods, and statuses written back.
 */
#include "cluster_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slicepath/methods.h>

#include "common/clock.h"
#include "common/filter_json.h"

/* A method of this slicectld: its result, or NULL with why filled. */
static json_t *
local(struct cluster *c, const char *method, json_t *params, char *why, size_t len)
{
	json_t *r = NULL;

	if (c->cfg.apply != NULL)
		return c->cfg.apply(c->cfg.apply_ctx, method, params, why, len);
	if (c->ctl == NULL)
		c->ctl = sp_ctl_open(c->cfg.socket);
	if (c->ctl == NULL) {
		json_decref(params);
		snprintf(why, len, "this node's slicectld cannot be reached");
		return NULL;
	}
	if (sp_ctl_call_json(c->ctl, method, params, &r) == 0)
		return r;
	snprintf(why, len, "%s: %s", method, sp_ctl_error(c->ctl));
	if (sp_ctl_error_code(c->ctl) == 0) { /* the connection broke: a new one next time */
		sp_ctl_close(c->ctl);
		c->ctl = NULL;
	}
	return NULL;
}

/* The node's outbound capacity: its interfaces' rates together (0: unknown yet). */
uint64_t
cl_node_bandwidth(struct cluster *c)
{
	char why[256];
	json_t *list = local(c, SP_M_IFACE_LIST, NULL, why, sizeof(why)), *o;
	uint64_t sum = 0;
	size_t i;

	json_array_foreach(list, i, o)
		sum += (uint64_t)json_integer_value(json_object_get(o, "rate"));
	json_decref(list);
	return sum;
}

/* Whether this slicectld manages a slice named name. */
static bool
have_slice(struct cluster *c, const char *name, char *why, size_t len)
{
	json_t *list = local(c, SP_M_SLICE_LIST, NULL, why, len), *o;
	bool found = false;
	size_t i;

	json_array_foreach(list, i, o)
		found |= json_is_true(json_object_get(o, "managed")) &&
			 strcmp(json_string_value(json_object_get(o, "name")) ?: "", name) == 0;
	json_decref(list);
	return found;
}

static json_t *
with_slice(json_t *params, const char *name)
{
	json_t *p = json_deep_copy(params);

	json_object_set_new(p, "slice", json_string(name));
	return p;
}

/* The node's endpoints and queues of the slice to those of doc: 0, or -1 with why. */
static int
apply_endpoints_queues(struct cluster *c, const char *name, json_t *doc, char *why, size_t len)
{
	json_t *st = local(c, SP_M_STATS_GET, json_pack("{s:s}", "slice", name), why, len);
	json_t *have_eps, *have_qs, *want_qs = json_object_get(doc, "queues"), *o, *r;
	const char *qid;
	size_t i;
	int rc = 0;

	if (st == NULL)
		return -1;
	have_eps = json_object_get(st, "endpoints");
	have_qs = json_object_get(st, "queues");
	/* Queues no longer wanted, or bound elsewhere, go first: they hold endpoints. */
	json_object_foreach(have_qs, qid, o) {
		json_t *w = json_object_get(want_qs, qid);

		if (w == NULL || !json_equal(json_object_get(w, "endpoint"),
					     json_object_get(o, "endpoint")))
			json_decref(local(c, SP_M_QUEUE_UNBIND, json_pack("{s:s, s:i}", "slice",
					  name, "queue", atoi(qid)), why, len));
	}
	json_array_foreach(have_eps, i, o) {
		json_t *w, *want_index = json_object_get(o, "index");
		bool wanted = false;
		size_t k;

		json_array_foreach(json_object_get(doc, "endpoints"), k, w)
			wanted |= json_equal(json_object_get(w, "index"), want_index);
		if (!wanted)
			json_decref(local(c, SP_M_ENDPOINT_RELEASE, json_pack("{s:s, s:O}", "slice",
					  name, "endpoint", want_index), why, len));
	}
	json_array_foreach(json_object_get(doc, "endpoints"), i, o) {
		json_t *idx = json_object_get(o, "index"), *e, *p;
		bool have = false;
		size_t k;

		json_array_foreach(have_eps, k, e)
			have |= json_equal(json_object_get(e, "index"), idx);
		if (have)
			continue;
		p = with_slice(o, name);
		json_object_del(p, "index");
		r = local(c, SP_M_ENDPOINT_RESERVE, p, why, len);
		if (r == NULL || !json_equal(json_object_get(r, "endpoint"), idx)) {
			if (r != NULL)
				snprintf(why, len, "endpoint %" JSON_INTEGER_FORMAT " of the fleet's "
					 "record came out as %" JSON_INTEGER_FORMAT " here",
					 json_integer_value(idx),
					 json_integer_value(json_object_get(r, "endpoint")));
			rc = -1;
		}
		json_decref(r);
	}
	json_object_foreach(want_qs, qid, o) {
		json_t *h = json_object_get(have_qs, qid), *p;

		if (h != NULL && json_equal(json_object_get(h, "endpoint"),
					    json_object_get(o, "endpoint")) &&
		    json_equal(json_object_get(h, "share"), json_object_get(o, "share")))
			continue;
		p = with_slice(o, name);
		json_object_set_new(p, "queue", json_integer(atoi(qid)));
		if (h != NULL && json_equal(json_object_get(h, "endpoint"),
					    json_object_get(o, "endpoint")))
			json_object_del(p, "endpoint"); /* only the share changed */
		r = local(c, h != NULL && json_object_get(p, "endpoint") == NULL ? SP_M_QUEUE_SET
										  : SP_M_QUEUE_BIND,
			  p, why, len);
		rc = r == NULL ? -1 : rc;
		json_decref(r);
	}
	json_decref(st);
	return rc;
}

/* The slice as doc has it (created if new): 0, or -1 with why. */
static int
apply_slice(struct cluster *c, const char *name, json_t *doc, char *why, size_t len)
{
	json_t *r;

	if (!have_slice(c, name, why, len)) {
		if (why[0] != '\0')
			return -1;
		r = local(c, SP_M_SLICE_CREATE, json_deep_copy(json_object_get(doc, "create")), why,
			  len);
		if (r == NULL)
			return -1;
		json_decref(r);
	}
	return apply_endpoints_queues(c, name, doc, why, len);
}

/* The slice's filters to exactly filters (an array of filter.insert objects): 0 or -1. */
static int
apply_filters(struct cluster *c, const char *name, json_t *filters, char *why, size_t len)
{
	json_t *have = local(c, SP_M_FILTER_LIST, json_pack("{s:s}", "slice", name), why, len), *o;
	size_t i;

	if (have == NULL)
		return -1;
	json_array_foreach(json_object_get(have, "filters") ?: have, i, o) {
		json_t *pos = json_object_get(o, SP_FILTER_POSITION), *w;
		bool wanted = false;
		size_t k;

		json_array_foreach(filters, k, w)
			wanted |= json_equal(json_object_get(w, SP_FILTER_POSITION), pos);
		if (!wanted)
			json_decref(local(c, SP_M_FILTER_DELETE, json_pack("{s:s, s:O}", "slice", name,
					  SP_FILTER_POSITION, pos), why, len));
	}
	json_decref(have);
	if (json_array_size(filters) == 0)
		return 0;
	o = local(c, SP_M_FILTER_INSERT, json_pack("{s:s, s:O}", "slice", name, "filters", filters),
		  why, len);
	json_decref(o);
	return o != NULL ? 0 : -1;
}

/* The slice's filters as they were at revision at, applied: 0, or -1 with why. */
static int
apply_filters_at(struct cluster *c, const char *name, int64_t at, char *why, size_t len)
{
	char key[FLEET_KEY_LEN];
	struct etcd_kv *kvs;
	json_t *list;
	long n;
	int rc;

	fleet_key(c->apply, key, FLEET_FILTERS "%s/", name);
	n = etcd_get_at(c->apply->etcd, key, true, at, &kvs, NULL);
	if (n < 0) {
		snprintf(why, len, "reading its filters: %s", etcd_error(c->apply->etcd));
		return -1;
	}
	list = json_array();
	for (long i = 0; i < n; i++)
		json_array_append_new(list, json_loads(kvs[i].value, 0, NULL) ?: json_object());
	etcd_kvs_free(kvs, (size_t)n);
	rc = apply_filters(c, name, list, why, len);
	json_decref(list);
	return rc;
}

/* status/NODE/NAME, for the next flush: what the slice came to at revision (why "": in force). */
static void
note_status(struct cluster *c, const char *name, const char *why, int64_t revision)
{
	json_t *st = json_pack("{s:s, s:I, s:I}", "state", why[0] == '\0' ? "in_force" : "failed",
			       "revision", (json_int_t)revision, "at", (json_int_t)time(NULL));

	if (why[0] != '\0')
		json_object_set_new(st, "reason", json_string(why));
	json_object_set_new(c->pending, name, st);
}

/*
 * Write the noted statuses (a transaction per ETCD_TXN_OPS): at once with force
 * or a failure among them, else once next_flush has come. Kept for the next
 * try if etcd cannot take them.
 */
void
cl_flush_status(struct cluster *c, bool force)
{
	json_t *ops, *st;
	const char *name;
	bool failed = false, written = true;
	double t0 = sp_mono_seconds(), took;

	json_object_foreach(c->pending, name, st)
		failed |= json_object_get(st, "reason") != NULL;
	if (json_object_size(c->pending) == 0 || (!force && !failed && t0 < c->next_flush))
		return;
	ops = json_array();
	json_object_foreach(c->pending, name, st) {
		char key[FLEET_KEY_LEN], *text = json_dumps(st, JSON_COMPACT | JSON_SORT_KEYS);

		fleet_key(c->apply, key, "status/%s/%s", c->cfg.node, name);
		json_array_append_new(ops, etcd_op_put(key, text, 0));
		free(text);
		if (json_array_size(ops) == ETCD_TXN_OPS) {
			written &= etcd_txn(c->apply->etcd, json_array(), ops, NULL, NULL) == 1;
			ops = json_array();
		}
	}
	if (json_array_size(ops) > 0)
		written &= etcd_txn(c->apply->etcd, json_array(), ops, NULL, NULL) == 1;
	else
		json_decref(ops);
	if (written)
		json_object_clear(c->pending);
	took = (sp_mono_seconds() - t0) * STATUS_SPACING;
	c->next_flush = sp_mono_seconds() + (took < STATUS_MIN_S ? STATUS_MIN_S
						      : took > STATUS_MAX_S ? STATUS_MAX_S : took);
}

/* The slice is no longer the node's: deleted here, its status gone. */
static void
remove_slice(struct cluster *c, const char *name)
{
	char why[512] = "", key[FLEET_KEY_LEN];

	if (have_slice(c, name, why, sizeof(why)))
		json_decref(local(c, SP_M_SLICE_DELETE, json_pack("{s:s}", "slice", name), why,
				  sizeof(why)));
	if (why[0] != '\0')
		ctld_log("cluster: slice %s left this node's part of the fleet: %s", name, why);
	json_object_del(c->pending, name);
	fleet_key(c->apply, key, "status/%s/%s", c->cfg.node, name);
	etcd_delete(c->apply->etcd, key, false);
}

/* What follows spec/ in key: "slices/NAME" or "filters/NAME/POS" into kind, name. */
static bool
parse_key(const struct cluster *c, const char *key, char *kind, char *name)
{
	char spec[FLEET_KEY_LEN];
	size_t n;

	fleet_key(c->apply, spec, FLEET_SPEC);
	n = strlen(spec);
	return strncmp(key, spec, n) == 0 &&
	       sscanf(key + n, "%15[a-z]/%63[^/]", kind, name) == 2;
}

/* Whether the slice's record places it on this node. */
static bool
names_me(const struct cluster *c, json_t *doc)
{
	json_t *node;
	size_t i;

	json_array_foreach(json_object_get(doc, "nodes"), i, node)
		if (strcmp(json_string_value(node) ?: "", c->cfg.node) == 0)
			return true;
	return false;
}

/* Read spec/ whole and make the node its part: the revision read, or -1. */
int64_t
cl_full_sync(struct cluster *c)
{
	struct etcd_kv *kvs, *sts;
	char key[FLEET_KEY_LEN], unlisted[256];
	int64_t rev;
	long n, ns;
	json_t *slices = json_object(), *filters = json_object(), *doc, *local_list;
	const char *name;
	size_t i;

	fleet_key(c->apply, key, FLEET_SPEC);
	n = etcd_get(c->apply->etcd, key, true, &kvs, &rev);
	if (n < 0) {
		json_decref(slices);
		json_decref(filters);
		return -1;
	}
	for (long i = 0; i < n; i++) {
		char kind[16], nm[64];

		if (!parse_key(c, kvs[i].key, kind, nm))
			continue;
		if (strcmp(kind, "slices") == 0) {
			json_t *doc = json_loads(kvs[i].value, 0, NULL);

			if (doc != NULL && names_me(c, doc))
				json_object_set_new(slices, nm, doc);
			else
				json_decref(doc);
		} else if (strcmp(kind, "filters") == 0) {
			if (json_object_get(filters, nm) == NULL)
				json_object_set_new(filters, nm, json_array());
			json_array_append_new(json_object_get(filters, nm),
					      json_loads(kvs[i].value, 0, NULL) ?: json_object());
		}
	}
	etcd_kvs_free(kvs, (size_t)n);
	json_object_clear(c->mine);
	json_object_foreach(slices, name, doc) {
		char why[512] = "";

		json_object_set_new(c->mine, name, json_true());
		if (apply_slice(c, name, doc, why, sizeof(why)) == 0)
			apply_filters(c, name, json_object_get(filters, name) ?: json_array(), why,
				      sizeof(why));
		note_status(c, name, why, rev);
	}
	cl_flush_status(c, true);
	/*
	 * The registry is the node's desired state: a managed slice it does not
	 * place here goes (deleted or moved while the node was down, or made by
	 * hand), and so do statuses of slices no longer here.
	 */
	local_list = local(c, SP_M_SLICE_LIST, NULL, unlisted, sizeof(unlisted));
	json_array_foreach(local_list, i, doc) {
		const char *nm = json_string_value(json_object_get(doc, "name")) ?: "";

		if (json_is_true(json_object_get(doc, "managed")) &&
		    json_object_get(slices, nm) == NULL)
			remove_slice(c, nm);
	}
	json_decref(local_list);
	fleet_key(c->apply, key, "status/%s/", c->cfg.node);
	ns = etcd_get(c->apply->etcd, key, true, &sts, NULL);
	for (long k = 0; k < ns; k++) {
		const char *nm = strrchr(sts[k].key, '/') + 1;

		if (json_object_get(slices, nm) == NULL)
			remove_slice(c, nm);
	}
	etcd_kvs_free(sts, ns > 0 ? (size_t)ns : 0);
	ctld_log("cluster: applied this node's part of the fleet at revision %" PRId64
		 " (%zu slices)", rev, json_object_size(slices));
	json_decref(slices);
	json_decref(filters);
	return rev;
}

/* Write the filters collected for the slice (one insert, one rebuild of its table). */
static void
insert_collected(struct cluster *c, json_t *collected, const char *name, char *why, size_t len)
{
	json_t *list = json_object_get(collected, name);

	if (list == NULL)
		return;
	if (why[0] == '\0')
		json_decref(local(c, SP_M_FILTER_INSERT, json_pack("{s:s, s:O}", "slice", name,
								   "filters", list), why, len));
	json_object_del(collected, name);
}

/*
 * A batch of the watch: each change applied in order (a slice's filters
 * written since its last other change go in one insert), each slice
 * touched given its status.
 */
int
cl_on_events(void *arg, const struct etcd_event *ev, size_t n, int64_t revision)
{
	struct cluster *c = arg;
	json_t *touched = json_object(), *collected = json_object(), *why_js, *list;
	const char *name;
	void *tmp;

	for (size_t i = 0; i < n; i++) {
		char kind[16], nm[64], why[512] = "";
		bool placed;
		json_t *v;

		if (!parse_key(c, ev[i].kv.key, kind, nm))
			continue;
		v = ev[i].deleted ? NULL : json_loads(ev[i].kv.value, 0, NULL);
		placed = false;
		if (strcmp(kind, "slices") == 0 && v != NULL && names_me(c, v)) {
			placed = json_object_get(c->mine, nm) == NULL; /* here from now on */
			json_object_set_new(c->mine, nm, json_true());
		} else if (strcmp(kind, "slices") == 0 && json_object_get(c->mine, nm) != NULL) {
			json_object_del(collected, nm);
			remove_slice(c, nm); /* deleted, or no longer placed here */
			json_object_del(c->mine, nm);
			json_object_del(touched, nm);
			json_decref(v);
			continue;
		}
		if (json_object_get(c->mine, nm) == NULL) { /* another node's */
			json_decref(v);
			continue;
		}
		why_js = json_object_get(touched, nm);
		if (why_js != NULL)
			snprintf(why, sizeof(why), "%s", json_string_value(why_js));
		if (strcmp(kind, "filters") == 0 && v != NULL) {
			if (json_object_get(collected, nm) == NULL)
				json_object_set_new(collected, nm, json_array());
			json_array_append_new(json_object_get(collected, nm), v);
			json_object_set_new(touched, nm, json_string(why));
			continue;
		}
		insert_collected(c, collected, nm, why, sizeof(why));
		if (strcmp(kind, "slices") == 0 && v != NULL) {
			/* Newly placed here: its filters as of this change, later ones follow. */
			if (why[0] == '\0' && apply_slice(c, nm, v, why, sizeof(why)) == 0 && placed)
				apply_filters_at(c, nm, ev[i].kv.mod_revision, why, sizeof(why));
		} else if (strcmp(kind, "filters") == 0 && ev[i].deleted) {
			long pos = fleet_filter_position(ev[i].kv.key);

			json_decref(local(c, SP_M_FILTER_DELETE, json_pack("{s:s, s:I}", "slice", nm,
					  SP_FILTER_POSITION, (json_int_t)pos), why, sizeof(why)));
		}
		json_decref(v);
		json_object_set_new(touched, nm, json_string(why));
	}
	json_object_foreach_safe(collected, tmp, name, list) {
		char nm[64], why[512];

		snprintf(nm, sizeof(nm), "%s", name); /* name goes with its entry */
		snprintf(why, sizeof(why), "%s", json_string_value(json_object_get(touched, nm)));
		insert_collected(c, collected, nm, why, sizeof(why));
		json_object_set_new(touched, nm, json_string(why));
	}
	json_decref(collected);
	json_object_foreach(touched, name, why_js)
		note_status(c, name, json_string_value(why_js), revision);
	json_decref(touched);
	cl_flush_status(c, false);
	c->next = revision + 1;
	return atomic_load(&c->stop);
}

