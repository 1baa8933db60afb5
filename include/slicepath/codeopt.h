/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepath code option ABI: what a slice developer implements.
 *
 * A code option parses the slice's own header (the inner packet, i.e. the
 * UDP payload of the substrate encapsulation) into a 112-bit lookup key, and
 * after the lookup rewrites that header from the matching filter's result.
 * The framework owns everything else: substrate decap, the lookup itself,
 * the outer header, queueing and transmission.
 *
 * Both callbacks work on bursts. On entry to parse() every packet's data
 * offset is at the inner header and its sp_meta has verdict SP_FORWARD.
 * A code option may mark a packet SP_EXCEPTION (hand it to the slice's slow
 * path) or SP_DROP with a reason; the framework counts it by that reason and
 * skips it in every later stage. parse() may also route a packet itself
 * with sp_meta_route() (a result taken from slice memory, say): the lookup
 * is then skipped for it. format() is called with the packets that matched
 * a filter or were routed (verdict SP_FORWARD, sp_meta.result filled); it
 * may rewrite sp_meta.result: the framework checks endpoint and queue
 * against the slice's own after it.
 *
 * Callbacks run on forwarding lcores: they must not block, allocate from the
 * heap, take locks or make system calls.
 */
#ifndef SLICEPATH_CODEOPT_H
#define SLICEPATH_CODEOPT_H

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_mbuf.h>

#include <slicepath/key.h>
#include <slicepath/reason.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bump on any incompatible change of this header. */
#define SP_CODEOPT_ABI 5

enum sp_verdict {
	SP_FORWARD = 0,
	SP_EXCEPTION, /* to the slice's slow path */
	SP_DROP,
	SP_ROUTED, /* parse() filled sp_meta.result: no lookup */
};

/* sp_meta.filter of a packet parse() routed itself. */
#define SP_FILTER_NONE UINT32_MAX

/* Per-packet state, in the mbuf private area. */
struct sp_meta {
	uint16_t slice;    /* node slice id */
	uint16_t in_ep;    /* node endpoint id the packet arrived on */
	uint8_t verdict;   /* enum sp_verdict */
	uint8_t reason;    /* enum sp_reason, when not SP_FORWARD */
	/* 1: injected by the slice's slow path, 0: arrived from the wire. A
	 * code option may trust what its own slow path wrote, never the wire. */
	uint8_t from_slow_path;
	uint8_t reserved;
	uint16_t out_port; /* output port, set by the framework */
	uint16_t out_ep;   /* node endpoint it leaves from, set by the framework */
	uint32_t queue;    /* physical queue, set by the framework */
	uint32_t filter;   /* matched filter, set by the lookup; SP_FILTER_NONE if routed */
	struct sp_result result; /* set by the lookup */
	uint8_t reserved2[8];    /* 0: the key starts a cache line of its own */
	struct sp_key key;       /* set by parse() */
};

static inline struct sp_meta *
sp_meta(struct rte_mbuf *m)
{
	return (struct sp_meta *)rte_mbuf_to_priv(m);
}

static inline void
sp_meta_exception(struct rte_mbuf *m, enum sp_reason reason)
{
	struct sp_meta *meta = sp_meta(m);

	meta->verdict = SP_EXCEPTION;
	meta->reason = (uint8_t)reason;
}

static inline void
sp_meta_drop(struct rte_mbuf *m, enum sp_reason reason)
{
	struct sp_meta *meta = sp_meta(m);

	meta->verdict = SP_DROP;
	meta->reason = (uint8_t)reason;
}

/* Route m without a lookup: the framework takes r as if a filter had
 * yielded it (endpoint and queue still checked against the slice's own). */
static inline void
sp_meta_route(struct rte_mbuf *m, const struct sp_result *r)
{
	struct sp_meta *meta = sp_meta(m);

	meta->result = *r;
	meta->verdict = SP_ROUTED;
}

/* A slice, as a code option sees it. */
struct sp_slice;

uint16_t sp_slice_id(const struct sp_slice *s);
/* The slice's private memory block (SPP's per-slice SRAM), written by its
 * slow path with mem.write; zeroed at creation. */
void *sp_slice_mem(struct sp_slice *s);
size_t sp_slice_mem_size(const struct sp_slice *s);
/* A pointer the code option may keep per slice, set in slice_init or in load:
 * the set is a release store and the get an acquire load, so load() may
 * publish new state with it while the lcores read it. */
void *sp_slice_priv(struct sp_slice *s);
void sp_slice_set_priv(struct sp_slice *s, void *priv);

struct sp_codeopt {
	const char *name;
	uint32_t abi_version; /* SP_CODEOPT_ABI */
	/* Optional; called off the fast path. Return 0 or a negative errno. */
	int (*slice_init)(struct sp_slice *s);
	void (*slice_fini)(struct sp_slice *s);
	/* Required: fill sp_meta(pkts[i])->key, or mark an exception or drop. */
	void (*parse)(struct sp_slice *s, struct rte_mbuf **pkts, uint16_t n);
	/* Required: rewrite the inner header from sp_meta(pkts[i])->result. */
	void (*format)(struct sp_slice *s, struct rte_mbuf **pkts, uint16_t n);
	/*
	 * Optional, with release: take data the slice's owner sent
	 * (codeopt.load: an eBPF object, a pattern set...) and make it what
	 * drives the slice's packets. Called off the fast path, never
	 * concurrently for one slice. Publish the new state with one atomic
	 * store and hand what it replaces back in *old (NULL if nothing): the
	 * framework calls release(old) once no forwarding lcore can still use
	 * it. Returns 0, or a negative errno with a message for the owner in err.
	 */
	int (*load)(struct sp_slice *s, const void *data, size_t len, void **old, char *err,
		    size_t errlen);
	void (*release)(void *old);
};

/* Make a code option known to the daemon by name. Returns 0, -EINVAL for a
 * malformed descriptor, -EEXIST for a taken name, -ENOTSUP for another ABI. */
int sp_codeopt_register(const struct sp_codeopt *co);

/*
 * Log a line about slice s from its code option, off the fast path only
 * (slice_init, slice_fini, load): "<codeopt>: slice <name>: <message>" at
 * level (RTE_LOG_ERR, RTE_LOG_WARNING, RTE_LOG_INFO, RTE_LOG_DEBUG), under the
 * rte_log type slicepath.codeopt.<codeopt> that registering the code option
 * made (--log-level=slicepath.codeopt.<codeopt>:debug). No newline needed.
 */
void sp_slice_log(const struct sp_slice *s, uint32_t level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Register at load time: works for built-in code options and for shared
 * objects the daemon loads at start-up. */
#define SP_CODEOPT_REGISTER(co)                                                                    \
	RTE_INIT(sp_codeopt_register_##co)                                                         \
	{                                                                                          \
		sp_codeopt_register(&(co));                                                        \
	}

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_CODEOPT_H */
