/* SPDX-License-Identifier: BSD-3-Clause */
#include "filter_json.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "text.h"

json_t *
sp_result_json_text(uint16_t endpoint, uint16_t queue, const char *next_hop, const char *data)
{
	json_t *o = json_pack("{s:i, s:i, s:s}", SP_RESULT_ENDPOINT, endpoint, SP_RESULT_QUEUE,
			      queue, SP_RESULT_NEXT_HOP, next_hop);

	if (data != NULL)
		json_object_set_new(o, SP_RESULT_DATA, json_string(data));
	return o;
}

json_t *
sp_filter_json_text(uint64_t position, const char *key, const char *mask, json_t *result)
{
	return json_pack("{s:I, s:s, s:s, s:o}", SP_FILTER_POSITION, (json_int_t)position,
			 SP_FILTER_KEY, key, SP_FILTER_MASK, mask, SP_FILTER_RESULT, result);
}

bool
sp_result_equal(const struct sp_result *a, const struct sp_result *b)
{
	return a->endpoint == b->endpoint && a->queue == b->queue && a->nh_ip == b->nh_ip &&
	       a->nh_port == b->nh_port && a->nh_family == b->nh_family &&
	       memcmp(a->nh_ip6, b->nh_ip6, sizeof(a->nh_ip6)) == 0 &&
	       memcmp(a->data, b->data, sizeof(a->data)) == 0;
}

json_t *
sp_filter_json(uint32_t position, const struct sp_key *key, const struct sp_key *mask,
	       const struct sp_result *r)
{
	char k[2 * SP_KEY_BYTES + 1], m[2 * SP_KEY_BYTES + 1];
	char data[2 * SP_RESULT_DATA_BYTES + 1], nh[SP_NEXT_HOP_STR_LEN];

	sp_format_hex(k, key->b, SP_KEY_BYTES);
	sp_format_hex(m, mask->b, SP_KEY_BYTES);
	sp_format_hex(data, r->data, SP_RESULT_DATA_BYTES);
	sp_format_next_hop(r, nh, sizeof(nh));
	return sp_filter_json_text(position, k, m,
				   sp_result_json_text(r->endpoint, r->queue, nh, data));
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
	json_t *data = json_object_get(o, SP_RESULT_DATA);
	const char *nh, *why;
	uint64_t ep, q;
	size_t n;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(o)) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%s\"" SP_FILTER_RESULT "\" must be an "
			    "object with " SP_RESULT_ENDPOINT ", " SP_RESULT_QUEUE " and "
			    SP_RESULT_NEXT_HOP, where);
		return -1;
	}
	if ((strict && known_keys(o, where, SP_FILTER_RESULT, SP_RESULT_KEYS, e) < 0) ||
	    sp_rpc_uint(o, SP_RESULT_ENDPOINT, UINT16_MAX, &ep, e) < 0 ||
	    sp_rpc_uint(o, SP_RESULT_QUEUE, UINT16_MAX, &q, e) < 0 ||
	    sp_rpc_string(o, SP_RESULT_NEXT_HOP, &nh, e) < 0)
		return -1;
	r->endpoint = (uint16_t)ep;
	r->queue = (uint16_t)q;
	if (sp_parse_next_hop(nh, r) < 0) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%s" SP_FILTER_RESULT "." SP_RESULT_NEXT_HOP
			    " \"%s\" is not a.b.c.d:port or [2001:db8::1]:port with a UDP port "
			    "from 1 to 65535", where, nh);
		return -1;
	}
	why = sp_unusable_next_hop(r);
	if (why != NULL) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%s" SP_FILTER_RESULT "." SP_RESULT_NEXT_HOP
			    ": %s %s", where, nh, why);
		return -1;
	}
	if (data != NULL && (!json_is_string(data) ||
			     sp_parse_hex_bytes(json_string_value(data), r->data,
						SP_RESULT_DATA_BYTES, &n) < 0)) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%s" SP_FILTER_RESULT "." SP_RESULT_DATA
			    " must be at most %d hex digits", where, 2 * SP_RESULT_DATA_BYTES);
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
	    sp_rpc_uint(o, SP_FILTER_POSITION, UINT32_MAX, &p, e) < 0 ||
	    sp_rpc_string(o, SP_FILTER_KEY, &k, e) < 0 ||
	    sp_rpc_string(o, SP_FILTER_MASK, &m, e) < 0)
		return -1;
	if (sp_parse_hex_key(k, key) < 0 || sp_parse_hex_key(m, mask) < 0) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%s" SP_FILTER_KEY " and " SP_FILTER_MASK
			    " must be exactly %d hex digits (112 bits)", where, 2 * SP_KEY_BYTES);
		return -1;
	}
	*position = (uint32_t)p;
	return result_from_json(json_object_get(o, SP_FILTER_RESULT), where, strict, r, e);
}
