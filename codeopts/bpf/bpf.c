/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bpf code option: the slice brings its own parse() and format() as an
 * eBPF object (slicepath/bpf.h, docs/bpf.md), loaded with codeopt.load or
 * the config's "codeopt_data". Each packet's first bytes are copied into a
 * context the program may read and write, the program runs (JIT-compiled),
 * and what it returned is applied: the key, a verdict, a cut, the header
 * bytes format() rewrote. Until a program is loaded, every packet goes to
 * the slow path (unsupported).
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include <slicepath/bpf.h>
#include <slicepath/codeopt.h>

#include "bpf_progs.h"

#define VERDICT_MASK 0xff
#define REASON_SHIFT 8

/* The context of packet m: its first bytes (the rest of the window zeroed, so nothing of
 * an earlier packet shows), its length and metadata. */
static void
ctx_fill(struct sp_bpf_ctx *c, struct rte_mbuf *m)
{
	const struct sp_meta *meta = sp_meta(m);
	uint32_t win = RTE_MIN(rte_pktmbuf_pkt_len(m),
			       RTE_MIN((uint32_t)SP_BPF_WINDOW, (uint32_t)rte_pktmbuf_data_len(m)));

	memcpy(c->pkt, rte_pktmbuf_mtod(m, const void *), win);
	memset(c->pkt + win, 0, SP_BPF_WINDOW - win);
	c->pkt_len = rte_pktmbuf_pkt_len(m);
	c->win_len = win;
	memset(c->key, 0, sizeof(c->key));
	c->from_slow_path = meta->from_slow_path;
	c->reserved = 0;
	c->filter = meta->filter;
	c->result = meta->result;
}

/* A shorter length the program asked for; false if the packet cannot be cut there. */
static bool
cut(struct rte_mbuf *m, uint32_t len)
{
	uint32_t now = rte_pktmbuf_pkt_len(m);

	return len >= now || (now - len <= UINT16_MAX && rte_pktmbuf_trim(m, (uint16_t)(now - len)) == 0);
}

/* Apply what a program returned; true if the packet goes on. */
static bool
apply(struct rte_mbuf *m, uint64_t rc, const struct sp_bpf_ctx *c)
{
	unsigned int verdict = rc & VERDICT_MASK, reason = (rc >> REASON_SHIFT) & VERDICT_MASK;

	if (verdict == SP_EXCEPTION || verdict == SP_DROP) {
		if (reason == SP_REASON_NONE || reason >= SP_REASON_MAX)
			reason = SP_REASON_UNSUPPORTED;
		if (verdict == SP_EXCEPTION)
			sp_meta_exception(m, reason);
		else
			sp_meta_drop(m, reason);
		return false;
	}
	if ((verdict != SP_FORWARD && verdict != SP_ROUTED) || rc >> REASON_SHIFT != 0) {
		/* Not a value slicepath/bpf.h defines: the program's bug, counted. */
		sp_meta_drop(m, SP_REASON_UNSUPPORTED);
		return false;
	}
	if (!cut(m, c->pkt_len)) {
		sp_meta_exception(m, SP_REASON_UNSUPPORTED);
		return false;
	}
	return true;
}

static void
parse(struct sp_slice *s, struct rte_mbuf **pkts, uint16_t n)
{
	const struct sp_bpf_progs *p = sp_slice_priv(s); /* NULL until loaded */
	struct sp_bpf_ctx c;

	sp_bpf_set_mem(sp_slice_mem(s));
	for (uint16_t i = 0; i < n; i++) {
		uint64_t rc;

		if (p == NULL) {
			sp_meta_exception(pkts[i], SP_REASON_UNSUPPORTED);
			continue;
		}
		sp_meta(pkts[i])->filter = SP_FILTER_NONE;
		ctx_fill(&c, pkts[i]);
		rc = sp_bpf_run(&p->parse, &c);
		if (!apply(pkts[i], rc, &c))
			continue;
		if ((rc & VERDICT_MASK) == SP_ROUTED)
			sp_meta_route(pkts[i], &c.result);
		else
			memcpy(sp_meta(pkts[i])->key.b, c.key, SP_KEY_BYTES);
	}
}

static void
format(struct sp_slice *s, struct rte_mbuf **pkts, uint16_t n)
{
	const struct sp_bpf_progs *p = sp_slice_priv(s); /* NULL until loaded */
	struct sp_bpf_ctx c;

	sp_bpf_set_mem(sp_slice_mem(s));
	for (uint16_t i = 0; i < n; i++) {
		uint64_t rc;

		/* parse() ran with a program: it is still there (released only after this burst). */
		ctx_fill(&c, pkts[i]);
		rc = sp_bpf_run(&p->format, &c);
		if (!apply(pkts[i], rc, &c) || (rc & VERDICT_MASK) != SP_FORWARD) {
			if (sp_meta(pkts[i])->verdict == SP_FORWARD)
				sp_meta_drop(pkts[i], SP_REASON_UNSUPPORTED);
			continue;
		}
		memcpy(rte_pktmbuf_mtod(pkts[i], void *), c.pkt,
		       RTE_MIN(c.win_len, rte_pktmbuf_data_len(pkts[i])));
		sp_meta(pkts[i])->result = c.result;
	}
}

static void
slice_fini(struct sp_slice *s)
{
	sp_bpf_progs_free(sp_slice_priv(s));
}

static int
load(struct sp_slice *s, const void *data, size_t len, void **old, char *err, size_t errlen)
{
	struct sp_bpf_progs *p = sp_bpf_progs_build(data, len, sp_slice_mem_size(s), err, errlen);

	if (p == NULL)
		return -EINVAL;
	*old = sp_slice_priv(s);
	sp_slice_set_priv(s, p);
	return 0;
}

static void
release(void *old)
{
	sp_bpf_progs_free(old);
}

static const struct sp_codeopt bpf_codeopt = {
	.name = "bpf",
	.abi_version = SP_CODEOPT_ABI,
	.slice_fini = slice_fini,
	.parse = parse,
	.format = format,
	.load = load,
	.release = release,
};

SP_CODEOPT_REGISTER(bpf_codeopt);
