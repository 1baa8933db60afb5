/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A slice's eBPF programs (slicepath/bpf.h) made runnable: opened with
 * libbpf, verified and JIT-compiled by rte_bpf, off the fast path.
 */
#ifndef SP_BPF_PROGS_H
#define SP_BPF_PROGS_H

#include <stddef.h>
#include <stdint.h>

#include <rte_bpf.h>

/* What a program runs: native code from the JIT, else rte_bpf's interpreter. */
struct sp_bpf_entry {
	struct rte_bpf *bpf;
	uint64_t (*jit)(void *ctx);
};

struct sp_bpf_progs {
	struct sp_bpf_entry parse, format;
	/* rte_bpf keeps pointing at the helpers it was given; indexes as in slicepath/bpf.h. */
	struct rte_bpf_xsym xsym[2];
};

/*
 * Build the programs of the object of len bytes for a slice whose memory
 * block holds mem_size bytes. NULL with the reason (libbpf's, or the
 * verifier's) in err.
 */
struct sp_bpf_progs *sp_bpf_progs_build(const void *obj, size_t len, size_t mem_size, char *err,
					size_t errlen);
void sp_bpf_progs_free(struct sp_bpf_progs *p);

/* The slice memory the helper sp_bpf_mem() hands the programs run on this lcore now. */
void sp_bpf_set_mem(void *mem);

static inline uint64_t
sp_bpf_run(const struct sp_bpf_entry *e, void *ctx)
{
	return e->jit != NULL ? e->jit(ctx) : rte_bpf_exec(e->bpf, ctx);
}

#endif
