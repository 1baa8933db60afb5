/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The i3 code option (codeopts/i3): the Internet Indirection Infrastructure
 * header as the public Berkeley implementation puts it on the wire, and the
 * slice memory the i3 slow path writes for the fast path. No DPDK here: the
 * slow path, tests and tools include it too.
 *
 * Wire (all multi-byte fields in network order):
 *
 *   0 version (0x10) | 1 flags | 2 stack length (0..15) | 3.. that many 32-byte IDs
 *   | if OPTION_LIST: 2-byte option-list length (counting itself), the options
 *   | the payload, up to the end of the UDP datagram
 *
 * Each option is one type byte and a body whose size follows from the type.
 */
#ifndef SLICEPATH_I3_H
#define SLICEPATH_I3_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_I3_VERSION 0x10
#define SP_I3_FLAG_DATA 0x10
#define SP_I3_FLAG_OPTION_LIST 0x20
#define SP_I3_FLAG_FIRST_HOP 0x40
#define SP_I3_FLAGS (SP_I3_FLAG_DATA | SP_I3_FLAG_OPTION_LIST | SP_I3_FLAG_FIRST_HOP)
#define SP_I3_HDR_BYTES 3 /* version, flags, stack length */
#define SP_I3_ID_BYTES 32
#define SP_I3_MAX_STACK 15
#define SP_I3_OPTLEN_BYTES 2
/* A trigger matches an ID when at least this many leading bits are equal. */
#define SP_I3_MIN_PREFIX_BITS 128

enum sp_i3_option {
	SP_I3_OPT_SENDER = 0x01,            /* i3 address: where replies go */
	SP_I3_OPT_TRIGGER_INSERT = 0x02,    /* trigger */
	SP_I3_OPT_TRIGGER_CHALLENGE = 0x03, /* trigger, its nonce filled in by the server */
	SP_I3_OPT_TRIGGER_ACK = 0x04,       /* trigger */
	SP_I3_OPT_TRIGGER_REMOVE = 0x05,    /* trigger */
	SP_I3_OPT_TRIGGER_NOT_PRESENT = 0x06, /* ID */
	SP_I3_OPT_REQUEST_FOR_CACHE = 0x07, /* empty */
	SP_I3_OPT_CACHE_ADDR = 0x08,        /* trigger */
	SP_I3_OPT_FORCE_CACHE_ADDR = 0x09,  /* trigger */
	SP_I3_OPT_CONSTRAINT_FAILED = 0x10, /* trigger */
	SP_I3_OPT_ROUTE_BROKEN = 0x11,      /* trigger */
};

/* An i3 address: one type byte, then its body. */
enum sp_i3_addr_type {
	SP_I3_ADDR_STACK = 0x10, /* stack length byte and IDs */
	SP_I3_ADDR_IPV4 = 0x20,  /* 4-byte address, 2-byte port */
	SP_I3_ADDR_IPV6 = 0x30,  /* 16-byte address, 2-byte port */
};

/* A trigger: flags, ID, 2-byte prefix length, nonce, its target (an i3
 * address), and a key unless the target is a stack. */
#define SP_I3_NONCE_BYTES 16
#define SP_I3_KEY_BYTES 16
enum sp_i3_trigger_off {
	SP_I3_TRIG_FLAGS = 0,
	SP_I3_TRIG_ID = 1,
	SP_I3_TRIG_PREFIX_LEN = 33,
	SP_I3_TRIG_NONCE = 35,
	SP_I3_TRIG_ADDR = 51,
};

/*
 * Slice memory, written by the slow path, read by the fast path; host byte
 * order except addresses and ports. It starts with the Chord ring, then one
 * trigger record per filter position.
 *
 * Chord positions are the first 128 bits of IDs (SP_I3_RING_BYTES), so that
 * every ID a trigger matches (at least 128 equal bits) falls on the node
 * that holds the trigger. The node is responsible for the IDs in
 * (pred, self]; others go to the finger that most closely precedes them.
 */
#define SP_I3_RING_BYTES 16
#define SP_I3_MAX_FINGERS 64

struct sp_i3_finger {
	uint8_t pos[SP_I3_RING_BYTES]; /* the node's position */
	uint32_t nh_ip;                /* its address, network order */
	uint16_t nh_port;              /* its UDP port, network order */
	uint16_t endpoint;             /* slice-relative endpoint to send from */
	uint16_t queue;                /* slice-relative queue */
	uint8_t reserved[6];
};

struct sp_i3_ring {
	/* Bumped to odd before the slow path writes the rest, to even after:
	 * the fast path hands a packet that saw it odd or changed to the slow path. */
	uint64_t seq;
	uint8_t self[SP_I3_RING_BYTES];
	uint8_t pred[SP_I3_RING_BYTES]; /* equal to self: responsible for every ID */
	uint32_t nb_fingers;
	uint32_t reserved;
	struct sp_i3_finger fingers[SP_I3_MAX_FINGERS]; /* distinct nodes, nearest first */
};

/*
 * The record of the trigger filter at position p, at
 * SP_I3_TRIGGERS_OFFSET + p * sizeof(struct sp_i3_trigger_rec). The
 * filter's key is the ID's first 112 bits (exact); its result sends to the
 * trigger's address, and its data holds the record's generation (4 bytes,
 * host order). The fast path forwards only when the generation agrees, a
 * single trigger has that key, and at least min_bits bits of its ID match.
 * The slow path writes the ID before the word, and the word last.
 */
struct sp_i3_trigger_word {
	uint32_t gen;
	uint16_t count;    /* triggers whose IDs share the key; only 1 is the fast path's */
	uint16_t min_bits; /* max(SP_I3_MIN_PREFIX_BITS, the trigger's prefix length) */
};
struct sp_i3_trigger_rec {
	uint8_t id[SP_I3_ID_BYTES];
	union {
		struct sp_i3_trigger_word w;
		uint64_t word; /* w as one aligned word, read and written whole */
	};
};
#define SP_I3_TRIGGERS_OFFSET sizeof(struct sp_i3_ring)

/*
 * What the slow path puts in front of a packet it injects to have it sent
 * as is: from endpoint into queue (slice-relative) to nh_ip:nh_port; with
 * nh_ip 0, the packet (an i3 packet) goes to the finger for its first ID
 * instead. The fast path honours it only on injected packets (its magic is
 * never an i3 version byte).
 */
#define SP_I3_SEND_MAGIC 0x5e
struct sp_i3_send {
	uint8_t magic;
	uint8_t reserved;
	uint16_t endpoint;
	uint16_t queue;
	uint16_t nh_port; /* network order */
	uint32_t nh_ip;   /* network order */
};

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_I3_H */
