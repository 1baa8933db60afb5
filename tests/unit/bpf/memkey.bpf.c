/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Accepted: the key is the first 4 bytes of the slice's memory, then the
 * packet's first 4; format() stamps memory byte 4 into the packet's byte 0.
 * Built with -DPAST=N it also reads memory byte N: refused when the slice's
 * block is not larger than N (another slice's memory is never in reach).
 */
#include <slicepath/bpf.h>

SP_BPF_PARSE int
memkey_parse(struct sp_bpf_ctx *c)
{
	uint8_t *mem = sp_bpf_mem();

#pragma unroll
	for (int i = 0; i < 4; i++) {
		c->key[i] = mem[i];
		c->key[4 + i] = c->pkt[i];
	}
#ifdef PAST
	c->key[8] = mem[PAST];
#endif
	return SP_BPF_FORWARD;
}

SP_BPF_FORMAT int
memkey_format(struct sp_bpf_ctx *c)
{
	uint8_t *mem = sp_bpf_mem();

	c->pkt[0] = mem[4];
	return SP_BPF_FORWARD;
}
