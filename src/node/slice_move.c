/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A slice's move to another NPE (slice.move), while the lcores forward: an
 * operator spreads the load over the cores (docs/api.md). Its filters,
 * bound queues (shares and thresholds), outbound reservations and buffer
 * quota go with it; its endpoints, memory and code option state stay, and
 * the steering rules follow (steer.h). Everything the new NPE must give
 * is taken first, so a move that does not fit changes nothing. For the
 * move itself the slice is out of service: frames for it are dropped as
 * for a deleted slice (counted), what its old queues held is dropped as
 * flushed, and no frame is ever handled by the wrong NPE or slice.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "../common/text.h"
#include "node.h"
#include "node_int.h"
#include "steer.h"

/* No reservation on any port. */
static const uint64_t none[SP_MAX_PORTS];

struct moved_queue {
	uint16_t qid, endpoint;
	struct sp_qm_queue_conf conf;
};

/* Physical queues of the NPE that nothing is bound to. */
static uint32_t
free_queues(const struct sp_npe *npe)
{
	uint32_t n = npe->queue_capacity - npe->nb_queues;

	for (uint32_t q = 0; q < npe->nb_queues; q++)
		n += sp_qm_queue_port(npe->qm, q) == -ENOENT;
	return n;
}

/* Set the slice's reservation on every port of the NPE's schedulers to bps[port]. */
static void
reserve_all(const struct sp_node *node, const struct sp_slice *s, struct sp_npe *npe,
	    const uint64_t bps[])
{
	for (uint16_t p = 0; p < node->nb_ports; p++)
		sp_qm_owner_reserve(npe->qm, s->id, p, bps[p]);
}

/* The slice's reservations of its NPE's schedulers taken on to's: 0, or why not. */
static int
reserve_on(const struct sp_node *node, const struct sp_slice *s, struct sp_npe *to,
	   uint64_t bps[], char *err, size_t errlen)
{
	struct sp_qm_room r;
	char b[3][SP_RATE_STR_LEN];

	for (uint16_t p = 0; p < node->nb_ports; p++) {
		sp_qm_room(node->npes[s->npe].qm, s->id, p, &r);
		bps[p] = r.owner_bps;
		if (sp_qm_owner_reserve(to->qm, s->id, p, bps[p]) == 0)
			continue;
		sp_qm_room(to->qm, s->id, p, &r);
		snprintf(err, errlen, "slice %s reserves %s bit/s on %s, and NPE %u's scheduler "
			 "there sends %s bit/s of which %s are reserved", s->name,
			 sp_format_rate(bps[p], b[0], sizeof(b[0])), node->ports[p].name, to->id,
			 sp_format_rate(r.rate_bps, b[1], sizeof(b[1])),
			 sp_format_rate(r.reserved_bps, b[2], sizeof(b[2])));
		reserve_all(node, s, to, none);
		return -ENOSPC;
	}
	return 0;
}

/* The slice's filters written into to's table, at their positions: 0, or why not. */
static int
copy_filters(const struct sp_node *node, const struct sp_slice *s, struct sp_npe *to,
	     char *err, size_t errlen)
{
	const struct sp_lookup *from = node->npes[s->npe].lookup;
	struct sp_filter *f = malloc(sizeof(*f) * s->filter_quota);
	uint32_t *at = malloc(sizeof(*at) * s->filter_quota), n = 0;
	uint64_t hits; /* they restart on the new NPE */
	int rc = f == NULL || at == NULL ? -ENOMEM : 0;

	for (uint32_t pos = 0; rc == 0 && sp_lookup_next(from, s->id, &pos) == 0; pos++) {
		rc = sp_lookup_read(from, s->id, pos, &f[n], &hits);
		at[n++] = pos;
	}
	if (rc == 0 && n > 0)
		rc = sp_lookup_write_bulk(to->lookup, s->id, at, f, n);
	if (rc < 0)
		snprintf(err, errlen, "NPE %u cannot take the %u filters of slice %s: %s", to->id, n,
			 s->name, strerror(-rc));
	free(f);
	free(at);
	return rc;
}

/* Everything to must give the slice, taken: 0, or why not (nothing taken then). */
static int
take_room(struct sp_node *node, const struct sp_slice *s, struct sp_npe *to, uint16_t nb_queues,
	  uint64_t bps[], char *err, size_t errlen)
{
	int rc;

	if (to->queue_quotas + s->queue_quota > to->queue_capacity) {
		snprintf(err, errlen, "NPE %u has %" PRIu64 " of its %u queues left, slice %s's "
			 "quota is %u", to->id, to->queue_capacity - to->queue_quotas,
			 to->queue_capacity, s->name, s->queue_quota);
		return -ENOSPC;
	}
	if (free_queues(to) < nb_queues) {
		snprintf(err, errlen, "NPE %u has %u queues free to bind, slice %s binds %u", to->id,
			 free_queues(to), s->name, nb_queues);
		return -ENOSPC;
	}
	if (sp_lookup_slice_add(to->lookup, s->id, s->filter_quota) < 0) {
		snprintf(err, errlen, "NPE %u has %" PRIu64 " of its %u filter positions left, "
			 "slice %s's quota is %u", to->id, to->filter_capacity - to->filter_quotas,
			 to->filter_capacity, s->name, s->filter_quota);
		return -ENOSPC;
	}
	rc = reserve_on(node, s, to, bps, err, errlen);
	if (rc == 0) {
		rc = copy_filters(node, s, to, err, errlen);
		if (rc < 0)
			reserve_all(node, s, to, none);
	}
	if (rc < 0)
		sp_lookup_slice_del(to->lookup, s->id);
	return rc;
}

int
sp_node_slice_move(struct sp_node *node, struct sp_slice *s, uint16_t npe, char *err,
		   size_t errlen)
{
	struct moved_queue mq[SP_MAX_SLICE_QUEUES];
	uint64_t bps[SP_MAX_PORTS];
	struct sp_npe *from, *to;
	uint16_t nb_mq = 0;
	int rc;

	if (npe >= node->nb_npes) {
		snprintf(err, errlen, "no NPE %u: the node has %u", npe, node->nb_npes);
		return -EINVAL;
	}
	if (npe == s->npe)
		return 0;
	from = &node->npes[s->npe];
	to = &node->npes[npe];
	for (uint16_t q = 0; q < s->queue_quota; q++) {
		if (s->qmap[q] == SP_QUEUE_UNBOUND)
			continue;
		mq[nb_mq] = (struct moved_queue){.qid = q, .endpoint = s->qendpoint[q]};
		sp_qm_queue_conf(from->qm, s->qmap[q], &mq[nb_mq++].conf);
	}
	rc = take_room(node, s, to, nb_mq, bps, err, errlen);
	if (rc < 0)
		return rc;
	/* Out of service: nothing of it in flight on the old NPE once this is done. */
	__atomic_store_n(&node->slices[s->id], NULL, __ATOMIC_RELEASE);
	sp_node_wait_lcores(node);
	sp_node_drain_npe_inputs(node);
	sp_node_wait_lcores(node);
	for (uint16_t i = 0; i < nb_mq && rc == 0; i++)
		rc = sp_node_queue_unbind(node, s, mq[i].qid, err, errlen);
	if (rc < 0) {
		/* An NPE lcore that does not dequeue for seconds: stay, less what was unbound. */
		reserve_all(node, s, to, none);
		sp_lookup_slice_del(to->lookup, s->id);
		__atomic_store_n(&node->slices[s->id], s, __ATOMIC_RELEASE);
		return rc;
	}
	reserve_all(node, s, from, none);
	sp_qm_owner_quota(from->qm, s->id, 0);
	sp_lookup_slice_del(from->lookup, s->id);
	from->filter_quotas -= s->filter_quota;
	from->queue_quotas -= s->queue_quota;
	sp_qm_owner_quota(to->qm, s->id, s->buffer_quota);
	to->filter_quotas += s->filter_quota;
	to->queue_quotas += s->queue_quota;
	s->npe = npe;
	/* Room was taken above: the binds fit. */
	for (uint16_t i = 0; i < nb_mq && rc == 0; i++)
		rc = sp_node_queue_bind(node, s, mq[i].qid, mq[i].endpoint, mq[i].conf.share_bps,
					mq[i].conf.max_bytes, mq[i].conf.max_pkts, err, errlen);
	__atomic_store_n(&node->slices[s->id], s, __ATOMIC_RELEASE);
	for (uint16_t i = 0; i < s->nb_endpoints; i++) {
		if (s->endpoints[i] == SP_ENDPOINT_NONE)
			continue;
		sp_steer_endpoint_removed(node, s->endpoints[i]);
		sp_steer_endpoint_added(node, s->endpoints[i]);
	}
	return rc;
}
