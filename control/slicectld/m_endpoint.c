/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * endpoint.reserve, endpoint.release, queue.bind, queue.set, queue.unbind:
 * a slice's endpoints (within its bandwidth quota) and queues, by their
 * owner or an operator.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/text.h"
#include "holders.h"
#include "methods.h"

static uint64_t
u64(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

/* The lowest endpoint index the slice does not use, or SP_MAX_SLICE_ENDPOINTS. */
static uint16_t
free_index(const struct ctld_slice *s)
{
	uint16_t i = 0;

	while (i < SP_MAX_SLICE_ENDPOINTS && s->ep[i].used)
		i++;
	return i;
}

/* Whether the slice's quota (slice.create's "bandwidth" or "inbound") has room for asked. */
static bool
within_quota(const struct ctld_slice *s, bool inbound, uint64_t asked, struct sp_rpc_error *e)
{
	uint64_t quota = inbound ? s->inbound : s->bandwidth, held = model_reserved(s, inbound);
	char b[4][SP_RATE_STR_LEN];

	if (held + asked <= quota)
		return true;
	sp_rpc_fail(e, SP_RPC_QUOTA, "slice %s may reserve %s bit/s %s in all (its \"%s\" "
		    "quota) and its endpoints hold %s, so at most %s is left; %s asked", s->name,
		    sp_format_rate(quota, b[0], sizeof(b[0])), inbound ? "inbound" : "outbound",
		    inbound ? "inbound" : "bandwidth", sp_format_rate(held, b[1], sizeof(b[1])),
		    sp_format_rate(held < quota ? quota - held : 0, b[2], sizeof(b[2])),
		    sp_format_rate(asked, b[3], sizeof(b[3])));
	return false;
}

/*
 * {"slice", "port", ["udp_port" or a host slice's "tcp_port", "bandwidth", "inbound",
 * "until_exit"]} -> {"endpoint", "udp_port" or "tcp_port"}:
 * both bandwidths within the slice's quotas; slicepathd checks what the
 * interface has left, both ways. "until_exit": held by the calling process,
 * released when it is gone (holders.c).
 */
static json_t *
m_endpoint_reserve(struct ctld *c, const struct caller *who, json_t *params,
		   struct sp_rpc_error *e)
{
	struct ctld_slice *s = ctld_slice_to_change(c, who, params, e);
	uint64_t bw = SP_DEFAULT_BANDWIDTH, in = 0;
	struct ctld_endpoint ep = {.used = true};
	const char *port;
	uint16_t idx;
	json_t *p, *r;
	bool stored, until_exit = false;

	ep.tcp = json_object_get(params, "tcp_port") != NULL;
	if (s == NULL || sp_rpc_string(params, "port", &port, e) < 0 ||
	    sp_rpc_optional_uint(params, "bandwidth", 0, SP_MAX_RATE, &bw, e) < 0 ||
	    sp_rpc_optional_uint(params, "inbound", 0, SP_MAX_RATE, &in, e) < 0 ||
	    sp_rpc_optional_bool(params, "until_exit", &until_exit, e) < 0)
		return NULL;
	if (until_exit) {
		ep.holder = who->pid;
		ep.holder_start = who->pid > 0 ? holder_start_time(who->pid) : 0;
		if (ep.holder_start == 0)
			return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"until_exit\": slicectld "
					   "cannot tell which process is calling (pid %d)",
					   (int)who->pid);
	}
	if (!within_quota(s, false, bw, e) || !within_quota(s, true, in, e))
		return NULL;
	idx = free_index(s);
	if (idx == SP_MAX_SLICE_ENDPOINTS)
		return sp_rpc_fail(e, SP_RPC_QUOTA, "slice %s has %d endpoints, as many as a slice "
				   "may; release one first", s->name, SP_MAX_SLICE_ENDPOINTS);
	if (!txn_begin(c, e))
		return NULL;
	p = ctld_params_for(params, json_string(s->name));
	json_object_del(p, "until_exit");
	json_object_set_new(p, "bandwidth", json_integer((json_int_t)bw));
	json_object_set_new(p, "inbound", json_integer((json_int_t)in));
	json_object_set_new(p, "index", json_integer(idx));
	r = backend_call(c->backend, SP_M_ENDPOINT_RESERVE, p, e);
	if (r == NULL) {
		txn_abort(c);
		return NULL;
	}
	snprintf(ep.port, sizeof(ep.port), "%s", port);
	ep.l4_port = (uint16_t)u64(r, ep.tcp ? "tcp_port" : "udp_port");
	ep.bandwidth = bw;
	ep.inbound = in;
	stored = store_put_endpoint(c->store, s->id, idx, &ep) == 0;
	if (!txn_commit(c, stored, s->id, e)) {
		json_decref(r);
		return NULL;
	}
	s->ep[idx] = ep;
	return r;
}
CTLD_METHOD(ENDPOINT_RESERVE, m_endpoint_reserve, CTLD_ANYONE)

/* Refuse to take away what stored filters still name: a replay could not write them. */
static bool
unnamed(struct ctld *c, const struct ctld_slice *s, bool queue, uint16_t value,
	struct sp_rpc_error *e)
{
	char list[200];
	int n = store_filters_naming(c->store, s->id, queue, value, list, sizeof(list));

	if (n == 0)
		return true;
	if (n < 0)
		sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "slicectld's database: %s",
			    store_error(c->store));
	else
		sp_rpc_fail(e, SP_RPC_BUSY, "%d filter(s) of slice %s (at %s) %s %s %u; delete or "
			    "rewrite them first", n, s->name, list, queue ? "send to" : "send from",
			    queue ? "queue" : "endpoint", value);
	return false;
}

/* {"slice", key}: the slice and the index under key (an endpoint or queue of it). */
static struct ctld_slice *
slice_item(struct ctld *c, const struct caller *who, json_t *params, const char *key,
	   uint16_t max, uint16_t *index, struct sp_rpc_error *e)
{
	struct ctld_slice *s = ctld_slice_to_change(c, who, params, e);
	uint64_t v;

	if (s == NULL || sp_rpc_uint(params, key, max - 1, &v, e) < 0)
		return NULL;
	*index = (uint16_t)v;
	return s;
}

/* {"slice", "endpoint"}: refused while filters or a queue name it. */
json_t *
m_endpoint_release(struct ctld *c, const struct caller *who, json_t *params,
		   struct sp_rpc_error *e)
{
	uint16_t idx;
	struct ctld_slice *s = slice_item(c, who, params, "endpoint", SP_MAX_SLICE_ENDPOINTS, &idx,
					  e);
	json_t *r;
	bool stored;

	if (s == NULL)
		return NULL;
	if (!s->ep[idx].used)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "slice %s has no endpoint %u", s->name, idx);
	if (!unnamed(c, s, false, idx, e) || !txn_begin(c, e))
		return NULL;
	r = backend_call(c->backend, SP_M_ENDPOINT_RELEASE, ctld_params_for(params,
			 json_string(s->name)), e);
	if (r == NULL) {
		txn_abort(c);
		return NULL;
	}
	stored = store_del_endpoint(c->store, s->id, idx) == 0;
	if (!txn_commit(c, stored, s->id, e)) {
		json_decref(r);
		return NULL;
	}
	memset(&s->ep[idx], 0, sizeof(s->ep[idx]));
	return r;
}
CTLD_METHOD(ENDPOINT_RELEASE, m_endpoint_release, CTLD_ANYONE)

/*
 * A queue.bind as the model has the slice: its endpoint reserved, and a
 * bound queue kept on its port (filters naming it send from endpoints
 * there). An endpoint slicepathd refuses is left to its message.
 */
static bool
bind_fits_model(const struct ctld_slice *s, uint16_t qid, json_t *params,
		struct sp_rpc_error *e)
{
	json_t *v = json_object_get(params, "endpoint");
	uint64_t ep = json_is_integer(v) ? (uint64_t)json_integer_value(v) : UINT64_MAX;

	if (ep >= SP_MAX_SLICE_ENDPOINTS)
		return true;
	if (!s->ep[ep].used) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "queue %u, endpoint %u: slice %s has no "
			    "endpoint %u", qid, (unsigned int)ep, s->name, (unsigned int)ep);
		return false;
	}
	if (s->q[qid].bound && strcmp(s->ep[s->q[qid].endpoint].port, s->ep[ep].port) != 0) {
		sp_rpc_fail(e, SP_RPC_BUSY, "queue %u of slice %s feeds %s; a queue cannot move to "
			    "another port (endpoint %u is on %s)", qid, s->name,
			    s->ep[s->q[qid].endpoint].port, (unsigned int)ep, s->ep[ep].port);
		return false;
	}
	return true;
}

/* queue.bind or queue.set: slicepathd answers with the queue as now in force; store that. */
static json_t *
queue_change(struct ctld *c, const struct caller *who, json_t *params, const char *method,
	     struct sp_rpc_error *e)
{
	uint16_t qid;
	struct ctld_slice *s = slice_item(c, who, params, "queue", SP_MAX_SLICE_QUEUES, &qid, e);
	struct ctld_queue q = {.bound = true};
	json_t *r, *in_force;
	bool stored;

	if (s == NULL ||
	    (strcmp(method, SP_M_QUEUE_BIND) == 0 && !bind_fits_model(s, qid, params, e)))
		return NULL;
	if (strcmp(method, SP_M_QUEUE_SET) == 0 && !s->q[qid].bound)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "slice %s has no queue %u bound; bind it "
				   "first (queue.bind)", s->name, qid);
	if (!txn_begin(c, e))
		return NULL;
	r = backend_call(c->backend, method, ctld_params_for(params, json_string(s->name)), e);
	if (r == NULL) {
		txn_abort(c);
		return NULL;
	}
	in_force = json_object_get(r, "queue");
	q.endpoint = (uint16_t)u64(in_force, "endpoint");
	q.threshold = (uint32_t)u64(in_force, "threshold");
	q.threshold_packets = (uint32_t)u64(in_force, "threshold_packets");
	q.share = u64(in_force, "share");
	stored = store_put_queue(c->store, s->id, qid, &q) == 0;
	if (!txn_commit(c, stored, s->id, e)) {
		json_decref(r);
		return NULL;
	}
	s->q[qid] = q;
	return r;
}

/* {"slice", "queue", "endpoint", ["threshold", "threshold_packets", "share"]} */
static json_t *
m_queue_bind(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	return queue_change(c, who, params, SP_M_QUEUE_BIND, e);
}
CTLD_METHOD(QUEUE_BIND, m_queue_bind, CTLD_ANYONE)

/* {"slice", "queue", ["threshold", "threshold_packets", "share"]} */
static json_t *
m_queue_set(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	return queue_change(c, who, params, SP_M_QUEUE_SET, e);
}
CTLD_METHOD(QUEUE_SET, m_queue_set, CTLD_ANYONE)

/* {"slice", "queue"}: refused while filters name it; what it holds is dropped. */
json_t *
m_queue_unbind(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	uint16_t qid;
	struct ctld_slice *s = slice_item(c, who, params, "queue", SP_MAX_SLICE_QUEUES, &qid, e);
	json_t *r;
	bool stored;

	if (s == NULL)
		return NULL;
	if (!s->q[qid].bound)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "slice %s has no queue %u bound", s->name,
				   qid);
	if (!unnamed(c, s, true, qid, e) || !txn_begin(c, e))
		return NULL;
	r = backend_call(c->backend, SP_M_QUEUE_UNBIND, ctld_params_for(params, json_string(s->name)),
			 e);
	if (r == NULL) {
		txn_abort(c);
		return NULL;
	}
	stored = store_del_queue(c->store, s->id, qid) == 0;
	if (!txn_commit(c, stored, s->id, e)) {
		json_decref(r);
		return NULL;
	}
	memset(&s->q[qid], 0, sizeof(s->q[qid]));
	return r;
}
CTLD_METHOD(QUEUE_UNBIND, m_queue_unbind, CTLD_ANYONE)
