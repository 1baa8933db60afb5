/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sched.set, queue.bind and queue.set: schedulers and a slice's queues on
 * its NPE's queue manager, while traffic flows; each answers with what is
 * in force after it.
 */
#include <inttypes.h>

#include "../common/text.h"
#include "rpc.h"

/* threshold, threshold_packets and share (bits/s), over the defaults given. */
static int
queue_params(json_t *params, uint64_t *bytes, uint64_t *pkts, uint64_t *share,
	     struct sp_rpc_error *e)
{
	if (sp_rpc_optional_uint(params, "threshold", SP_MIN_THRESHOLD, UINT32_MAX, bytes, e) < 0 ||
	    sp_rpc_optional_uint(params, "threshold_packets", 1, SP_MAX_THRESHOLD_PKTS, pkts,
				 e) < 0 ||
	    sp_rpc_optional_uint(params, "share", 1, SP_MAX_RATE, share, e) < 0)
		return -1;
	return 0;
}

/*
 * {"npe", "port" (name), "rate", ["overhead"]}: an NPE's scheduler on a port.
 * The NPEs' rates on a port stay within its link rate, and this one above
 * its slices' reservations there.
 */
static json_t *
sched_set(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	uint64_t npe, rate, overhead, others = 0;
	char b[3][SP_RATE_STR_LEN];
	struct sp_qm_room r;
	const char *pname;
	uint16_t port;
	int rc;

	if (sp_rpc_uint(params, "npe", UINT16_MAX, &npe, e) < 0 ||
	    sp_rpc_port(node, params, &port, e) < 0 ||
	    sp_rpc_uint(params, "rate", SP_MAX_RATE, &rate, e) < 0)
		return NULL;
	if (npe >= node->nb_npes)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "no NPE %" PRIu64 ": the node has %u", npe,
				   node->nb_npes);
	pname = node->ports[port].name;
	sp_qm_room(node->npes[npe].qm, 0, port, &r);
	overhead = r.overhead;
	if (sp_rpc_optional_uint(params, "overhead", 0, SP_MAX_OVERHEAD, &overhead, e) < 0)
		return NULL;
	if (rate == 0)
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"rate\" must be at least 1 bit/s");
	for (uint16_t n = 0; n < node->nb_npes; n++) {
		struct sp_qm_room o;

		sp_qm_room(node->npes[n].qm, 0, port, &o);
		others += n == npe ? 0 : o.rate_bps;
	}
	if (others + rate > node->ports[port].rate_bps)
		return sp_rpc_fail(e, SP_RPC_NO_ROOM, "%s sends %s bit/s and the other NPEs' "
				   "schedulers there %s, so at most %s is left", pname,
				   sp_format_rate(node->ports[port].rate_bps, b[0], sizeof(b[0])),
				   sp_format_rate(others, b[1], sizeof(b[1])),
				   sp_format_rate(node->ports[port].rate_bps - others, b[2],
						  sizeof(b[2])));
	rc = sp_qm_port_config(node->npes[npe].qm, port, rate, (uint16_t)overhead);
	if (rc == -ENOSPC)
		return sp_rpc_fail(e, SP_RPC_NO_ROOM, "the slices on NPE %" PRIu64 " reserve %s "
				   "bit/s on %s: the rate cannot go below that", npe,
				   sp_format_rate(r.reserved_bps, b[0], sizeof(b[0])), pname);
	if (rc < 0)
		return sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "%s", strerror(-rc));
	return json_pack("{s:i, s:o}", "set", 1, "scheduler",
			 sp_rpc_sched_json(node, (uint16_t)npe, port));
}
SP_RPC_METHOD(SCHED_SET, sched_set)

json_t *
sp_rpc_sched_json(const struct sp_node *node, uint16_t npe, uint16_t port)
{
	struct sp_qm_room r;

	sp_qm_room(node->npes[npe].qm, 0, port, &r);
	return json_pack("{s:i, s:s, s:I, s:i, s:I}", "npe", npe, "port", node->ports[port].name,
			 "rate", (json_int_t)r.rate_bps, "overhead", r.overhead, "reserved",
			 (json_int_t)r.reserved_bps);
}

json_t *
sp_rpc_queue_json(const struct sp_node *node, const struct sp_slice *s, uint16_t q)
{
	struct sp_qm_queue_conf c;

	if (q >= s->queue_quota || s->qmap[q] == SP_QUEUE_UNBOUND ||
	    sp_qm_queue_conf(node->npes[s->npe].qm, s->qmap[q], &c) < 0)
		return NULL;
	return json_pack("{s:i, s:i, s:I, s:I, s:I}", "id", q, "endpoint", s->qendpoint[q],
			 "threshold", (json_int_t)c.max_bytes, "threshold_packets",
			 (json_int_t)c.max_pkts, "share", (json_int_t)c.share_bps);
}

/* {"slice", "queue", "endpoint", ["threshold", "threshold_packets", "share"]} */
static json_t *
queue_bind(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	uint64_t qid, ep, bytes = SP_DEFAULT_THRESHOLD, pkts = SP_DEFAULT_THRESHOLD_PKTS;
	uint64_t share = SP_DEFAULT_SHARE;
	char why[512];
	struct sp_slice *s;
	int rc;

	if (sp_rpc_slice(node, params, &s, e) < 0 ||
	    sp_rpc_uint(params, "queue", UINT16_MAX, &qid, e) < 0 ||
	    sp_rpc_uint(params, "endpoint", UINT16_MAX, &ep, e) < 0 ||
	    queue_params(params, &bytes, &pkts, &share, e) < 0)
		return NULL;
	if (qid >= s->queue_quota)
		return sp_rpc_fail(e, SP_RPC_QUOTA, "queue %" PRIu64 " is beyond slice %s's queue "
				   "quota of %u (queues 0 to %u)", qid, s->name, s->queue_quota,
				   s->queue_quota - 1);
	rc = sp_node_queue_bind(node, s, (uint16_t)qid, (uint16_t)ep, share, (uint32_t)bytes,
				(uint32_t)pkts, why, sizeof(why));
	return rc < 0 ? sp_rpc_node_error(rc, why, e)
		      : json_pack("{s:i, s:o}", "bound", 1, "queue",
				  sp_rpc_queue_json(node, s, (uint16_t)qid));
}
SP_RPC_METHOD(QUEUE_BIND, queue_bind)

/* {"slice", "queue", ["threshold", "threshold_packets", "share"]}: change a bound queue. */
static json_t *
queue_set(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	struct sp_qm_queue_conf c;
	uint64_t qid, bytes, pkts, share;
	char why[512];
	struct sp_slice *s;
	int rc;

	if (sp_rpc_slice(node, params, &s, e) < 0 ||
	    sp_rpc_uint(params, "queue", UINT16_MAX, &qid, e) < 0)
		return NULL;
	if (qid >= s->queue_quota || s->qmap[qid] == SP_QUEUE_UNBOUND)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "slice %s has no queue %" PRIu64 " bound; "
				   "bind it first (queue.bind)", s->name, qid);
	sp_qm_queue_conf(node->npes[s->npe].qm, s->qmap[qid], &c);
	bytes = c.max_bytes;
	pkts = c.max_pkts;
	share = c.share_bps;
	if (queue_params(params, &bytes, &pkts, &share, e) < 0)
		return NULL;
	rc = sp_node_queue_bind(node, s, (uint16_t)qid, s->qendpoint[qid], share, (uint32_t)bytes,
				(uint32_t)pkts, why, sizeof(why));
	return rc < 0 ? sp_rpc_node_error(rc, why, e)
		      : json_pack("{s:i, s:o}", "set", 1, "queue",
				  sp_rpc_queue_json(node, s, (uint16_t)qid));
}
SP_RPC_METHOD(QUEUE_SET, queue_set)
