/* SPDX-License-Identifier: BSD-3-Clause */
#include "reconcile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "common/filter_json.h"
#include "common/notify.h"
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
			char why[1024], b[SP_RATE_STR_LEN];

			if (live == NULL || (u64(live, "rate") == s->rate &&
					     u64(live, "overhead") == s->overhead) ||
			    (s->rate < u64(live, "rate")) != (pass == 0))
				continue;
			if (done(c, SP_M_SCHED_SET, json_pack("{s:i, s:s, s:I, s:i}", "npe", s->npe,
							   "port", s->port, "rate",
							   (json_int_t)s->rate, "overhead",
							   s->overhead), why, sizeof(why)))
				ctld_log("restored NPE %u's scheduler on %s: %s bit/s", s->npe,
					 s->port, sp_format_rate(s->rate, b, sizeof(b)));
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
	       sp_result_equal(&a->result, &b->result);
}

/*
 * What a replay could not write back: counted, the first reason kept. A
 * slice with some is degraded: the rest of it is in force, and the worker
 * tries the missing parts again (reconcile_retry).
 */
struct missing {
	unsigned int n;
	char first[768];
};

static void
missed(struct missing *m, const char *why)
{
	if (m->n++ == 0)
		snprintf(m->first, sizeof(m->first), "%.*s", (int)sizeof(m->first) - 1, why);
}

/* Stored filters written to slicepathd where they are not there as stored. */
struct filter_sync {
	struct ctld *c;
	const struct ctld_slice *s;
	json_t *live;  /* the slice's filters in slicepathd, in position order (NULL: none) */
	size_t next;   /* the first live filter not compared yet */
	json_t *batch;
	struct missing *m;
	unsigned int written, deleted;
};

static bool
insert(struct filter_sync *y, json_t *filters)
{
	char why[1024];

	if (done(y->c, SP_M_FILTER_INSERT, json_pack("{s:s, s:O}", "slice", y->s->name, "filters",
						   filters), why, sizeof(why)))
		return true;
	if (json_array_size(filters) == 1)
		missed(y->m, why);
	return false;
}

/* A batch in one call; if slicepathd refuses it, each filter alone: one refused is missed, not all. */
static void
flush_batch(struct filter_sync *y)
{
	size_t n = json_array_size(y->batch), i;
	json_t *one;

	if (n == 0)
		return;
	if (insert(y, y->batch)) {
		y->written += (unsigned int)n;
	} else {
		json_array_foreach(y->batch, i, one) {
			json_t *alone = json_pack("[O]", one);

			y->written += n > 1 && insert(y, alone);
			json_decref(alone);
		}
	}
	json_array_clear(y->batch);
}

/* Delete the live filters before position (or all that are left: UINT64_MAX). */
static void
delete_live_before(struct filter_sync *y, uint64_t position)
{
	char why[1024];
	json_t *o;

	while ((o = json_array_get(y->live, y->next)) != NULL &&
	       u64(o, SP_FILTER_POSITION) < position) {
		json_t *at = json_object_get(o, SP_FILTER_POSITION);

		if (done(y->c, SP_M_FILTER_DELETE,
			 json_pack("{s:s, s:O}", "slice", y->s->name, SP_FILTER_POSITION, at), why,
			 sizeof(why)))
			y->deleted++;
		else
			missed(y->m, why);
		y->next++;
	}
}

static int
sync_one(void *arg, const struct sp_ctl_filter *f)
{
	struct filter_sync *y = arg;
	struct sp_ctl_filter live;
	json_t *o;

	delete_live_before(y, f->position);
	o = json_array_get(y->live, y->next);
	if (o != NULL && u64(o, SP_FILTER_POSITION) == f->position) {
		y->next++;
		if (sp_ctl_filter_from_json(o, &live) && same_filter(&live, f))
			return 0;
	}
	json_array_append_new(y->batch, sp_ctl_filter_to_json(f));
	if (json_array_size(y->batch) >= SP_FILTER_BATCH)
		flush_batch(y);
	return 0;
}

/* Bring slicepathd's filters of s (live, NULL for none) in step with the stored ones; what fails is missed. */
static unsigned int
sync_filters(struct ctld *c, const struct ctld_slice *s, json_t *live, struct missing *m)
{
	struct filter_sync y = {.c = c, .s = s, .live = live, .batch = json_array(), .m = m};

	if (store_each_filter(c->store, s->id, sync_one, &y) != 0)
		missed(m, store_error(c->store));
	flush_batch(&y);
	delete_live_before(&y, UINT64_MAX);
	json_decref(y.batch);
	if (live != NULL && y.written + y.deleted > 0)
		ctld_log("slice %s: %u filter(s) rewritten and %u deleted to match the database",
			 s->name, y.written, y.deleted);
	return y.written;
}

/* --------------------------------------------------------------- slices */

/* The object of slicepathd's slice (live) under list ("endpoints", "queues") whose key is value. */
static json_t *
live_item(json_t *live, const char *list, const char *key, unsigned int value)
{
	json_t *o;
	size_t i;

	json_array_foreach(json_object_get(live, list), i, o)
		if (u64(o, key) == value)
			return o;
	return NULL;
}

/* slicepathd's endpoint idx of the slice (live), if it is stored endpoint e there. */
static bool
live_endpoint_is(json_t *live, unsigned int idx, const struct ctld_endpoint *e)
{
	json_t *o = live_item(live, "endpoints", "index", idx);
	const char *l4 = e->tcp ? "tcp_port" : "udp_port";

	return o != NULL && strcmp(e->port, str(o, "port")) == 0 &&
	       json_object_get(o, l4) != NULL && e->l4_port == u64(o, l4) &&
	       e->bandwidth == u64(o, "bandwidth") && e->inbound == u64(o, "inbound");
}

/* slicepathd's queue id of the slice (live), if it is bound as stored queue q. */
static bool
live_queue_is(json_t *live, unsigned int id, const struct ctld_queue *q)
{
	json_t *o = live_item(live, "queues", "id", id);

	return o != NULL && q->endpoint == u64(o, "endpoint") &&
	       q->threshold == u64(o, "threshold") &&
	       q->threshold_packets == u64(o, "threshold_packets") && q->share == u64(o, "share");
}

static bool
same_endpoints(const struct ctld_slice *s, json_t *live)
{
	unsigned int stored = 0;

	for (unsigned int k = 0; k < SP_MAX_SLICE_ENDPOINTS; k++) {
		if (s->ep[k].used && !live_endpoint_is(live, k, &s->ep[k]))
			return false;
		stored += s->ep[k].used;
	}
	return json_array_size(json_object_get(live, "endpoints")) == stored;
}

static bool
same_queues(const struct ctld_slice *s, json_t *live)
{
	unsigned int stored = 0;

	for (unsigned int k = 0; k < SP_MAX_SLICE_QUEUES; k++) {
		if (s->q[k].bound && !live_queue_is(live, k, &s->q[k]))
			return false;
		stored += s->q[k].bound;
	}
	return json_array_size(json_object_get(live, "queues")) == stored;
}

/* slicepathd's slice live is s as stored, endpoints, queues and filters aside. */
static bool
same_base(const struct ctld_slice *s, json_t *live)
{
	return u64(live, "id") == s->id && strcmp(str(live, "codeopt"), s->codeopt) == 0 &&
	       u64(live, "npe") == s->npe && u64(live, "memory") == s->memory &&
	       u64(live, "filter_quota") == s->filter_quota &&
	       u64(live, "queue_quota") == s->queue_quota &&
	       u64(live, "buffer_quota") == s->buffer_quota && u64(live, "owner") == s->owner &&
	       json_object_get(live, "owner") != NULL &&
	       strcmp(str(json_object_get(live, "host"), "netns"), s->netns) == 0 &&
	       (s->nat_first == 0 || u64(json_object_get(live, "host"), "nat_first") ==
					     s->nat_first);
}

/* slicepathd's slice live is s as stored, filters aside. */
static bool
same_slice(const struct ctld_slice *s, json_t *live)
{
	return same_base(s, live) && same_endpoints(s, live) && same_queues(s, live);
}

struct mem_replay {
	struct ctld *c;
	const struct ctld_slice *s;
	struct missing *m;
};

static int
replay_page(void *arg, uint32_t offset, const uint8_t *page, size_t len)
{
	struct mem_replay *r = arg;
	char hex[2 * STORE_PAGE + 1], why[1024];

	if (offset >= r->s->memory)
		return 0;
	if (len > r->s->memory - offset)
		len = r->s->memory - offset;
	sp_format_hex(hex, page, len < STORE_PAGE ? len : STORE_PAGE);
	if (!done(r->c, SP_M_MEM_WRITE, json_pack("{s:s, s:I, s:s}", "slice", r->s->name, "offset",
						(json_int_t)offset, "data", hex), why, sizeof(why)))
		missed(r->m, why);
	return 0;
}

/* The data last loaded into s's code option (an eBPF object), if any, again. */
static void
replay_codeopt_data(struct ctld *c, const struct ctld_slice *s, struct missing *m)
{
	char *text, why[1024];
	uint8_t *data;
	size_t n;

	if (store_codeopt_data_get(c->store, s->id, &data, &n) < 0) {
		missed(m, store_error(c->store));
		return;
	}
	if (data == NULL)
		return;
	text = malloc(2 * n + 1);
	if (text == NULL) {
		missed(m, "codeopt.load: no memory");
	} else {
		sp_format_hex(text, data, n);
		if (!done(c, SP_M_CODEOPT_LOAD, json_pack("{s:s, s:s}", "slice", s->name, "data",
							text), why, sizeof(why)))
			missed(m, why);
	}
	free(text);
	free(data);
}

/* A range not stored yet (a database from before ranges were kept) is stored as slicepathd has it. */
static void
learn_nat_range(struct ctld *c, struct ctld_slice *s, json_t *has)
{
	uint16_t first = (uint16_t)u64(has, "nat_first");

	if (s->nat_first != 0 || first == 0)
		return;
	s->nat_first = first;
	if (store_put_slice(c->store, s) < 0)
		ctld_log("slice %s: its NAT range from %u could not be stored: %s", s->name, first,
			 store_error(c->store));
}

/*
 * The stored endpoints (at their indexes), queues and filters of s that
 * slicepathd's copy (live; NULL: a slice just made) lacks, written; what it
 * refuses is missed, and the rest still written.
 */
static unsigned int
fill_in(struct ctld *c, const struct ctld_slice *s, json_t *live, struct missing *m)
{
	char why[1024];

	for (unsigned int i = 0; i < SP_MAX_SLICE_ENDPOINTS; i++)
		if (s->ep[i].used && !live_endpoint_is(live, i, &s->ep[i]) &&
		    !done(c, SP_M_ENDPOINT_RESERVE, model_endpoint_params(s, i), why, sizeof(why)))
			missed(m, why);
	for (unsigned int q = 0; q < SP_MAX_SLICE_QUEUES; q++)
		if (s->q[q].bound && !live_queue_is(live, q, &s->q[q]) &&
		    !done(c, SP_M_QUEUE_BIND, json_pack("{s:s, s:i, s:i, s:I, s:I, s:I}", "slice",
							 s->name, "queue", q, "endpoint",
							 s->q[q].endpoint, "threshold",
							 (json_int_t)s->q[q].threshold,
							 "threshold_packets",
							 (json_int_t)s->q[q].threshold_packets,
							 "share", (json_int_t)s->q[q].share),
			  why, sizeof(why)))
			missed(m, why);
	return sync_filters(c, s, json_object_get(live, "filters"), m);
}

/* Create s in slicepathd with all it holds that slicepathd takes; false if not even the slice. */
static bool
restore(struct ctld *c, struct ctld_slice *s, struct missing *m)
{
	struct mem_replay r = {.c = c, .s = s, .m = m};
	char why[1024];
	unsigned int filters;
	json_t *made = call(c, SP_M_SLICE_CREATE, model_create_params(s), why, sizeof(why));

	if (made == NULL) {
		missed(m, why);
		return false;
	}
	learn_nat_range(c, s, made);
	json_decref(made);
	filters = fill_in(c, s, NULL, m);
	if (store_each_mem_page(c->store, s->id, replay_page, &r) != 0)
		missed(m, store_error(c->store));
	replay_codeopt_data(c, s, m);
	ctld_log("slice %s (id %u) restored with its %u filter(s)%s", s->name, s->id, filters,
		 m->n > 0 ? ", not whole" : "");
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

/* s's state after a replay that missed m (in slicepathd or not): said in the log, on change. */
static void
settle(struct ctld_slice *s, const struct missing *m, bool present)
{
	char was[sizeof(s->trouble)];
	enum ctld_slice_state before = s->state;

	snprintf(was, sizeof(was), "%s", s->trouble);
	s->state = m->n == 0 ? CTLD_IN_FORCE : present ? CTLD_DEGRADED : CTLD_ABSENT;
	if (m->n == 0)
		s->trouble[0] = '\0';
	else if (present)
		snprintf(s->trouble, sizeof(s->trouble), "%u part(s) not restored, tried again "
			 "every %d s: %s", m->n, CTLD_RETRY_S, m->first);
	else
		snprintf(s->trouble, sizeof(s->trouble), "%s", m->first);
	if (s->state == before && strcmp(was, s->trouble) == 0)
		return;
	if (s->state == CTLD_IN_FORCE)
		ctld_log("slice %s is in force as stored", s->name);
	else
		ctld_log("slice %s %s: %s", s->name, s->state == CTLD_DEGRADED ? "is degraded" :
			 "cannot be restored", s->trouble);
}

/*
 * Make slicepathd's copy of the stored slice s what is stored. A copy that
 * differs from the database (changed on slicepathd's own socket) is counted
 * and re-created as stored; a degraded one only has its missing parts
 * written again. Nothing stored is ever dropped for what failed.
 */
static void
reconcile_one(struct ctld *c, struct ctld_slice *s, json_t *live_slices)
{
	json_t *live = live_named(live_slices, s->name);
	struct missing m = {0};
	bool present = true;

	if (live != NULL && !json_is_true(json_object_get(live, "managed"))) {
		snprintf(m.first, sizeof(m.first), "slicepathd's config has a slice named %s",
			 s->name);
		m.n = 1;
		present = false;
	} else if (live != NULL && same_slice(s, live)) {
		learn_nat_range(c, s, json_object_get(live, "host"));
		sync_filters(c, s, json_object_get(live, "filters"), &m);
	} else if (live != NULL && s->state == CTLD_DEGRADED && same_base(s, live)) {
		fill_in(c, s, live, &m);
	} else {
		if (live != NULL) {
			c->divergences++;
			ctld_log("slice %s differs from the database in slicepathd (changed on its "
				 "own socket?): the database's is restored", s->name);
			done(c, SP_M_SLICE_DELETE, json_pack("{s:s}", "slice", s->name), NULL, 0);
		}
		present = restore(c, s, &m);
	}
	settle(s, &m, present);
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

/* systemd's status line (systemctl status slicectld) says how many slices are not in force. */
static void
tell_systemd(const struct ctld *c)
{
	static char said[128] = "STATUS=serving"; /* as main.c says with READY=1 */
	unsigned int degraded = 0, absent = 0;
	char status[128];

	for (unsigned int i = 1; i < SP_MAX_SLICES; i++) {
		degraded += c->model.slices[i].used && c->model.slices[i].state == CTLD_DEGRADED;
		absent += c->model.slices[i].used && c->model.slices[i].state == CTLD_ABSENT;
	}
	if (degraded + absent == 0)
		snprintf(status, sizeof(status), "STATUS=serving");
	else
		snprintf(status, sizeof(status), "STATUS=serving; %u slice(s) degraded, %u absent "
			 "(slicectl node)", degraded, absent);
	if (strcmp(status, said) != 0 && sp_notify(status) >= 0)
		snprintf(said, sizeof(said), "%s", status);
}

void
reconcile_slice(struct ctld *c, uint16_t id)
{
	reconcile(c, id);
	tell_systemd(c);
}

void
reconcile_retry(struct ctld *c)
{
	for (unsigned int i = 1; i < SP_MAX_SLICES; i++)
		if (c->model.slices[i].used && c->model.slices[i].state != CTLD_IN_FORCE)
			reconcile(c, (uint16_t)i);
	tell_systemd(c);
}

void
reconcile_all(struct ctld *c)
{
	unsigned int n = 0;

	reconcile_schedulers(c);
	reconcile(c, 0);
	tell_systemd(c);
	for (unsigned int i = 1; i < SP_MAX_SLICES; i++)
		n += c->model.slices[i].used;
	/* Clients are served from here on (the worker takes their requests next). */
	ctld_log("replay done: %u stored slice(s) checked against slicepathd", n);
}
