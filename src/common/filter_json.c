/* SPDX-License-Identifier: BSD-3-Clause */
#include "filter_json.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

json_t *
sp_filter_json(uint32_t position, const struct sp_key *key, const struct sp_key *mask,
	       const struct sp_result *r)
{
	char k[2 * SP_KEY_BYTES + 1], m[2 * SP_KEY_BYTES + 1];
	char data[2 * SP_RESULT_DATA_BYTES + 1], nh[INET_ADDRSTRLEN + 8];
	struct in_addr a = {.s_addr = r->nh_ip};

	sp_format_hex(k, key->b, SP_KEY_BYTES);
	sp_format_hex(m, mask->b, SP_KEY_BYTES);
	sp_format_hex(data, r->data, SP_RESULT_DATA_BYTES);
	inet_ntop(AF_INET, &a, nh, sizeof(nh));
	snprintf(nh + strlen(nh), 8, ":%u", ntohs(r->nh_port));
	return json_pack("{s:I, s:s, s:s, s:{s:i, s:i, s:s, s:s}}", "position",
			 (json_int_t)position, "key", k, "mask", m, "result", "endpoint",
			 r->endpoint, "queue", r->queue, "next_hop", nh, "data", data);
}

/* sp_rpc_known_keys() on where's object ("filters[3]." names filters[3]) or its part. */
static int
known_keys(json_t *o, const char *where, const char *part, const char *keys,
	   struct sp_rpc_error *e)
{
	char what[48];
	size_t len;

	snprintf(what, sizeof(what), "%s%s", where, part);
	len = strlen(what);
	if (len > 0 && what[len - 1] == '.')
		what[len - 1] = '\0';
	return sp_rpc_known_keys(o, what, keys, e);
}

static int
result_from_json(json_t *o, const char *where, bool strict, struct sp_result *r,
		 struct sp_rpc_error *e)
{
	json_t *data = json_object_get(o, "data");
	const char *nh, *why;
	uint64_t ep, q;
	size_t n;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(o)) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%s\"result\" must be an object with endpoint, "
			    "queue and next_hop", where);
		return -1;
	}
	if ((strict && known_keys(o, where, "result", SP_RESULT_KEYS, e) < 0) ||
	    sp_rpc_uint(o, "endpoint", UINT16_MAX, &ep, e) < 0 ||
	    sp_rpc_uint(o, "queue", UINT16_MAX, &q, e) < 0 || sp_rpc_string(o, "next_hop", &nh, e) < 0)
		return -1;
	r->endpoint = (uint16_t)ep;
	r->queue = (uint16_t)q;
	if (sp_parse_next_hop(nh, &r->nh_ip, &r->nh_port) < 0) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%sresult.next_hop \"%s\" is not a.b.c.d:port "
			    "with a UDP port from 1 to 65535", where, nh);
		return -1;
	}
	why = sp_unusable_ipv4(r->nh_ip);
	if (why != NULL) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%sresult.next_hop: %s %s", where, nh, why);
		return -1;
	}
	if (data != NULL && (!json_is_string(data) ||
			     sp_parse_hex_bytes(json_string_value(data), r->data,
						SP_RESULT_DATA_BYTES, &n) < 0)) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%sresult.data must be at most %d hex digits",
			    where, 2 * SP_RESULT_DATA_BYTES);
		return -1;
	}
	return 0;
}

int
sp_filter_from_json(json_t *o, const char *where, bool strict, uint32_t *position,
		    struct sp_key *key, struct sp_key *mask, struct sp_result *r,
		    struct sp_rpc_error *e)
{
	const char *k, *m;
	uint64_t p;

	if (!json_is_object(o)) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%s must be a filter object", where);
		return -1;
	}
	if ((strict && where[0] != '\0' && known_keys(o, where, "", SP_FILTER_KEYS, e) < 0) ||
	    sp_rpc_uint(o, "position", UINT32_MAX, &p, e) < 0 ||
	    sp_rpc_string(o, "key", &k, e) < 0 || sp_rpc_string(o, "mask", &m, e) < 0)
		return -1;
	if (sp_parse_hex_key(k, key) < 0 || sp_parse_hex_key(m, mask) < 0) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%skey and mask must be exactly %d hex digits "
			    "(112 bits)", where, 2 * SP_KEY_BYTES);
		return -1;
	}
	*position = (uint32_t)p;
	return result_from_json(json_object_get(o, "result"), where, strict, r, e);
}
