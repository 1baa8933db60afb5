/* SPDX-License-Identifier: BSD-3-Clause */
/* Refused: a call to a helper the daemon does not offer. */
#include <slicepath/bpf.h>

static long (*const not_offered)(void) = (void *)7;

SP_BPF_PARSE int
helper_parse(struct sp_bpf_ctx *c)
{
	c->key[0] = (uint8_t)not_offered();
	return SP_BPF_FORWARD;
}

SP_BPF_FORMAT int
helper_format(struct sp_bpf_ctx *c)
{
	(void)c;
	return SP_BPF_FORWARD;
}
