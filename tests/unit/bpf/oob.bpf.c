/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused: a read past the context, at an offset the packet chooses. */
#include <slicepath/bpf.h>

SP_BPF_PARSE int
oob_parse(struct sp_bpf_ctx *c)
{
	c->key[0] = c->pkt[c->pkt[0] * 2];
	return SP_BPF_FORWARD;
}

SP_BPF_FORMAT int
oob_format(struct sp_bpf_ctx *c)
{
	(void)c;
	return SP_BPF_FORWARD;
}
