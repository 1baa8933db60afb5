/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A slice's life on a node: created, given endpoints and queues, taken
 * apart; from the config load (before the lcores run) or from the
 * management thread while they forward. What the lcores read is published
 * last when adding and withdrawn first when removing, and nothing they may
 * still hold is freed before every lcore has passed a quiescent state.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>

#include "../stats/stats.h"
#include "../common/text.h"
#include "node.h"
#include "node_int.h"
#include "hslice_ops.h"
#include "../encap/encap.h"
#include "../npe/npe.h"
#include "steer.h"

#define FLUSH_WAIT_US 100
#define FLUSH_TIMEOUT_S 2 /* an NPE lcore that does not dequeue for 2 s is stuck */
#define FIRST_ANY_UDP_PORT 1024  /* "any free port" starts above the well-known ones */

void
sp_node_wait_lcores(const struct sp_node *node)
{
	if (node->qsbr != NULL)
		rte_rcu_qsbr_synchronize(node->qsbr, RTE_QSBR_THRID_INVALID);
}

/* Timer cycles FLUSH_TIMEOUT_S from now: waits end there, however long each sleep took. */
static uint64_t
flush_deadline(void)
{
	return rte_get_timer_cycles() + FLUSH_TIMEOUT_S * rte_get_timer_hz();
}

/*
 * Wait until the consumer of ring has taken everything enqueued so far.
 * False if it did not within FLUSH_TIMEOUT_S (its lcore is stuck).
 */
static bool
ring_passed(const struct rte_ring *r)
{
	uint32_t head = __atomic_load_n(&r->prod.tail, __ATOMIC_ACQUIRE);
	uint64_t deadline = flush_deadline();

	/* Unsigned distance: the indexes wrap. */
	while ((int32_t)(__atomic_load_n(&r->cons.tail, __ATOMIC_ACQUIRE) - head) < 0) {
		if (rte_get_timer_cycles() >= deadline)
			return false;
		rte_delay_us_sleep(FLUSH_WAIT_US);
	}
	return true;
}

void
sp_node_drain_npe_inputs(const struct sp_node *node)
{
	for (uint16_t e = 0; e < node->nb_npes; e++) {
		const struct sp_npe *npe = &node->npes[e];

		if (npe->rx_ring != NULL)
			ring_passed(npe->rx_ring);
		if (npe->inject_ring != NULL)
			ring_passed(npe->inject_ring);
	}
}

/* A free node endpoint slot, or SP_MAX_ENDPOINTS. */
static uint16_t
free_endpoint_slot(const struct sp_node *node)
{
	for (uint16_t i = 0; i < SP_MAX_ENDPOINTS; i++)
		if (node->endpoints[i].slice == 0)
			return i;
	return SP_MAX_ENDPOINTS;
}

/* The lowest port number of protocol l4 from FIRST_ANY_UDP_PORT that nothing holds on port, or 0. */
static uint16_t
free_l4_port(const struct sp_node *node, uint16_t port, enum sp_l4 l4)
{
	for (uint32_t u = FIRST_ANY_UDP_PORT; u < 65536; u++)
		if (!sp_decap_taken(node->decap, port, l4, (uint16_t)u))
			return (uint16_t)u;
	return 0;
}

uint64_t
sp_node_inbound_reserved(const struct sp_node *node, uint16_t port)
{
	uint64_t sum = 0;

	for (uint16_t i = 0; i < node->nb_endpoints; i++)
		if (node->endpoints[i].slice != 0 && node->endpoints[i].port == port)
			sum += node->endpoints[i].inbound_bps;
	return sum;
}

/* The endpoint index idx of slice s (SP_ENDPOINT_ANY: the lowest free one) is free: 0, or why not. */
static int
check_endpoint_index(const struct sp_slice *s, uint16_t *idx, char *err, size_t errlen)
{
	if (*idx == SP_ENDPOINT_ANY) {
		for (*idx = 0; *idx < s->nb_endpoints && s->endpoints[*idx] != SP_ENDPOINT_NONE; (*idx)++)
			;
	} else if (*idx >= SP_MAX_SLICE_ENDPOINTS) {
		snprintf(err, errlen, "endpoint index %u is out of range (0 to %u)", *idx,
			 SP_MAX_SLICE_ENDPOINTS - 1);
		return -EINVAL;
	} else if (*idx < s->nb_endpoints && s->endpoints[*idx] != SP_ENDPOINT_NONE) {
		snprintf(err, errlen, "slice %s already has endpoint %u", s->name, *idx);
		return -EEXIST;
	}
	return 0;
}

/* What the link of port still takes in: 0, or -ENOSPC with what is left. */
static int
check_inbound(const struct sp_node *node, uint16_t port, uint64_t inbound_bps, char *err,
	      size_t errlen)
{
	uint64_t link = node->ports[port].rate_bps;
	uint64_t reserved = sp_node_inbound_reserved(node, port);
	char b[4][SP_RATE_STR_LEN];

	if (inbound_bps <= link && reserved <= link - inbound_bps)
		return 0;
	snprintf(err, errlen, "%s bit/s inbound on %s do not fit: the link takes in %s bit/s "
		 "and endpoints reserve %s, so at most %s is left",
		 sp_format_rate(inbound_bps, b[0], sizeof(b[0])), node->ports[port].name,
		 sp_format_rate(link, b[1], sizeof(b[1])),
		 sp_format_rate(reserved, b[2], sizeof(b[2])),
		 sp_format_rate(reserved < link ? link - reserved : 0, b[3], sizeof(b[3])));
	return -ENOSPC;
}

/*
 * Who holds number num of l4 on port, for a refusal a person can act on:
 * "slice alpha's endpoint 0" (this slice's own, if it is asker's), or
 * "slice web's NAT range 61000-61255". The slot being added is skipped.
 */
static void
holder_of(const struct sp_node *node, const struct sp_slice *asker, uint16_t skip_slot,
	  uint16_t port, enum sp_l4 l4, uint16_t num, char *buf, size_t len)
{
	snprintf(buf, len, "an endpoint or a host slice's NAT range");
	for (uint16_t id = 1; id < SP_MAX_SLICES; id++) {
		const struct sp_slice *s = node->slices[id];
		struct sp_nat_stats st;

		for (uint16_t i = 0; s != NULL && i < s->nb_endpoints; i++) {
			uint16_t slot = s->endpoints[i];
			const struct sp_endpoint *ep = &node->endpoints[slot];

			if (slot != SP_ENDPOINT_NONE && slot != skip_slot && ep->port == port &&
			    ep->l4 == l4 && rte_be_to_cpu_16(ep->l4_port_be) == num) {
				snprintf(buf, len, "slice %s's endpoint %u%s", s->name, i,
					 s == asker ? ", this slice's own" : "");
				return;
			}
		}
		if (s == NULL || s->host == NULL || s->host->nat == NULL)
			continue;
		sp_nat_stats(s->host->nat, &st);
		if (num >= st.first && num - st.first < st.count) {
			snprintf(buf, len, "slice %s's NAT range %u-%u", s->name, st.first,
				 st.first + st.count - 1);
			return;
		}
	}
}

int
sp_node_endpoint_add(struct sp_node *node, struct sp_slice *s, const struct sp_endpoint_req *req,
		     uint16_t *index, char *err, size_t errlen)
{
	struct sp_qm *qm = node->npes[s->npe].qm;
	uint16_t slot = free_endpoint_slot(node), idx = *index, port = req->port;
	uint16_t udp_port = req->udp_port, nb_before = s->nb_endpoints;
	struct sp_endpoint *ep = &node->endpoints[slot];
	struct sp_qm_room r;
	int rc;

	rc = check_endpoint_index(s, &idx, err, errlen);
	if (rc < 0)
		return rc;
	if (port >= node->nb_ports) {
		snprintf(err, errlen, "no port %u: the node has %u", port, node->nb_ports);
		return -EINVAL;
	}
	if (idx == SP_MAX_SLICE_ENDPOINTS || slot == SP_MAX_ENDPOINTS) {
		snprintf(err, errlen, "no room for another endpoint (%u per slice, %u per node)",
			 SP_MAX_SLICE_ENDPOINTS, SP_MAX_ENDPOINTS);
		return -ENOSPC;
	}
	if (req->l4 == SP_L4_TCP && s->host == NULL) {
		snprintf(err, errlen, "slice %s has code option %s: TCP endpoints are for host "
			 "slices (code option %s)", s->name, s->co->name, SP_CODEOPT_HOST);
		return -EINVAL;
	}
	if (udp_port == 0)
		udp_port = free_l4_port(node, port, req->l4);
	if (udp_port == 0) {
		snprintf(err, errlen, "no %s port is free on %s", sp_l4_name(req->l4),
			 node->ports[port].name);
		return -ENOSPC;
	}
	rc = check_inbound(node, port, req->inbound_bps, err, errlen);
	if (rc < 0)
		return rc;
	sp_qm_room(qm, s->id, port, &r);
	rc = sp_qm_owner_reserve(qm, s->id, port, r.owner_bps + req->bandwidth_bps);
	if (rc < 0) {
		char b[4][SP_RATE_STR_LEN];

		snprintf(err, errlen, "%s bit/s on %s do not fit: NPE %u's scheduler there sends "
			 "%s bit/s and %s are reserved, so at most %s is left",
			 sp_format_rate(req->bandwidth_bps, b[0], sizeof(b[0])),
			 node->ports[port].name, s->npe, sp_format_rate(r.rate_bps, b[1], sizeof(b[1])),
			 sp_format_rate(r.reserved_bps, b[2], sizeof(b[2])),
			 sp_format_rate(r.rate_bps - r.reserved_bps, b[3], sizeof(b[3])));
		return rc;
	}
	*ep = (struct sp_endpoint){
		.port = port,
		.l4 = req->l4,
		.l4_port_be = rte_cpu_to_be_16(udp_port),
		.ip_be = node->ports[port].ip_be,
		.slice = s->id,
		.bandwidth_bps = req->bandwidth_bps,
		.inbound_bps = req->inbound_bps,
	};
	sp_encap_prepare(&node->fastpath, ep);
	/* Indexes skipped to reach a wanted one read as released. */
	for (uint16_t i = s->nb_endpoints; i < idx; i++)
		s->endpoints[i] = SP_ENDPOINT_NONE;
	/* The lcores read the endpoint (its outer header template too) once they see the slot. */
	__atomic_store_n(&s->endpoints[idx], slot, __ATOMIC_RELEASE);
	if (idx >= s->nb_endpoints)
		s->nb_endpoints = idx + 1;
	/* The slot is out of the table (and no lcore still reads it): its policer is ours to set. */
	sp_decap_set_inbound(node->decap, slot, req->inbound_bps);
	/* Last: from here on packets arrive. */
	rc = sp_decap_add_endpoint(node->decap, port, ep->ip_be, req->l4, ep->l4_port_be, s->id,
				   slot, s->host != NULL);
	if (rc < 0) {
		char holder[128];

		holder_of(node, s, slot, port, req->l4, udp_port, holder, sizeof(holder));
		snprintf(err, errlen, "%s port %u on %s is taken (%s%s)", sp_l4_name(req->l4),
			 udp_port, node->ports[port].name, rc == -EEXIST ? "by " : "",
			 rc == -EEXIST ? holder : strerror(-rc));
		__atomic_store_n(&s->endpoints[idx], SP_ENDPOINT_NONE, __ATOMIC_RELEASE);
		s->nb_endpoints = nb_before; /* as if never asked */
		/* A result naming the index may have reached the endpoint meanwhile. */
		sp_node_wait_lcores(node);
		sp_qm_owner_reserve(qm, s->id, port, r.owner_bps);
		sp_stats_reset_endpoint(slot);
		memset(ep, 0, sizeof(*ep));
		return rc == -EEXIST ? -EADDRINUSE : rc;
	}
	if (slot >= node->nb_endpoints)
		node->nb_endpoints = slot + 1;
	sp_steer_endpoint_added(node, slot);
	*index = idx;
	return 0;
}

int
sp_node_endpoint_del(struct sp_node *node, struct sp_slice *s, uint16_t idx, char *err,
		     size_t errlen)
{
	struct sp_qm *qm = node->npes[s->npe].qm;
	struct sp_endpoint *ep;
	struct sp_qm_room r;
	uint16_t slot;

	if (idx >= s->nb_endpoints || s->endpoints[idx] == SP_ENDPOINT_NONE) {
		snprintf(err, errlen, "slice %s has no endpoint %u", s->name, idx);
		return -ENOENT;
	}
	for (uint16_t q = 0; q < s->queue_quota; q++) {
		if (s->qmap[q] != SP_QUEUE_UNBOUND && s->qendpoint[q] == idx) {
			snprintf(err, errlen, "queue %u of slice %s was bound for endpoint %u; unbind "
				 "it first", q, s->name, idx);
			return -EBUSY;
		}
	}
	slot = s->endpoints[idx];
	ep = &node->endpoints[slot];
	/* First: no new packet to it, no new result sent from it. */
	sp_steer_endpoint_removed(node, slot);
	sp_decap_del_endpoint(node->decap, ep->port, ep->ip_be, ep->l4, ep->l4_port_be);
	__atomic_store_n(&s->endpoints[idx], SP_ENDPOINT_NONE, __ATOMIC_RELEASE);
	sp_node_wait_lcores(node);
	sp_qm_room(qm, s->id, ep->port, &r);
	sp_qm_owner_reserve(qm, s->id, ep->port, r.owner_bps - ep->bandwidth_bps);
	sp_stats_reset_endpoint(slot);
	memset(ep, 0, sizeof(*ep));
	return 0;
}

/* A physical queue of the NPE that nothing is bound to, or the capacity. */
static uint32_t
free_queue(const struct sp_npe *npe)
{
	uint32_t cap = npe->queue_capacity;

	if (npe->nb_queues < cap)
		return npe->nb_queues;
	for (uint32_t q = 0; q < cap; q++)
		if (sp_qm_queue_port(npe->qm, q) == -ENOENT)
			return q;
	return cap;
}

int
sp_node_queue_bind(struct sp_node *node, struct sp_slice *s, uint16_t qid, uint16_t endpoint,
		   uint64_t share_bps, uint32_t max_bytes, uint32_t max_pkts, char *err,
		   size_t errlen)
{
	struct sp_npe *npe = &node->npes[s->npe];
	struct sp_qm_queue_conf qc = {
		.owner = s->id,
		.share_bps = share_bps,
		.max_bytes = max_bytes,
		.max_pkts = max_pkts,
	};
	bool bound = qid < s->queue_quota && s->qmap[qid] != SP_QUEUE_UNBOUND;
	uint32_t phys = bound ? s->qmap[qid] : free_queue(npe);
	struct sp_qm_room r = {0};
	int rc;

	if (qid >= s->queue_quota || endpoint >= s->nb_endpoints ||
	    s->endpoints[endpoint] == SP_ENDPOINT_NONE) {
		snprintf(err, errlen, "queue %u, endpoint %u: slice %s has queues 0 to %u and no "
			 "endpoint %u", qid, endpoint, s->name, s->queue_quota - 1, endpoint);
		return -EINVAL;
	}
	qc.port = node->endpoints[s->endpoints[endpoint]].port;
	if (bound && s->qport[qid] != qc.port) {
		/* Filters naming the queue send from endpoints on its port. */
		snprintf(err, errlen, "queue %u of slice %s feeds %s; a queue cannot move to "
			 "another port (endpoint %u is on %s)", qid, s->name,
			 node->ports[s->qport[qid]].name, endpoint, node->ports[qc.port].name);
		return -EBUSY;
	}
	if (!bound && phys >= node->npes[s->npe].queue_capacity) {
		snprintf(err, errlen, "NPE %u has no queue left (npes[%u].queues is %u)", s->npe,
			 s->npe, node->npes[s->npe].queue_capacity);
		return -ENOSPC;
	}
	rc = sp_qm_queue_bind(npe->qm, phys, &qc);
	if (rc < 0) {
		struct sp_qm_queue_conf old = {0};
		char b[4][SP_RATE_STR_LEN];

		sp_qm_room(npe->qm, s->id, qc.port, &r);
		if (bound)
			sp_qm_queue_conf(npe->qm, phys, &old);
		snprintf(err, errlen, "queue %u of slice %s: a share of %s bit/s does not fit: the "
			 "slice reserves %s bit/s on %s and its other queues there share %s, so at "
			 "most %s is left", qid, s->name, sp_format_rate(share_bps, b[0], sizeof(b[0])),
			 sp_format_rate(r.owner_bps, b[1], sizeof(b[1])), node->ports[qc.port].name,
			 sp_format_rate(r.shares_bps - old.share_bps, b[2], sizeof(b[2])),
			 sp_format_rate(r.owner_bps - (r.shares_bps - old.share_bps), b[3],
					sizeof(b[3])));
		return rc;
	}
	if (phys == npe->nb_queues)
		npe->nb_queues++;
	s->qport[qid] = qc.port;
	s->qendpoint[qid] = endpoint;
	/* Last: the NPE may send to the queue from here on. */
	__atomic_store_n(&s->qmap[qid], phys, __ATOMIC_RELEASE);
	return 0;
}

int
sp_node_queue_unbind(struct sp_node *node, struct sp_slice *s, uint16_t qid, char *err,
		     size_t errlen)
{
	struct sp_qm *qm = node->npes[s->npe].qm;
	uint64_t deadline;
	uint32_t phys;
	int rc;

	if (qid >= s->queue_quota || s->qmap[qid] == SP_QUEUE_UNBOUND) {
		snprintf(err, errlen, "slice %s has no queue %u bound", s->name, qid);
		return -ENOENT;
	}
	phys = s->qmap[qid];
	/* First: no packet is sent to it once the NPE's current burst is done. */
	__atomic_store_n(&s->qmap[qid], SP_QUEUE_UNBOUND, __ATOMIC_RELEASE);
	sp_node_wait_lcores(node);
	/* What it holds goes, dropped by the NPE lcore (it owns the queues' lists). */
	deadline = flush_deadline();
	while (sp_qm_queue_flush(qm, phys) != 0 && rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(FLUSH_WAIT_US);
	/* Refused, the queue keeps its packets: a flush asked but not begun must not outlive it. */
	sp_qm_queue_flush_cancel(qm, phys);
	rc = sp_qm_queue_unbind(qm, phys);
	if (rc < 0) {
		snprintf(err, errlen, "queue %u of slice %s still holds packets: its NPE lcore did "
			 "not empty it within %u s", qid, s->name, FLUSH_TIMEOUT_S);
		__atomic_store_n(&s->qmap[qid], phys, __ATOMIC_RELEASE);
		return -EBUSY;
	}
	return 0;
}

/* The NPE with the most filter positions left, for slices that do not name one. */
static uint16_t
roomiest_npe(const struct sp_node *node)
{
	uint64_t best = 0;
	uint16_t pick = 0;

	for (uint16_t e = 0; e < node->nb_npes; e++) {
		uint64_t left = node->npes[e].filter_capacity - node->npes[e].filter_quotas;

		if (left > best) {
			best = left;
			pick = e;
		}
	}
	return pick;
}

int
sp_node_slice_add(struct sp_node *node, const struct sp_slice_spec *spec, struct sp_slice **out,
		  char *err, size_t errlen)
{
	uint16_t npe = spec->npe == SP_NPE_ANY ? roomiest_npe(node) : spec->npe;
	struct sp_npe *n;
	struct sp_slice *s;
	int rc;

	if (spec->id == 0 || spec->id >= SP_MAX_SLICES) {
		snprintf(err, errlen, "slice id %u is out of range (1 to %u)", spec->id,
			 SP_MAX_SLICES - 1);
		return -EEXIST;
	}
	if (node->slices[spec->id] != NULL) {
		snprintf(err, errlen, "slice id %u is taken", spec->id);
		return -EEXIST;
	}
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++) {
		if (node->slices[i] != NULL && strcmp(node->slices[i]->name, spec->name) == 0) {
			snprintf(err, errlen, "a slice is already named %s", spec->name);
			return -EEXIST;
		}
	}
	if (npe >= node->nb_npes) {
		snprintf(err, errlen, "no NPE %u: the node has %u", npe, node->nb_npes);
		return -EINVAL;
	}
	n = &node->npes[npe];
	if (n->queue_quotas + spec->queue_quota > node->npes[npe].queue_capacity) {
		snprintf(err, errlen, "NPE %u has %" PRIu64 " of its %u queues left, %u asked", npe,
			 node->npes[npe].queue_capacity - n->queue_quotas, node->npes[npe].queue_capacity,
			 spec->queue_quota);
		return -ENOSPC;
	}
	rc = sp_lookup_slice_add(n->lookup, spec->id, spec->filter_quota);
	if (rc < 0) {
		snprintf(err, errlen, "NPE %u has %" PRIu64 " of its %u filter positions left, %u "
			 "asked", npe, node->npes[npe].filter_capacity - n->filter_quotas,
			 node->npes[npe].filter_capacity, spec->filter_quota);
		return rc;
	}
	s = sp_slice_create(spec->id, spec->name, spec->codeopt, npe, spec->mem_bytes, err, errlen);
	if (s == NULL) {
		sp_lookup_slice_del(n->lookup, spec->id);
		return -EINVAL;
	}
	if (strcmp(spec->codeopt, SP_CODEOPT_HOST) == 0) {
		rc = sp_hslice_create(node, s, &spec->host, err, errlen);
		if (rc < 0) {
			sp_slice_destroy(s);
			sp_lookup_slice_del(n->lookup, spec->id);
			return rc;
		}
	}
	s->filter_quota = spec->filter_quota;
	s->queue_quota = spec->queue_quota;
	s->buffer_quota = spec->buffer_quota;
	s->owner = spec->owner;
	s->managed = spec->managed;
	sp_qm_owner_quota(n->qm, s->id, spec->buffer_quota);
	n->filter_quotas += spec->filter_quota;
	n->queue_quotas += spec->queue_quota;
	sp_stats_reset_slice(s->id);
	__atomic_store_n(&node->slices[s->id], s, __ATOMIC_RELEASE);
	*out = s;
	return 0;
}

int
sp_node_slice_del(struct sp_node *node, struct sp_slice *s, char *err, size_t errlen)
{
	struct sp_npe *n = &node->npes[s->npe];
	int rc = 0;

	/* First: no new packet arrives for it. */
	for (uint16_t i = 0; i < s->nb_endpoints; i++) {
		const struct sp_endpoint *ep;

		if (s->endpoints[i] == SP_ENDPOINT_NONE)
			continue; /* released: no slot to index */
		ep = &node->endpoints[s->endpoints[i]];
		sp_steer_endpoint_removed(node, s->endpoints[i]);
		sp_decap_del_endpoint(node->decap, ep->port, ep->ip_be, ep->l4, ep->l4_port_be);
	}
	if (s->host != NULL)
		sp_hslice_withdraw(node, s);
	__atomic_store_n(&node->slices[s->id], NULL, __ATOMIC_RELEASE);
	sp_node_wait_lcores(node);
	if (node->qsbr != NULL)
		sp_node_drain_npe_inputs(node);
	for (uint16_t q = 0; q < s->queue_quota && rc == 0; q++)
		if (s->qmap[q] != SP_QUEUE_UNBOUND)
			rc = sp_node_queue_unbind(node, s, q, err, errlen);
	if (rc < 0)
		return rc; /* the slice is out of service; its queues are stuck */
	for (uint16_t i = 0; i < s->nb_endpoints; i++) {
		if (s->endpoints[i] == SP_ENDPOINT_NONE)
			continue;
		sp_stats_reset_endpoint(s->endpoints[i]);
		memset(&node->endpoints[s->endpoints[i]], 0, sizeof(node->endpoints[0]));
	}
	for (uint16_t p = 0; p < node->nb_ports; p++)
		sp_qm_owner_reserve(n->qm, s->id, p, 0);
	sp_qm_owner_quota(n->qm, s->id, 0);
	sp_lookup_slice_del(n->lookup, s->id);
	n->filter_quotas -= s->filter_quota;
	n->queue_quotas -= s->queue_quota;
	sp_stats_reset_slice(s->id);
	if (s->host != NULL)
		sp_hslice_destroy(node, s);
	sp_slice_destroy(s);
	return 0;
}

int
sp_node_codeopt_load(struct sp_node *node, struct sp_slice *s, const void *data, size_t len,
		     char *err, size_t errlen)
{
	void *old = NULL;
	int rc;

	if (s->co->load == NULL) {
		snprintf(err, errlen, "code option %s of slice %s takes no data (bpf and dpi "
			 "do; a slice's code option is chosen when it is created)", s->co->name,
			 s->name);
		return -ENOTSUP;
	}
	rc = s->co->load(s, data, len, &old, err, errlen);
	if (rc < 0)
		return rc;
	if (old != NULL) {
		sp_node_wait_lcores(node);
		s->co->release(old);
	}
	return 0;
}
