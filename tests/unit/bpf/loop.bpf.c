/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused: a loop whose bound is the packet's (rte_bpf accepts no back edge at all). */
#include <slicepath/bpf.h>

SP_BPF_PARSE int
loop_parse(struct sp_bpf_ctx *c)
{
	uint32_t sum = 0;

#pragma nounroll
	for (uint32_t i = 0; i < c->win_len && i < SP_BPF_WINDOW; i++)
		sum += c->pkt[i];
	c->key[0] = (uint8_t)sum;
	return SP_BPF_FORWARD;
}

SP_BPF_FORMAT int
loop_format(struct sp_bpf_ctx *c)
{
	(void)c;
	return SP_BPF_FORWARD;
}
