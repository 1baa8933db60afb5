/* SPDX-License-Identifier: BSD-3-Clause */
#include <endian.h>
#include <string.h>

#include "i3_wire.h"

#define IPV4_ADDR_BODY 6  /* address, port */
#define IPV6_ADDR_BODY 18 /* address, port */
#define TRIGGER_RATE_LIMIT 0x02 /* trigger flag: a token bucket follows the key */
#define TOKEN_BUCKET_BYTES 13   /* type, depth, rate, peak rate */

enum sp_reason
sp_i3_parse(const uint8_t *p, size_t len, struct sp_i3_view *v)
{
	size_t at = SP_I3_HDR_BYTES, list;

	if (len < SP_I3_HDR_BYTES || p[0] != SP_I3_VERSION || (p[1] & ~SP_I3_FLAGS) != 0 ||
	    p[2] > SP_I3_MAX_STACK)
		return SP_REASON_MALFORMED;
	v->flags = p[1];
	v->stack_len = p[2];
	v->ids = p + at;
	at += (size_t)v->stack_len * SP_I3_ID_BYTES;
	if (at > len)
		return SP_REASON_BAD_HDR_LEN;
	v->options = NULL;
	v->options_len = 0;
	if (v->flags & SP_I3_FLAG_OPTION_LIST) {
		if (at + SP_I3_OPTLEN_BYTES > len)
			return SP_REASON_BAD_HDR_LEN;
		/* The length counts its own two bytes. */
		list = (size_t)p[at] << 8 | p[at + 1];
		if (list < SP_I3_OPTLEN_BYTES || at + list > len)
			return SP_REASON_BAD_HDR_LEN;
		v->options = p + at + SP_I3_OPTLEN_BYTES;
		v->options_len = list - SP_I3_OPTLEN_BYTES;
		at += list;
	}
	v->hdr_len = at;
	return SP_REASON_NONE;
}

/* Bytes of the i3 address at p (type byte included), at most len; 0 when malformed or
 * longer than len. */
static size_t
sp_i3_addr_len(const uint8_t *p, size_t len)
{
	size_t n;

	if (len < 1)
		return 0;
	switch (p[0]) {
	case SP_I3_ADDR_IPV4:
		n = 1 + IPV4_ADDR_BODY;
		break;
	case SP_I3_ADDR_IPV6:
		n = 1 + IPV6_ADDR_BODY;
		break;
	case SP_I3_ADDR_STACK:
		if (len < 2 || p[1] > SP_I3_MAX_STACK)
			return 0;
		n = 2 + (size_t)p[1] * SP_I3_ID_BYTES;
		break;
	default:
		return 0;
	}
	return n <= len ? n : 0;
}

size_t
sp_i3_trigger_len(const uint8_t *p, size_t len)
{
	size_t addr, n;

	if (len <= SP_I3_TRIG_ADDR)
		return 0;
	addr = sp_i3_addr_len(p + SP_I3_TRIG_ADDR, len - SP_I3_TRIG_ADDR);
	if (addr == 0)
		return 0;
	n = SP_I3_TRIG_ADDR + addr;
	/* A trigger to a stack has no key. */
	if (p[SP_I3_TRIG_ADDR] != SP_I3_ADDR_STACK)
		n += SP_I3_KEY_BYTES;
	if (p[SP_I3_TRIG_FLAGS] & TRIGGER_RATE_LIMIT)
		n += TOKEN_BUCKET_BYTES;
	return n <= len ? n : 0;
}

/* Body bytes of an option of type t at p (at most len), or 0 with *ok false. */
static size_t
option_body_len(uint8_t t, const uint8_t *p, size_t len, int *ok)
{
	size_t n;

	switch (t) {
	case SP_I3_OPT_SENDER:
		n = sp_i3_addr_len(p, len);
		break;
	case SP_I3_OPT_TRIGGER_INSERT:
	case SP_I3_OPT_TRIGGER_CHALLENGE:
	case SP_I3_OPT_TRIGGER_ACK:
	case SP_I3_OPT_TRIGGER_REMOVE:
	case SP_I3_OPT_CACHE_ADDR:
	case SP_I3_OPT_FORCE_CACHE_ADDR:
	case SP_I3_OPT_CONSTRAINT_FAILED:
	case SP_I3_OPT_ROUTE_BROKEN:
		n = sp_i3_trigger_len(p, len);
		break;
	case SP_I3_OPT_TRIGGER_NOT_PRESENT:
		n = len >= SP_I3_ID_BYTES ? SP_I3_ID_BYTES : 0;
		break;
	case SP_I3_OPT_REQUEST_FOR_CACHE:
		*ok = 1;
		return 0;
	default:
		n = 0;
	}
	*ok = n != 0;
	return n;
}

int
sp_i3_next_option(const struct sp_i3_view *v, size_t *off, struct sp_i3_option_view *o)
{
	size_t left;
	int ok;

	if (*off >= v->options_len)
		return 0;
	left = v->options_len - *off - 1;
	o->type = v->options[*off];
	o->body = v->options + *off + 1;
	o->len = option_body_len(o->type, o->body, left, &ok);
	if (!ok)
		return -1;
	*off += 1 + o->len;
	return 1;
}

unsigned int
sp_i3_common_bits(const uint8_t *a, const uint8_t *b)
{
	/* A word at a time: IDs that match mostly match for 128 bits and more. */
	for (unsigned int i = 0; i < SP_I3_ID_BYTES; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, sizeof(x));
		memcpy(&y, b + i, sizeof(y));
		if (x != y)
			return i * 8 + (unsigned int)__builtin_clzll(be64toh(x ^ y));
	}
	return SP_I3_ID_BYTES * 8;
}
