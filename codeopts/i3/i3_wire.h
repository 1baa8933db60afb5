/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading i3 headers (slicepath/i3.h) from bytes: one parser for the fast
 * path, the slow path and the fuzzer. No DPDK.
 */
#ifndef SP_I3_WIRE_H
#define SP_I3_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <slicepath/i3.h>
#include <slicepath/reason.h>

struct sp_i3_view {
	uint8_t flags;
	uint8_t stack_len;
	const uint8_t *ids;     /* stack_len IDs of SP_I3_ID_BYTES */
	const uint8_t *options; /* the first option (NULL without OPTION_LIST) */
	size_t options_len;     /* bytes of options, the list's length field excluded */
	size_t hdr_len;         /* where the payload starts */
};

/*
 * Check the header of the len bytes at p and describe it in *v. Returns
 * SP_REASON_NONE, SP_REASON_MALFORMED (shorter than 3 bytes, another
 * version, an unknown flag, a stack length byte over 15) or
 * SP_REASON_BAD_HDR_LEN (IDs or the option list cut short, an option-list
 * length below its own 2 bytes).
 */
enum sp_reason sp_i3_parse(const uint8_t *p, size_t len, struct sp_i3_view *v);

struct sp_i3_option_view {
	uint8_t type;        /* enum sp_i3_option */
	const uint8_t *body; /* the bytes after the type */
	size_t len;          /* body bytes */
};

/*
 * The option at *off (0 for the first) of v's option list into *o, *off
 * moved past it. Returns 1, 0 at the end of the list, or -1 for an option
 * of unknown type or whose body does not fit in the list.
 */
int sp_i3_next_option(const struct sp_i3_view *v, size_t *off, struct sp_i3_option_view *o);

/* How many leading bits the two IDs share (SP_I3_ID_BYTES bytes each). */
unsigned int sp_i3_common_bits(const uint8_t *a, const uint8_t *b);

/* Bytes of the i3 trigger at p, at most len; 0 when malformed or longer than len. */
size_t sp_i3_trigger_len(const uint8_t *p, size_t len);

#endif
