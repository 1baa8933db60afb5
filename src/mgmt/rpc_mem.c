/* SPDX-License-Identifier: BSD-3-Clause */
/* mem.read, mem.write and codeopt.load: a slice's memory block and its code option's data. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/text.h"
#include "rpc.h"


/* "slice" and "offset" of mem.read and mem.write: a slice that has memory at all. */
static int
mem_slice(struct sp_node *node, json_t *params, struct sp_slice **s, uint64_t *off,
	  struct sp_rpc_error *e)
{
	if (sp_rpc_slice(node, params, s, e) < 0)
		return -1;
	if ((*s)->mem_size == 0) {
		sp_rpc_fail(e, SP_RPC_QUOTA, "slice %s has no memory: it was created with memory 0 "
			    "(slice.create's \"memory\")", (*s)->name);
		return -1;
	}
	return sp_rpc_uint(params, "offset", UINT32_MAX, off, e);
}

/* {"slice", "offset", "length"} -> {"data": hex} */
static json_t *
mem_read(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	uint64_t off, len;
	struct sp_slice *s;
	json_t *r;
	char *hex;

	if (mem_slice(node, params, &s, &off, e) < 0 ||
	    sp_rpc_uint(params, "length", SP_MAX_MEM_IO, &len, e) < 0)
		return NULL;
	if (off + len > s->mem_size)
		return sp_rpc_fail(e, SP_RPC_QUOTA, "bytes %" PRIu64 " to %" PRIu64 " are beyond slice "
				   "%s's memory of %zu bytes", off, off + len, s->name, s->mem_size);
	hex = malloc(2 * len + 1);
	if (hex == NULL)
		return sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "out of memory");
	sp_format_hex(hex, s->mem + off, len);
	r = json_pack("{s:s}", "data", hex);
	free(hex);
	return r;
}
SP_RPC_METHOD(MEM_READ, mem_read)

/* {"slice", "offset", "data": hex}: the code option sees the bytes as they land. */
static json_t *
mem_write(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	const char *hex;
	uint8_t *bytes;
	struct sp_slice *s;
	uint64_t off;
	size_t n;

	if (mem_slice(node, params, &s, &off, e) < 0 || sp_rpc_string(params, "data", &hex, e) < 0)
		return NULL;
	bytes = malloc(SP_MAX_MEM_IO);
	if (bytes == NULL)
		return sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "out of memory");
	if (sp_parse_hex_bytes(hex, bytes, SP_MAX_MEM_IO, &n) < 0) {
		free(bytes);
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"data\" must be hex digits, two per "
				   "byte, at most %d bytes", SP_MAX_MEM_IO);
	}
	if (off + n > s->mem_size) {
		free(bytes);
		return sp_rpc_fail(e, SP_RPC_QUOTA, "bytes %" PRIu64 " to %" PRIu64 " are beyond "
				   "slice %s's memory of %zu bytes", off, off + n, s->name,
				   s->mem_size);
	}
	memcpy(s->mem + off, bytes, n);
	free(bytes);
	return json_pack("{s:I}", "written", (json_int_t)n);
}
SP_RPC_METHOD(MEM_WRITE, mem_write)

/* {"slice", "data": hex}: to the slice's code option (an eBPF object, patterns...). */
static json_t *
codeopt_load(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	char why[sizeof(e->message)];
	const char *hex;
	uint8_t *bytes;
	struct sp_slice *s;
	size_t n;
	int rc;

	if (sp_rpc_slice(node, params, &s, e) < 0 || sp_rpc_string(params, "data", &hex, e) < 0)
		return NULL;
	bytes = malloc(SP_MAX_CODEOPT_DATA);
	if (bytes == NULL)
		return sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "out of memory");
	if (sp_parse_hex_bytes(hex, bytes, SP_MAX_CODEOPT_DATA, &n) < 0) {
		free(bytes);
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"data\" must be hex digits, two per "
				   "byte, at most %u bytes", SP_MAX_CODEOPT_DATA);
	}
	rc = sp_node_codeopt_load(node, s, bytes, n, why, sizeof(why));
	free(bytes);
	if (rc < 0)
		return sp_rpc_fail(e, rc == -ENOMEM ? SP_RPC_INTERNAL_ERROR : SP_RPC_INVALID_PARAMS,
				   "%s", why);
	return json_pack("{s:I}", "loaded", (json_int_t)n);
}
SP_RPC_METHOD(CODEOPT_LOAD, codeopt_load)
