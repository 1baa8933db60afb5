/* SPDX-License-Identifier: BSD-3-Clause */
#include "reconcile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "common/text.h"
#include "ctl_int.h"
#include "store.h"


static uint64_t
u64(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

static const char *
str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL ? s : "";
}

/* A call for the replay: its result, or NULL with the reason in why (if given). */
static json_t *
call(struct ctld *c, const char *method, json_t *params, char *why, size_t len)
{
	struct sp_rpc_error e;
	json_t *r = backend_call(c->backend, method, params, &e);

	if (r == NULL && why != NULL)
		snprintf(why, len, "%s: %s", method, e.message);
	return r;
}

static bool
done(struct ctld *c, const char *method, json_t *params, char *why, size_t len)
{
	json_t *r = call(c, method, params, why, len);

	json_decref(r);
	return r != NULL;
}

/* --------------------------------------------------------------- schedulers */

static json_t *
live_sched(json_t *scheds, const struct ctld_sched *s)
{
	json_t *o;
	size_t i;

	json_array_foreach(scheds, i, o)
		if (u64(o, "npe") == s->npe && strcmp(str(o, "port"), s->port) == 0)
			return o;
	return NULL;
}

void
reconcile_schedulers(struct ctld *c)
{
	json_t *info = call(c, SP_M_NODE_INFO, NULL, NULL, 0);
	json_t *scheds = json_object_get(info, "schedulers");

	/* Rates going down first: the NPEs' rates on a port must fit its link all along. */
	for (int pass = 0; info != NULL && pass < 2; pass++) {
		for (unsigned int i = 0; i < c->model.nb_scheds; i++) {
			const struct ctld_sched *s = &c->model.scheds[i];
			json_t *live = live_sched(scheds, s);
			char why[1024];

			if (live == NULL || (u64(live, "rate") == s->rate &&
					     u64(live, "overhead") == s->overhead) ||
			    (s->rate < u64(live, "rate")) != (pass == 0))
				continue;
			if (done(c, SP_M_SCHED_SET, json_pack("{s:i, s:s, s:I, s:i}", "npe", s->npe,
							   "port", s->port, "rate",
							   (json_int_t)s->rate, "overhead",
							   s->overhead), why, sizeof(why)))
				ctld_log("restored NPE %u's scheduler on %s: %llu bit/s", s->npe,
					 s->port, (unsigned long long)s->rate);
			else
				ctld_log("cannot restore NPE %u's scheduler on %s: %s", s->npe,
					 s->port, why);
		}
	}
	json_decref(info);
}

/* --------------------------------------------------------------- filters */

static bool
same_filter(const struct sp_ctl_filter *a, const struct sp_ctl_filter *b)
{
	return a->position == b->position && memcmp(&a->key, &b->key, sizeof(a->key)) == 0 &&
	       memcmp(&a->mask, &b->mask, sizeof(a->mask)) == 0 &&
	       a->result.endpoint == b->result.endpoint && a->result.queue == b->result.queue &&
	       a->result.nh_ip == b->result.nh_ip && a->result.nh_port == b->result.nh_port &&
	       memcmp(a->result.data, b->result.data, sizeof(a->result.data)) == 0;
}

/* Stored filters written to slicepathd where they are not there as stored. */
struct filter_sync {
	struct ctld *c;
	const struct ctld_slice *s;
	json_t *live;  /* the slice's filters in slicepathd, in position order (NULL: none) */
	size_t next;   /* the first live filter not compared yet */
	json_t *batch;
	unsigned int written, deleted;
	char why[1024];
};

static int
flush_batch(struct filter_sync *y)
{
	size_t n = json_array_size(y->batch);

	if (n == 0)
		return 0;
	if (!done(y->c, SP_M_FILTER_INSERT, json_pack("{s:s, s:O}", "slice", y->s->name, "filters",
						   y->batch), y->why, sizeof(y->why)))
		return -1;
	y->written += (unsigned int)n;
	json_array_clear(y->batch);
	return 0;
}

/* Delete the live filters before position (or all that are left: UINT64_MAX). */
static int
delete_live_before(struct filter_sync *y, uint64_t position)
{
	json_t *o;

	while ((o = json_array_get(y->live, y->next)) != NULL && u64(o, "position") < position) {
		if (!done(y->c, SP_M_FILTER_DELETE, json_pack("{s:s, s:O}", "slice", y->s->name,
							   "position", json_object_get(o, "position")),
			  y->why, sizeof(y->why)))
			return -1;
		y->deleted++;
		y->next++;
	}
	return 0;
}

static int
sync_one(void *arg, const struct sp_ctl_filter *f)
{
	struct filter_sync *y = arg;
	struct sp_ctl_filter live;
	json_t *o;

	if (delete_live_before(y, f->position) < 0)
		return -1;
	o = json_array_get(y->live, y->next);
	if (o != NULL && u64(o, "position") == f->position) {
		y->next++;
		if (sp_ctl_filter_from_json(o, &live) && same_filter(&live, f))
			return 0;
	}
	json_array_append_new(y->batch, sp_ctl_filter_to_json(f));
	return json_array_size(y->batch) >= SP_FILTER_BATCH ? flush_batch(y) : 0;
}

/* Bring slicepathd's filters of s (live, NULL for none) in step with the stored ones. */
static bool
sync_filters(struct ctld *c, const struct ctld_slice *s, json_t *live, char *why, size_t len,
	     unsigned int *written)
{
	struct filter_sync y = {.c = c, .s = s, .live = live, .batch = json_array()};
	int rc = store_each_filter(c->store, s->id, sync_one, &y);

	if (rc == 0)
		rc = flush_batch(&y);
	if (rc == 0)
		rc = delete_live_before(&y, UINT64_MAX);
	json_decref(y.batch);
	if (rc != 0)
		snprintf(why, len, "%s", y.why[0] != '\0' ? y.why : store_error(c->store));
	else if (live != NULL && y.written + y.deleted > 0)
		ctld_log("slice %s: %u filter(s) rewritten and %u deleted to match the database",
			 s->name, y.written, y.deleted);
	*written = y.written;
	return rc == 0;
}

/* --------------------------------------------------------------- slices */

static bool
same_endpoints(const struct ctld_slice *s, json_t *live)
{
	json_t *eps = json_object_get(live, "endpoints"), *o;
	unsigned int stored = 0;
	size_t i;

	for (unsigned int k = 0; k < SP_MAX_SLICE_ENDPOINTS; k++)
		stored += s->ep[k].used;
	if (json_array_size(eps) != stored)
		return false;
	json_array_foreach(eps, i, o) {
		uint64_t idx = u64(o, "index");
		const struct ctld_endpoint *e = idx < SP_MAX_SLICE_ENDPOINTS ? &s->ep[idx] : NULL;

		if (e == NULL || !e->used || strcmp(e->port, str(o, "port")) != 0 ||
		    json_object_get(o, e->tcp ? "tcp_port" : "udp_port") == NULL ||
		    e->l4_port != u64(o, e->tcp ? "tcp_port" : "udp_port") ||
		    e->bandwidth != u64(o, "bandwidth") ||
		    e->inbound != u64(o, "inbound"))
			return false;
	}
	return true;
}

static bool
same_queues(const struct ctld_slice *s, json_t *live)
{
	json_t *qs = json_object_get(live, "queues"), *o;
	unsigned int stored = 0;
	size_t i;

	for (unsigned int k = 0; k < SP_MAX_SLICE_QUEUES; k++)
		stored += s->q[k].bound;
	if (json_array_size(qs) != stored)
		return false;
	json_array_foreach(qs, i, o) {
		uint64_t id = u64(o, "id");
		const struct ctld_queue *q = id < SP_MAX_SLICE_QUEUES ? &s->q[id] : NULL;

		if (q == NULL || !q->bound || q->endpoint != u64(o, "endpoint") ||
		    q->threshold != u64(o, "threshold") ||
		    q->threshold_packets != u64(o, "threshold_packets") || q->share != u64(o, "share"))
			return false;
	}
	return true;
}

/* slicepathd's slice live is s as stored, filters aside. */
static bool
same_slice(const struct ctld_slice *s, json_t *live)
{
	return u64(live, "id") == s->id && strcmp(str(live, "codeopt"), s->codeopt) == 0 &&
	       u64(live, "npe") == s->npe && u64(live, "memory") == s->memory &&
	       u64(live, "filter_quota") == s->filter_quota &&
	       u64(live, "queue_quota") == s->queue_quota &&
	       u64(live, "buffer_quota") == s->buffer_quota && u64(live, "owner") == s->owner &&
	       json_object_get(live, "owner") != NULL &&
	       strcmp(str(json_object_get(live, "host"), "netns"), s->netns) == 0 &&
	       same_endpoints(s, live) && same_queues(s, live);
}

struct mem_replay {
	struct ctld *c;
	const struct ctld_slice *s;
	char *why;
	size_t len;
};

static int
replay_page(void *arg, uint32_t offset, const uint8_t *page, size_t len)
{
	struct mem_replay *m = arg;
	char hex[2 * STORE_PAGE + 1];

	if (offset >= m->s->memory)
		return 0;
	if (len > m->s->memory - offset)
		len = m->s->memory - offset;
	sp_format_hex(hex, page, len < STORE_PAGE ? len : STORE_PAGE);
	return done(m->c, SP_M_MEM_WRITE, json_pack("{s:s, s:I, s:s}", "slice", m->s->name, "offset",
						 (json_int_t)offset, "data", hex), m->why, m->len)
		       ? 0 : -1;
}

/* The data last loaded into s's code option (an eBPF object), if any, again. */
static bool
replay_codeopt_data(struct ctld *c, const struct ctld_slice *s, char *why, size_t len)
{
	uint8_t *data;
	char *text;
	size_t n;
	bool ok;

	if (store_codeopt_data_get(c->store, s->id, &data, &n) < 0) {
		snprintf(why, len, "%s", store_error(c->store));
		return false;
	}
	if (data == NULL)
		return true;
	text = malloc(2 * n + 1);
	ok = text != NULL;
	if (ok) {
		sp_format_hex(text, data, n);
		ok = done(c, SP_M_CODEOPT_LOAD, json_pack("{s:s, s:s}", "slice", s->name, "data", text),
			  why, len);
	}
	free(text);
	free(data);
	return ok;
}

/* Create s in slicepathd with all it holds; on failure nothing of it is left there. */
static bool
restore(struct ctld *c, const struct ctld_slice *s, char *why, size_t len)
{
	struct mem_replay m = {.c = c, .s = s, .why = why, .len = len};
	unsigned int filters = 0;
	bool ok = done(c, SP_M_SLICE_CREATE, model_create_params(s), why, len);

	if (!ok)
		return false;
	for (unsigned int i = 0; ok && i < SP_MAX_SLICE_ENDPOINTS; i++)
		ok = !s->ep[i].used ||
		     done(c, SP_M_ENDPOINT_RESERVE, model_endpoint_params(s, i), why, len);
	for (unsigned int q = 0; ok && q < SP_MAX_SLICE_QUEUES; q++)
		ok = !s->q[q].bound ||
		     done(c, SP_M_QUEUE_BIND, json_pack("{s:s, s:i, s:i, s:I, s:I, s:I}", "slice",
						     s->name, "queue", q, "endpoint",
						     s->q[q].endpoint, "threshold",
						     (json_int_t)s->q[q].threshold,
						     "threshold_packets",
						     (json_int_t)s->q[q].threshold_packets, "share",
						     (json_int_t)s->q[q].share), why, len);
	ok = ok && store_each_mem_page(c->store, s->id, replay_page, &m) == 0 &&
	     replay_codeopt_data(c, s, why, len) && sync_filters(c, s, NULL, why, len, &filters);
	if (!ok) {
		done(c, SP_M_SLICE_DELETE, json_pack("{s:s}", "slice", s->name), NULL, 0);
		return false;
	}
	ctld_log("slice %s (id %u) restored with its %u filter(s)", s->name, s->id, filters);
	return true;
}

static json_t *
live_named(json_t *slices, const char *name)
{
	json_t *o;
	size_t i;

	json_array_foreach(slices, i, o)
		if (strcmp(str(o, "name"), name) == 0)
			return o;
	return NULL;
}

/* Make slicepathd's copy of the stored slice s what is stored. */
static void
reconcile_one(struct ctld *c, struct ctld_slice *s, json_t *live_slices)
{
	json_t *live = live_named(live_slices, s->name);
	unsigned int written;
	bool ok;

	s->trouble[0] = '\0';
	if (live != NULL && !json_is_true(json_object_get(live, "managed"))) {
		snprintf(s->trouble, sizeof(s->trouble), "slicepathd's config has a slice named %s",
			 s->name);
		ctld_log("cannot restore slice %s: %s", s->name, s->trouble);
		return;
	}
	if (live != NULL && same_slice(s, live)) {
		ok = sync_filters(c, s, json_object_get(live, "filters"), s->trouble,
				  sizeof(s->trouble), &written);
	} else {
		if (live != NULL) {
			ctld_log("slice %s differs from the database in slicepathd: re-creating it",
				 s->name);
			done(c, SP_M_SLICE_DELETE, json_pack("{s:s}", "slice", s->name), NULL, 0);
		}
		ok = restore(c, s, s->trouble, sizeof(s->trouble));
	}
	if (!ok)
		ctld_log("cannot restore slice %s: %s", s->name, s->trouble);
}

/* Delete the managed slices slicepathd has and the store does not (only of id, unless 0). */
static void
drop_unstored(struct ctld *c, json_t *live_slices, uint16_t id)
{
	json_t *o;
	size_t i;

	json_array_foreach(live_slices, i, o) {
		const char *name = str(o, "name");

		if (!json_is_true(json_object_get(o, "managed")) ||
		    model_find(&c->model, name) != NULL || (id != 0 && u64(o, "id") != id))
			continue;
		ctld_log("slice %s is in slicepathd but not in the database (a change not "
			 "acknowledged): deleting it", name);
		done(c, SP_M_SLICE_DELETE, json_pack("{s:s}", "slice", name), NULL, 0);
	}
}

static void
reconcile(struct ctld *c, uint16_t id)
{
	json_t *dump = call(c, SP_M_STATE_DUMP, NULL, NULL, 0);
	json_t *live_slices = json_object_get(dump, "slices");

	if (dump == NULL)
		return;
	drop_unstored(c, live_slices, id);
	for (unsigned int i = 1; i < SP_MAX_SLICES; i++)
		if (c->model.slices[i].used && (id == 0 || i == id))
			reconcile_one(c, &c->model.slices[i], live_slices);
	json_decref(dump);
}

void
reconcile_slice(struct ctld *c, uint16_t id)
{
	reconcile(c, id);
}

void
reconcile_all(struct ctld *c)
{
	unsigned int n = 0;

	reconcile_schedulers(c);
	reconcile(c, 0);
	for (unsigned int i = 1; i < SP_MAX_SLICES; i++)
		n += c->model.slices[i].used;
	/* Clients are served from here on (the worker takes their requests next). */
	ctld_log("replay done: %u stored slice(s) checked against slicepathd", n);
}
