/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The i3 code option (SPP's second application): Chord-level forwarding and
 * simple trigger matching in the fast path, everything else in the slice's
 * slow path (codeopts/i3/slowpath). parse() takes data packets with one ID
 * and no options: an ID this node is responsible for becomes the key (its
 * first 112 bits) to look the trigger up; another goes to the Chord finger
 * in slice memory, without a lookup. format() checks the rest of the ID
 * against the trigger record the filter points to and hands any doubt to the
 * slow path. Stacks, options and control packets are slow path work.
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include <slicepath/codeopt.h>
#include <slicepath/i3.h>

#include "i3_ring.h"
#include "i3_wire.h"


static const struct sp_i3_ring *
ring_of(struct sp_slice *s)
{
	return sp_slice_mem(s);
}

/*
 * Where the ring sends the ID at pos: SP_FORWARD with the key when this node
 * is responsible, SP_ROUTED to its finger, SP_EXCEPTION when the slow path
 * was writing the ring meanwhile or has written no finger.
 */
static void
route_by_ring(const struct sp_i3_ring *ring, struct rte_mbuf *m, const uint8_t *id)
{
	uint64_t seq = __atomic_load_n(&ring->seq, __ATOMIC_ACQUIRE);
	sp_i3_pos self = sp_i3_pos_get(ring->self), pos = sp_i3_pos_get(id);
	bool local = sp_i3_ring_local(self, sp_i3_pos_get(ring->pred), pos);
	uint32_t nb = RTE_MIN(ring->nb_fingers, (uint32_t)SP_I3_MAX_FINGERS);
	struct sp_i3_finger f = {0};
	int i = local ? -1 : sp_i3_ring_finger(ring->fingers, nb, self, pos);

	if (i >= 0)
		f = ring->fingers[i];
	/* Seqlock read side: what was read above is good if seq was even and stayed. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((seq & 1) || __atomic_load_n(&ring->seq, __ATOMIC_RELAXED) != seq ||
	    (!local && i < 0)) {
		sp_meta_exception(m, SP_REASON_UNSUPPORTED);
		return;
	}
	if (local) {
		memcpy(sp_meta(m)->key.b, id, SP_KEY_BYTES);
		return;
	}
	sp_meta_route(m, &(struct sp_result){.endpoint = f.endpoint, .queue = f.queue,
					     .nh_ip = f.nh_ip, .nh_port = f.nh_port});
}

/* An injected packet behind struct sp_i3_send: sent as its slow path says. */
static void
parse_send(const struct sp_i3_ring *ring, struct rte_mbuf *m)
{
	struct sp_i3_send h;
	struct sp_i3_view v;

	memcpy(&h, rte_pktmbuf_mtod(m, const void *), sizeof(h));
	rte_pktmbuf_adj(m, sizeof(h));
	if (h.nh_ip != 0) {
		sp_meta_route(m, &(struct sp_result){.endpoint = h.endpoint, .queue = h.queue,
						     .nh_ip = h.nh_ip, .nh_port = h.nh_port});
		return;
	}
	if (sp_i3_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &v) !=
		    SP_REASON_NONE || v.stack_len == 0) {
		sp_meta_drop(m, SP_REASON_MALFORMED);
		return;
	}
	route_by_ring(ring, m, v.ids);
	/* The slow path asked for the ring: an ID of its own node would only come back. */
	if (sp_meta(m)->verdict != SP_ROUTED)
		sp_meta_drop(m, SP_REASON_UNSUPPORTED);
}

static void
parse_one(const struct sp_i3_ring *ring, struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = rte_pktmbuf_pkt_len(m);
	struct sp_i3_view v;
	enum sp_reason why;

	/* Headers are read from the first segment only: a chain (rare) is the slow path's. */
	if (!rte_pktmbuf_is_contiguous(m)) {
		sp_meta_exception(m, SP_REASON_UNSUPPORTED);
		return;
	}
	if (sp_meta(m)->from_slow_path && len >= sizeof(struct sp_i3_send) &&
	    p[0] == SP_I3_SEND_MAGIC) {
		parse_send(ring, m);
		return;
	}
	why = sp_i3_parse(p, len, &v);
	if (why != SP_REASON_NONE)
		sp_meta_drop(m, why);
	else if (v.flags & SP_I3_FLAG_OPTION_LIST)
		sp_meta_exception(m, SP_REASON_OPTIONS);
	else if (v.stack_len != 1 || !(v.flags & SP_I3_FLAG_DATA))
		sp_meta_exception(m, SP_REASON_UNSUPPORTED);
	else
		route_by_ring(ring, m, v.ids);
}

static void
parse(struct sp_slice *s, struct rte_mbuf **pkts, uint16_t n)
{
	const struct sp_i3_ring *ring = ring_of(s);

	for (uint16_t i = 0; i < n; i++)
		parse_one(ring, pkts[i]);
}

/* The trigger the filter matched is the packet's one and only. */
static bool
trigger_holds(struct sp_slice *s, const struct sp_meta *meta, const uint8_t *id)
{
	size_t off = SP_I3_TRIGGERS_OFFSET + (size_t)meta->filter * sizeof(struct sp_i3_trigger_rec);
	const struct sp_i3_trigger_rec *rec;
	struct sp_i3_trigger_word w;
	uint64_t raw;
	uint32_t gen;

	if (off + sizeof(*rec) > sp_slice_mem_size(s))
		return false;
	rec = (const struct sp_i3_trigger_rec *)((const uint8_t *)sp_slice_mem(s) + off);
	/* One load: the slow path writes the word whole, after the ID. */
	raw = __atomic_load_n(&rec->word, __ATOMIC_ACQUIRE);
	memcpy(&w, &raw, sizeof(w));
	memcpy(&gen, meta->result.data, sizeof(gen));
	return w.gen == gen && w.count == 1 && sp_i3_common_bits(rec->id, id) >= w.min_bits;
}

static void
format(struct sp_slice *s, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct sp_meta *meta = sp_meta(pkts[i]);
		uint8_t *p = rte_pktmbuf_mtod(pkts[i], uint8_t *);

		if (meta->filter != SP_FILTER_NONE &&
		    !trigger_holds(s, meta, p + SP_I3_HDR_BYTES)) {
			sp_meta_exception(pkts[i], SP_REASON_UNSUPPORTED);
			continue;
		}
		/* The first server clears FIRST_HOP before it forwards (i3's NAT detection). */
		if (rte_pktmbuf_data_len(pkts[i]) >= SP_I3_HDR_BYTES && p[0] == SP_I3_VERSION)
			p[1] &= (uint8_t)~SP_I3_FLAG_FIRST_HOP;
	}
}

static int
slice_init(struct sp_slice *s)
{
	size_t need = SP_I3_TRIGGERS_OFFSET + sizeof(struct sp_i3_trigger_rec);

	/* The ring and at least one trigger record. */
	if (sp_slice_mem_size(s) < need) {
		sp_slice_log(s, RTE_LOG_ERR,
			     "%zu bytes of memory; it needs %zu for the ring and one trigger, and "
			     "%zu per trigger more (docs/i3.md)", sp_slice_mem_size(s), need,
			     sizeof(struct sp_i3_trigger_rec));
		return -EINVAL;
	}
	return 0;
}

static const struct sp_codeopt i3_codeopt = {
	.name = "i3",
	.abi_version = SP_CODEOPT_ABI,
	.slice_init = slice_init,
	.parse = parse,
	.format = format,
};

SP_CODEOPT_REGISTER(i3_codeopt);
