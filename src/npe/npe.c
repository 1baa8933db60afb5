/* SPDX-License-Identifier: BSD-3-Clause */
#include <stddef.h>
#include <string.h>

#include <rte_cycles.h>

#include "npe.h"
#include "missed.h"
#include "slice.h"
#include "../encap/encap.h"
#include "../encap/neigh.h"
#include "../fastpath/output.h"
#include "../fastpath/retire.h"

/*
 * Order pkts by verdict, each kept in arrival order: SP_FORWARD first, then
 * SP_ROUTED (*routed of them), then the rest. Returns how many forward.
 */
static __rte_always_inline uint16_t
partition_verdicts(struct rte_mbuf **pkts, uint16_t n, uint16_t *routed)
{
	struct rte_mbuf *r[SP_BURST], *other[SP_BURST];
	uint16_t f = 0, nr = 0, no = 0;

	/* Those in place first: mostly all, and then nothing moves. Four at a time:
	 * SP_FORWARD is 0, so four verdicts OR-ed are 0 when all four forward. */
	RTE_BUILD_BUG_ON(SP_FORWARD != 0);
	while (f + 4 <= n && (sp_meta(pkts[f])->verdict | sp_meta(pkts[f + 1])->verdict |
			      sp_meta(pkts[f + 2])->verdict | sp_meta(pkts[f + 3])->verdict) == 0)
		f += 4;
	while (f < n && sp_meta(pkts[f])->verdict == SP_FORWARD)
		f++;
	for (uint16_t i = f; i < n; i++) {
		uint8_t v = sp_meta(pkts[i])->verdict;

		if (v == SP_FORWARD)
			pkts[f++] = pkts[i];
		else if (v == SP_ROUTED)
			r[nr++] = pkts[i];
		else
			other[no++] = pkts[i];
	}
	if (f < n) { /* only then anything to move: no calls for the common case */
		memcpy(&pkts[f], r, nr * sizeof(r[0]));
		memcpy(&pkts[f + nr], other, no * sizeof(other[0]));
	}
	*routed = nr;
	return f;
}

/* The packets still SP_FORWARD to the front, in order; returns how many. */
static uint16_t
partition_forward(struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t routed; /* none left by now */

	return partition_verdicts(pkts, n, &routed);
}

/* Packets parse() routed itself rejoin the others after the lookup. */
static void
take_routed(struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct sp_meta *meta = sp_meta(pkts[i]);

		meta->verdict = SP_FORWARD;
		meta->filter = SP_FILTER_NONE;
	}
}

/* Where the lookup finds a packet's slice and key and writes its result and filter: its sp_meta. */
static const struct sp_lookup_fields meta_fields = {
	.slice = sizeof(struct rte_mbuf) + offsetof(struct sp_meta, slice),
	.key = sizeof(struct rte_mbuf) + offsetof(struct sp_meta, key),
	.result = sizeof(struct rte_mbuf) + offsetof(struct sp_meta, result),
	.position = sizeof(struct rte_mbuf) + offsetof(struct sp_meta, filter),
};

/* A slice's share of a round, SP_BURST packets at most, as its code option sees it. */
struct npe_batch {
	struct sp_slice *slice; /* NULL: the slice went away, its packets are dropped */
	uint16_t at, n;         /* in the round, sorted by slice */
	uint16_t nb_fwd;        /* after parse: how many forward (to look up), at the front */
	uint16_t routed;        /* and how many parse routed itself, after them */
};

/* The slice's parse (its code option); the packets for its lookup join the round's list. */
static __rte_always_inline void
parse_batch(struct npe_batch *b, struct rte_mbuf **pkts, struct rte_mbuf **look, uint16_t *nb_look)
{
	b->slice->co->parse(b->slice, pkts, b->n);
	b->nb_fwd = partition_verdicts(pkts, b->n, &b->routed);
	memcpy(&look[*nb_look], pkts, b->nb_fwd * sizeof(*pkts));
	*nb_look += b->nb_fwd;
}

/* A miss: an exception, its key kept among the slice's last missed (missed.h). */
static void
take_miss(struct sp_slice *s, struct rte_mbuf *m, uint64_t *tsc)
{
	const struct sp_meta *meta = sp_meta(m);

	if (*tsc == 0)
		*tsc = rte_rdtsc();
	sp_missed_record(&s->missed, &meta->key, meta->in_ep, meta->from_slow_path != 0, *tsc);
	sp_meta_exception(m, SP_REASON_MISS);
}

/*
 * The slice's format (its code option), once the lookup's misses (if the
 * round had any) have become exceptions and parse's routed packets have
 * rejoined the others; mostly neither, and nothing moves.
 */
static void
format_batch(const struct npe_batch *b, struct rte_mbuf **pkts, bool round_missed)
{
	uint16_t nb_fwd = b->nb_fwd;
	bool moved = b->routed > 0;
	uint64_t tsc = 0; /* read at the batch's first miss, if any */

	if (round_missed)
		for (uint16_t i = 0; i < nb_fwd; i++)
			if (sp_meta(pkts[i])->filter == SP_LOOKUP_MISS) {
				take_miss(b->slice, pkts[i], &tsc);
				moved = true;
			}
	if (moved) {
		take_routed(&pkts[nb_fwd], b->routed);
		nb_fwd = partition_forward(pkts, nb_fwd + b->routed);
	}
	b->slice->co->format(b->slice, pkts, nb_fwd);
}

/*
 * The framework's blocks for n <= SP_BURST packets of any slices: outer
 * header, queue manager, counters. Done a burst at a time rather than a
 * slice at a time: with many slices a slice's share of a round is a few
 * packets, too few to pay for a neighbor or queue manager call each.
 */
static void
send_burst(const struct sp_fastpath *fp, struct sp_npe *npe, struct rte_mbuf **pkts, uint16_t n,
	   struct sp_lcore_stats *st, bool may_hold)
{
	uint64_t missed = 0;
	uint16_t nb_fwd;

	nb_fwd = sp_encap_burst(fp, &npe->neigh_cache, pkts, n, may_hold ? &missed : NULL);
	if (nb_fwd < n) {
		/* The hold takes the first frames to a next hop without MAC: they are no longer ours. */
		if (missed != 0)
			n = sp_encap_hold(fp, &npe->hold, pkts, n, missed, st);
		nb_fwd = partition_forward(pkts, n);
	}
	sp_retire_burst(fp, &pkts[nb_fwd], n - nb_fwd, st);
	sp_output_burst(fp, npe->qm, pkts, nb_fwd, st);
}

/*
 * Host slices' frames leave the round for their namespaces (fp->host_input);
 * the others stay in order at the front. Returns how many stay.
 */
static uint16_t
take_host_frames(const struct sp_fastpath *fp, struct rte_mbuf **pkts, uint16_t n,
		 struct sp_lcore_stats *st)
{
	struct rte_mbuf *host[SP_NPE_ROUND];
	uint16_t kept = 0, nb_host = 0;

	for (uint16_t i = 0; i < n; i++) {
		if (sp_is_host_slice(fp->host_slice_bits, sp_meta(pkts[i])->slice))
			host[nb_host++] = pkts[i];
		else
			pkts[kept++] = pkts[i];
	}
	if (nb_host > 0)
		fp->host_input(fp, host, nb_host, st);
	return kept;
}

static bool
any_host_slice(const struct sp_fastpath *fp)
{
	uint64_t any = 0;

	for (unsigned int w = 0; w < SP_MAX_SLICES / 64; w++)
		any |= __atomic_load_n(&fp->host_slice_bits[w], __ATOMIC_RELAXED);
	return any != 0;
}

void
sp_npe_process(const struct sp_fastpath *fp, struct sp_npe *npe, struct rte_mbuf **pkts, uint16_t n,
	       struct sp_lcore_stats *st)
{
	struct rte_mbuf *sorted[SP_NPE_ROUND], **look = npe->round_lookups;
	struct npe_batch batch[SP_NPE_ROUND];
	uint16_t count[SP_MAX_SLICES] = {0}, next[SP_MAX_SLICES];
	uint16_t order[SP_NPE_ROUND], slice_of[SP_NPE_ROUND];
	uint16_t nb_slices = 0, nb_batches = 0, nb_look = 0, at = 0, sent = 0, hits;

	/*
	 * Group by slice, a stable counting sort: slices in the order their first
	 * packet came, each slice's packets in arrival order, so each code option
	 * and each private table sees one batch. The slices are read from the
	 * packets once: a round's metadata is more than the L1 cache holds.
	 */
	RTE_ASSERT(n <= SP_NPE_ROUND);
	st->work.npe_pkts += n;
	if (unlikely(any_host_slice(fp)))
		n = take_host_frames(fp, pkts, n, st);
	for (uint16_t i = 0; i < n; i++) {
		uint16_t slice = sp_meta(pkts[i])->slice;

		slice_of[i] = slice;
		if (count[slice]++ == 0)
			order[nb_slices++] = slice;
	}
	for (uint16_t j = 0; j < nb_slices; j++) {
		next[order[j]] = at;
		at += count[order[j]];
	}
	for (uint16_t i = 0; i < n; i++)
		sorted[next[slice_of[i]]++] = pkts[i];
	/* Parse, each slice's share a burst at a time. */
	at = 0;
	for (uint16_t j = 0; j < nb_slices; j++) {
		struct sp_slice *s = fp->slices[order[j]];
		uint16_t k = count[order[j]];

		if (s == NULL || s->npe != npe->id) {
			/* The slice went away between decap and here. */
			for (uint16_t i = at; i < at + k; i++)
				sp_meta_drop(sorted[i], SP_REASON_NO_ENDPOINT);
			batch[nb_batches++] = (struct npe_batch){.at = at, .n = k};
			at += k;
			continue;
		}
		for (uint16_t off = 0; off < k; off += SP_BURST) {
			struct npe_batch *b = &batch[nb_batches++];

			*b = (struct npe_batch){.slice = s, .at = at + off,
						.n = RTE_MIN((uint16_t)SP_BURST, (uint16_t)(k - off))};
			parse_batch(b, &sorted[b->at], look, &nb_look);
		}
		at += k;
	}
	/*
	 * Every slice's lookups at once: with many slices a slice's share of a
	 * round is a few packets, and its table's misses then overlap the others'.
	 */
	hits = sp_lookup_bulk_deferred(npe->lookup, (void *const *)look, &meta_fields, nb_look,
				       &npe->deferred_hits);
	/*
	 * Format; a burst goes out as soon as the batches before have made it up,
	 * while its packets are still in the L1 cache.
	 */
	for (uint16_t j = 0; j < nb_batches; j++) {
		const struct npe_batch *b = &batch[j];

		if (b->slice != NULL)
			format_batch(b, &sorted[b->at], hits < nb_look);
		for (; b->at + b->n - sent >= SP_BURST; sent += SP_BURST) {
			send_burst(fp, npe, &sorted[sent], SP_BURST, st, true);
			sp_lookup_count_deferred(&npe->deferred_hits);
		}
	}
	if (sent < n)
		send_burst(fp, npe, &sorted[sent], n - sent, st, true);
	sp_lookup_count_deferred(&npe->deferred_hits);
}

/*
 * A host slice's released frames (hostslice/hslice.c's output, again): the
 * Ethernet header for the next hop, the queue manager, the counters.
 */
static void
send_host(const struct sp_fastpath *fp, struct sp_npe *npe, struct rte_mbuf **pkts, uint16_t n,
	  struct sp_lcore_stats *st)
{
	uint16_t nb_fwd = sp_encap_ethernet(fp, &npe->neigh_cache, pkts, n);

	sp_retire_burst(fp, &pkts[nb_fwd], n - nb_fwd, st);
	sp_output_burst(fp, npe->qm, pkts, nb_fwd, st);
}

/*
 * Whether a host slice's frame may still go where it was bound when held:
 * its queue still the slice's on its port, its endpoint still the slice's.
 */
static bool
host_still_bound(const struct sp_slice *s, const struct sp_meta *meta)
{
	bool queue = false, ep = meta->out_ep == SP_ENDPOINT_NAT;

	for (uint16_t q = 0; q < s->queue_quota && !queue; q++)
		queue = __atomic_load_n(&s->qmap[q], __ATOMIC_ACQUIRE) == meta->queue &&
			s->qport[q] == meta->out_port;
	for (uint16_t i = 0; i < s->nb_endpoints && !ep; i++)
		ep = __atomic_load_n(&s->endpoints[i], __ATOMIC_ACQUIRE) == meta->out_ep;
	return queue && ep;
}

/*
 * Frames of a hop the hold let go: released (their next hop has a MAC now)
 * through the framework's blocks again, which look up their endpoint and
 * queue afresh, or dropped when their time is up (no_neighbor, marked so
 * since encap). A frame whose slice is gone (deleted, or another made in
 * its place: the serial) is dropped too, counted node-wide only: the
 * slice's counters may be another's by now.
 */
static void
let_go(const struct sp_fastpath *fp, struct sp_npe *npe, struct rte_mbuf **pkts,
       const struct sp_neigh_hold_tag *tags, uint16_t n, bool resolved,
       struct sp_lcore_stats *st)
{
	struct rte_mbuf *fast[SP_NEIGH_HOLD_FRAMES], *host[SP_NEIGH_HOLD_FRAMES];
	uint16_t nb_fast = 0, nb_host = 0, nb_gone = 0;

	for (uint16_t i = 0; i < n; i++) {
		const struct sp_slice *s = __atomic_load_n(&fp->slices[tags[i].slice],
							   __ATOMIC_ACQUIRE);
		struct sp_meta *meta = sp_meta(pkts[i]);

		if (s == NULL || s != tags[i].owner || s->serial != tags[i].serial) {
			st->reason[SP_REASON_NO_NEIGHBOR]++;
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		if (!resolved) {
			pkts[nb_gone++] = pkts[i];
			continue;
		}
		sp_counter_add(&st->slice[meta->slice].released, pkts[i]);
		meta->verdict = SP_FORWARD;
		meta->reason = SP_REASON_NONE;
		if (s->npe != npe->id) { /* moved to another NPE meanwhile */
			sp_meta_drop(pkts[i], SP_REASON_NO_ENDPOINT);
			pkts[nb_gone++] = pkts[i];
		} else if (s->host == NULL) {
			fast[nb_fast++] = pkts[i];
		} else if (host_still_bound(s, meta)) {
			host[nb_host++] = pkts[i];
		} else {
			sp_meta_drop(pkts[i], SP_REASON_BAD_RESULT);
			pkts[nb_gone++] = pkts[i];
		}
	}
	sp_retire_burst(fp, pkts, nb_gone, st);
	if (nb_fast > 0)
		send_burst(fp, npe, fast, nb_fast, st, false);
	if (nb_host > 0)
		send_host(fp, npe, host, nb_host, st);
}

void
sp_npe_hold_service(const struct sp_fastpath *fp, struct sp_npe *npe, struct sp_lcore_stats *st)
{
	struct sp_neigh_hold *h = &npe->hold;
	uint64_t gen = sp_neigh_generation(fp->neigh), now = rte_get_timer_cycles();
	bool changed = gen != h->gen;

	if (!changed && now < h->next_deadline)
		return;
	h->gen = gen;
	for (unsigned int i = 0; i < SP_NEIGH_HOLD_HOPS && h->nb_frames > 0; i++) {
		const struct sp_neigh_hold_hop *hop = &h->hop[i];
		struct rte_mbuf *pkts[SP_NEIGH_HOLD_FRAMES];
		struct sp_neigh_hold_tag tags[SP_NEIGH_HOLD_FRAMES];
		struct rte_ether_addr mac;
		enum sp_neigh_kind kind;
		bool resolved = false;
		uint16_t n;

		if (!hop->used)
			continue;
		/* Only the table's word: what it took is all ARP or ND may change (mgmt/resolver.h). */
		if (changed)
			resolved = sp_neigh_find_ip(fp->neigh, hop->id.port, &hop->id.ip, &mac,
						    &kind) == 0;
		if (!resolved && now < hop->deadline)
			continue;
		n = sp_neigh_hold_take(h, i, pkts, tags);
		let_go(fp, npe, pkts, tags, n, resolved, st);
	}
	sp_neigh_hold_rearm(h);
}

void
sp_npe_hold_free(struct sp_npe *npe)
{
	struct sp_neigh_hold *h = &npe->hold;

	for (unsigned int i = 0; i < SP_NEIGH_HOLD_HOPS; i++) {
		struct rte_mbuf *pkts[SP_NEIGH_HOLD_FRAMES];
		struct sp_neigh_hold_tag tags[SP_NEIGH_HOLD_FRAMES];

		if (h->hop[i].used)
			rte_pktmbuf_free_bulk(pkts, sp_neigh_hold_take(h, i, pkts, tags));
	}
	sp_neigh_hold_rearm(h);
}
