/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The i3 code option: packets built byte by byte from the i3 wire format,
 * every malformed case, the Chord ring (responsibility, finger choice, a
 * whole ring routing every ID to its node), trigger records in format(),
 * and the slow path's send header.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_mbuf.h>

#include <slicepath/codeopt.h>
#include <slicepath/i3.h>

#include "i3/i3_ring.h"
#include "i3/i3_wire.h"
#include "sp_test.h"
#include "npe/slice.h"

#define MEM_SIZE (SP_I3_TRIGGERS_OFFSET + 16 * sizeof(struct sp_i3_trigger_rec))
#define MAX_PKT 1024

static const struct sp_codeopt *co;
static uint64_t mem_words[MEM_SIZE / 8 + 1];
static struct sp_slice slice = {.id = 1, .mem = (uint8_t *)mem_words, .mem_size = MEM_SIZE};

static struct sp_i3_ring *
ring(void)
{
	return (struct sp_i3_ring *)slice.mem;
}

static struct sp_i3_trigger_rec *
record(uint32_t position)
{
	return (struct sp_i3_trigger_rec *)(slice.mem + SP_I3_TRIGGERS_OFFSET) + position;
}

static void
id_fill(uint8_t *id, uint8_t first, uint8_t rest)
{
	memset(id, rest, SP_I3_ID_BYTES);
	id[0] = first;
}

/* version, flags, n IDs, then (optlen >= 0) a 2-byte list length and opt bytes, then payload. */
static size_t
build(uint8_t *p, uint8_t flags, uint8_t stack_byte, const uint8_t *ids, unsigned int n,
      int optlen, const uint8_t *opts, size_t opts_len, const char *payload)
{
	size_t at = 0;

	p[at++] = SP_I3_VERSION;
	p[at++] = flags;
	p[at++] = stack_byte;
	memcpy(p + at, ids, (size_t)n * SP_I3_ID_BYTES);
	at += (size_t)n * SP_I3_ID_BYTES;
	if (optlen >= 0) {
		p[at++] = (uint8_t)(optlen >> 8);
		p[at++] = (uint8_t)optlen;
		if (opts_len > 0) /* opts may be NULL then, which memcpy may not take */
			memcpy(p + at, opts, opts_len);
		at += opts_len;
	}
	memcpy(p + at, payload, strlen(payload));
	return at + strlen(payload);
}

/* A data packet to id: flags DATA|FIRST_HOP, one ID, "hello". */
static size_t
data_to(uint8_t *p, const uint8_t *id)
{
	return build(p, SP_I3_FLAG_DATA | SP_I3_FLAG_FIRST_HOP, 1, id, 1, -1, NULL, 0, "hello");
}

static struct rte_mbuf *
parse1(const uint8_t *bytes, size_t len, bool from_slow_path)
{
	struct rte_mbuf *m = sp_test_pkt(bytes, len, 0);

	assert_non_null(m);
	memset(sp_meta(m), 0, sizeof(struct sp_meta));
	sp_meta(m)->from_slow_path = from_slow_path;
	co->parse(&slice, &m, 1);
	return m;
}

static void
expect_verdict(const uint8_t *bytes, size_t len, enum sp_verdict v, enum sp_reason r)
{
	struct rte_mbuf *m = parse1(bytes, len, false);

	assert_int_equal(sp_meta(m)->verdict, v);
	assert_int_equal(sp_meta(m)->reason, r);
	rte_pktmbuf_free(m);
}

static void
reset_mem(void)
{
	memset(slice.mem, 0, MEM_SIZE);
}

static void
test_registered(void **state)
{
	(void)state;
	assert_non_null(co);
	assert_int_equal(co->abi_version, SP_CODEOPT_ABI);
	/* Too small a memory block for the ring and one trigger is refused. */
	slice.mem_size = SP_I3_TRIGGERS_OFFSET;
	assert_int_equal(co->slice_init(&slice), -EINVAL);
	slice.mem_size = MEM_SIZE;
	assert_int_equal(co->slice_init(&slice), 0);
}

static void
test_malformed_dropped(void **state)
{
	uint8_t p[MAX_PKT] = {0}, ids[2 * SP_I3_ID_BYTES];
	size_t len;

	(void)state;
	reset_mem();
	id_fill(ids, 0x11, 0x22);
	id_fill(ids + SP_I3_ID_BYTES, 0x33, 0x44);
	expect_verdict(p, 0, SP_DROP, SP_REASON_MALFORMED);
	len = data_to(p, ids);
	expect_verdict(p, 2, SP_DROP, SP_REASON_MALFORMED); /* no stack length */
	p[0] = 0x20;                                           /* another version */
	expect_verdict(p, len, SP_DROP, SP_REASON_MALFORMED);
	/* Every flag bit outside DATA, OPTION_LIST, FIRST_HOP. */
	for (unsigned int bit = 0; bit < 8; bit++) {
		if ((1u << bit) & SP_I3_FLAGS)
			continue;
		len = build(p, (uint8_t)(SP_I3_FLAG_DATA | 1u << bit), 1, ids, 1, -1, NULL, 0, "x");
		expect_verdict(p, len, SP_DROP, SP_REASON_MALFORMED);
	}
	/* Stack length byte over 15: 16, and a high nibble over a valid count. */
	len = build(p, SP_I3_FLAG_DATA, 16, ids, 1, -1, NULL, 0, "x");
	expect_verdict(p, len, SP_DROP, SP_REASON_MALFORMED);
	len = build(p, SP_I3_FLAG_DATA, 0x21, ids, 1, -1, NULL, 0, "x");
	expect_verdict(p, len, SP_DROP, SP_REASON_MALFORMED);
	/* IDs cut short: two announced, one and a half there; one announced, 31 bytes. */
	len = build(p, SP_I3_FLAG_DATA, 2, ids, 1, -1, NULL, 0, "0123456789abcdef");
	expect_verdict(p, len, SP_DROP, SP_REASON_BAD_HDR_LEN);
	expect_verdict(p, SP_I3_HDR_BYTES + SP_I3_ID_BYTES - 1, SP_DROP, SP_REASON_BAD_HDR_LEN);
	/* Option list: its length missing, half there, under its own 2 bytes, past the end. */
	len = build(p, SP_I3_FLAG_OPTION_LIST, 1, ids, 1, -1, NULL, 0, "");
	expect_verdict(p, len, SP_DROP, SP_REASON_BAD_HDR_LEN);
	p[len] = 0;
	expect_verdict(p, len + 1, SP_DROP, SP_REASON_BAD_HDR_LEN);
	for (int bad = 0; bad < 2; bad++) {
		len = build(p, SP_I3_FLAG_OPTION_LIST, 1, ids, 1, bad, NULL, 0, "abc");
		expect_verdict(p, len, SP_DROP, SP_REASON_BAD_HDR_LEN);
	}
	len = build(p, SP_I3_FLAG_OPTION_LIST | SP_I3_FLAG_DATA, 1, ids, 1, 2 + 4, NULL, 0, "abc");
	expect_verdict(p, len, SP_DROP, SP_REASON_BAD_HDR_LEN);
	/* ...and exactly at the end is well formed (slow path work: options). */
	len = build(p, SP_I3_FLAG_OPTION_LIST | SP_I3_FLAG_DATA, 1, ids, 1, 2 + 3, NULL, 0, "abc");
	expect_verdict(p, len, SP_EXCEPTION, SP_REASON_OPTIONS);
}

static void
test_slow_path_work(void **state)
{
	uint8_t p[MAX_PKT], ids[3 * SP_I3_ID_BYTES];
	size_t len;

	(void)state;
	reset_mem();
	memset(ids, 0x5a, sizeof(ids));
	/* Options, even an empty list. */
	len = build(p, SP_I3_FLAG_DATA | SP_I3_FLAG_OPTION_LIST, 1, ids, 1, 2, NULL, 0, "pay");
	expect_verdict(p, len, SP_EXCEPTION, SP_REASON_OPTIONS);
	/* A stack of IDs, or none (a control message to the node itself). */
	len = build(p, SP_I3_FLAG_DATA, 3, ids, 3, -1, NULL, 0, "pay");
	expect_verdict(p, len, SP_EXCEPTION, SP_REASON_UNSUPPORTED);
	len = build(p, SP_I3_FLAG_DATA, 0, ids, 0, -1, NULL, 0, "pay");
	expect_verdict(p, len, SP_EXCEPTION, SP_REASON_UNSUPPORTED);
	/* Not a data packet. */
	len = build(p, SP_I3_FLAG_FIRST_HOP, 1, ids, 1, -1, NULL, 0, "");
	expect_verdict(p, len, SP_EXCEPTION, SP_REASON_UNSUPPORTED);
}

static void
test_chain_to_slow_path(void **state)
{
	uint8_t p[MAX_PKT], id[SP_I3_ID_BYTES];
	struct rte_mbuf *m, *tail;
	size_t len;

	(void)state;
	reset_mem();
	id_fill(id, 1, 2);
	len = data_to(p, id);
	m = sp_test_pkt(p, 10, 0);
	tail = sp_test_pkt(p + 10, len - 10, 0);
	assert_int_equal(rte_pktmbuf_chain(m, tail), 0);
	memset(sp_meta(m), 0, sizeof(struct sp_meta));
	co->parse(&slice, &m, 1);
	assert_int_equal(sp_meta(m)->verdict, SP_EXCEPTION);
	assert_int_equal(sp_meta(m)->reason, SP_REASON_UNSUPPORTED);
	rte_pktmbuf_free(m);
}

static void
test_options_walk(void **state)
{
	/* SENDER 10.0.0.1:5000, INSERT of a trigger to 10.0.0.2:6000, NOT_PRESENT, REQUEST_FOR_CACHE. */
	uint8_t opts[256], p[MAX_PKT], id[SP_I3_ID_BYTES];
	static const uint8_t sender[] = {SP_I3_OPT_SENDER, SP_I3_ADDR_IPV4, 10, 0, 0, 1, 0x13, 0x88};
	struct sp_i3_option_view o;
	struct sp_i3_view v;
	size_t n = 0, off = 0, len;

	(void)state;
	id_fill(id, 0xab, 0xcd);
	memcpy(opts, sender, sizeof(sender));
	n += sizeof(sender);
	opts[n++] = SP_I3_OPT_TRIGGER_INSERT;
	memset(opts + n, 0, SP_I3_TRIG_ADDR);
	memcpy(opts + n + SP_I3_TRIG_ID, id, SP_I3_ID_BYTES);
	opts[n + SP_I3_TRIG_PREFIX_LEN + 1] = 128;
	memcpy(opts + n + SP_I3_TRIG_ADDR, (uint8_t[]){SP_I3_ADDR_IPV4, 10, 0, 0, 2, 0x17, 0x70}, 7);
	memset(opts + n + SP_I3_TRIG_ADDR + 7, 0x99, SP_I3_KEY_BYTES);
	n += SP_I3_TRIG_ADDR + 7 + SP_I3_KEY_BYTES;
	opts[n++] = SP_I3_OPT_TRIGGER_NOT_PRESENT;
	memcpy(opts + n, id, SP_I3_ID_BYTES);
	n += SP_I3_ID_BYTES;
	opts[n++] = SP_I3_OPT_REQUEST_FOR_CACHE;
	len = build(p, SP_I3_FLAG_OPTION_LIST | SP_I3_FLAG_FIRST_HOP, 1, id, 1, (int)(n + 2), opts,
		    n, "");
	assert_int_equal(sp_i3_parse(p, len, &v), SP_REASON_NONE);
	assert_int_equal(v.options_len, n);
	assert_int_equal(v.hdr_len, len);
	assert_int_equal(sp_i3_next_option(&v, &off, &o), 1);
	assert_int_equal(o.type, SP_I3_OPT_SENDER);
	assert_int_equal(o.len, 7);
	assert_int_equal(sp_i3_next_option(&v, &off, &o), 1);
	assert_int_equal(o.type, SP_I3_OPT_TRIGGER_INSERT);
	assert_int_equal(o.len, SP_I3_TRIG_ADDR + 7 + SP_I3_KEY_BYTES);
	assert_memory_equal(o.body + SP_I3_TRIG_ID, id, SP_I3_ID_BYTES);
	assert_int_equal(sp_i3_next_option(&v, &off, &o), 1);
	assert_int_equal(o.type, SP_I3_OPT_TRIGGER_NOT_PRESENT);
	assert_int_equal(sp_i3_next_option(&v, &off, &o), 1);
	assert_int_equal(o.type, SP_I3_OPT_REQUEST_FOR_CACHE);
	assert_int_equal(o.len, 0);
	assert_int_equal(sp_i3_next_option(&v, &off, &o), 0);
	/* An unknown type, and a trigger cut short by the list's end. */
	opts[0] = 0x0c;
	build(p, SP_I3_FLAG_OPTION_LIST, 1, id, 1, (int)(n + 2), opts, n, "");
	off = 0;
	assert_int_equal(sp_i3_parse(p, len, &v), SP_REASON_NONE);
	assert_int_equal(sp_i3_next_option(&v, &off, &o), -1);
	opts[0] = SP_I3_OPT_SENDER;
	len = build(p, SP_I3_FLAG_OPTION_LIST, 1, id, 1, (int)(sizeof(sender) + 20 + 2), opts,
		    sizeof(sender) + 20, "");
	off = 0;
	assert_int_equal(sp_i3_parse(p, len, &v), SP_REASON_NONE);
	assert_int_equal(sp_i3_next_option(&v, &off, &o), 1);
	assert_int_equal(sp_i3_next_option(&v, &off, &o), -1);
	/* A trigger to a stack has no key; an address type that does not exist. */
	memset(opts, 0, sizeof(opts));
	opts[SP_I3_TRIG_ADDR] = SP_I3_ADDR_STACK;
	opts[SP_I3_TRIG_ADDR + 1] = 1;
	assert_int_equal(sp_i3_trigger_len(opts, sizeof(opts)), SP_I3_TRIG_ADDR + 2 + SP_I3_ID_BYTES);
	opts[SP_I3_TRIG_ADDR] = 0x50;
	assert_int_equal(sp_i3_trigger_len(opts, sizeof(opts)), 0);
}

/* Node positions 0x10.., 0x40.., 0x80.., 0xc0.. (top byte), each at port 7000 + top byte. */
static void
four_nodes(struct sp_i3_member *m)
{
	static const uint8_t tops[] = {0x10, 0x40, 0x80, 0xc0};

	for (int i = 0; i < 4; i++) {
		uint8_t b[SP_I3_RING_BYTES] = {tops[i]};

		m[i] = (struct sp_i3_member){.pos = sp_i3_pos_get(b), .ip = (uint32_t)(i + 1),
					     .port = (uint16_t)(7000 + tops[i])};
	}
}

static void
test_ring_build(void **state)
{
	struct sp_i3_member m[4];
	struct sp_i3_ring *r = ring();
	uint8_t b[SP_I3_RING_BYTES] = {0x40};

	(void)state;
	reset_mem();
	four_nodes(m);
	/* The node at 0x40..: predecessor 0x10..; fingers 0x80.. (2^0 .. 2^125 past it)
	 * and 0xc0.. (2^126), and 0x40 + 2^127 = 0xc0.. too; never itself. */
	assert_int_equal(sp_i3_ring_build(r, sp_i3_pos_get(b), m, 4, 2, 3), 2);
	assert_int_equal(r->pred[0], 0x10);
	assert_int_equal(r->self[0], 0x40);
	assert_int_equal(r->fingers[0].pos[0], 0x80);
	assert_int_equal(r->fingers[1].pos[0], 0xc0);
	assert_int_equal(r->fingers[1].nh_port, 7000 + 0xc0);
	assert_int_equal(r->fingers[0].endpoint, 2);
	assert_int_equal(r->fingers[0].queue, 3);
	/* A ring of one: its own predecessor, no fingers. */
	assert_int_equal(sp_i3_ring_build(r, sp_i3_pos_get(b), &m[1], 1, 0, 0), 0);
	assert_memory_equal(r->pred, r->self, SP_I3_RING_BYTES);
}

static void
test_ring_local(void **state)
{
	sp_i3_pos self = 100, pred = 50;

	(void)state;
	assert_true(sp_i3_ring_local(self, pred, 100));
	assert_true(sp_i3_ring_local(self, pred, 51));
	assert_false(sp_i3_ring_local(self, pred, 50));
	assert_false(sp_i3_ring_local(self, pred, 101));
	assert_false(sp_i3_ring_local(self, pred, 0));
	/* Wrapping past zero: (2^128 - 10, 5]. */
	assert_true(sp_i3_ring_local(5, (sp_i3_pos)0 - 10, 0));
	assert_true(sp_i3_ring_local(5, (sp_i3_pos)0 - 10, (sp_i3_pos)0 - 1));
	assert_false(sp_i3_ring_local(5, (sp_i3_pos)0 - 10, (sp_i3_pos)0 - 10));
	assert_false(sp_i3_ring_local(5, (sp_i3_pos)0 - 10, 6));
	assert_true(sp_i3_ring_local(7, 7, 12345));
}

/* The member responsible for pos. */
static size_t
owner_of(const struct sp_i3_member *m, size_t n, sp_i3_pos pos)
{
	size_t best = 0;

	for (size_t i = 1; i < n; i++)
		if (m[i].pos - pos < m[best].pos - pos)
			best = i;
	return best;
}

/* Chord on 40 random nodes: from any node, every ID reaches its owner in a few hops. */
static void
test_ring_routes_every_id_home(void **state)
{
	enum { NODES = 40, IDS = 400 };
	static struct sp_i3_ring rings[NODES];
	struct sp_i3_member m[NODES];
	unsigned int max_hops = 0;

	(void)state;
	for (size_t i = 0; i < NODES; i++) {
		m[i].pos = (sp_i3_pos)sp_test_rnd() << 64 | sp_test_rnd();
		m[i].ip = (uint32_t)i;
		m[i].port = 0;
	}
	for (size_t i = 0; i < NODES; i++)
		assert_true(sp_i3_ring_build(&rings[i], m[i].pos, m, NODES, 0, 0) > 0);
	for (int k = 0; k < IDS; k++) {
		sp_i3_pos id = (sp_i3_pos)sp_test_rnd() << 64 | sp_test_rnd();
		size_t at = (size_t)sp_test_rnd() % NODES;
		unsigned int hops = 0;

		while (!sp_i3_ring_local(m[at].pos, sp_i3_pos_get(rings[at].pred), id)) {
			int f = sp_i3_ring_finger(rings[at].fingers, rings[at].nb_fingers, m[at].pos,
						  id);

			assert_true(f >= 0);
			at = rings[at].fingers[f].nh_ip;
			assert_true(++hops <= NODES);
		}
		assert_int_equal(at, owner_of(m, NODES, id));
		max_hops = hops > max_hops ? hops : max_hops;
	}
	/* Chord's O(log N): log2(40) is about 5.3. */
	assert_true(max_hops <= 8);
}

/* This test's ring: the node at 0x40.. among four_nodes(). */
static void
install_ring(void)
{
	struct sp_i3_member m[4];
	uint8_t b[SP_I3_RING_BYTES] = {0x40};

	reset_mem();
	four_nodes(m);
	for (int i = 0; i < 4; i++)
		m[i].ip = 0x0a000000u + (uint32_t)i;
	assert_int_equal(sp_i3_ring_build(ring(), sp_i3_pos_get(b), m, 4, 1, 2), 2);
}

static void
test_parse_routes(void **state)
{
	uint8_t p[MAX_PKT], id[SP_I3_ID_BYTES];
	struct rte_mbuf *m;
	size_t len;

	(void)state;
	install_ring();
	/* In (0x10.., 0x40..]: the key is the ID's first 112 bits. */
	id_fill(id, 0x3f, 0x77);
	len = data_to(p, id);
	m = parse1(p, len, false);
	assert_int_equal(sp_meta(m)->verdict, SP_FORWARD);
	assert_memory_equal(sp_meta(m)->key.b, id, SP_KEY_BYTES);
	rte_pktmbuf_free(m);
	/* 0x90..: the finger at 0x80.. precedes it most closely. */
	id_fill(id, 0x90, 0);
	len = data_to(p, id);
	m = parse1(p, len, false);
	assert_int_equal(sp_meta(m)->verdict, SP_ROUTED);
	assert_int_equal(sp_meta(m)->result.nh_port, 7000 + 0x80);
	assert_int_equal(sp_meta(m)->result.endpoint, 1);
	assert_int_equal(sp_meta(m)->result.queue, 2);
	rte_pktmbuf_free(m);
	/* 0x05..: past 0xc0.., wrapping; 0x41..: before the first finger, to the successor. */
	id_fill(id, 0x05, 0);
	m = parse1(p, data_to(p, id), false);
	assert_int_equal(sp_meta(m)->result.nh_port, 7000 + 0xc0);
	rte_pktmbuf_free(m);
	id_fill(id, 0x41, 0);
	m = parse1(p, data_to(p, id), false);
	assert_int_equal(sp_meta(m)->result.nh_port, 7000 + 0x80);
	rte_pktmbuf_free(m);
	/* The slow path is writing the ring (odd seq), or wrote no finger: its work. */
	ring()->seq = 1;
	expect_verdict(p, data_to(p, id), SP_EXCEPTION, SP_REASON_UNSUPPORTED);
	ring()->seq = 2;
	ring()->nb_fingers = 0;
	expect_verdict(p, data_to(p, id), SP_EXCEPTION, SP_REASON_UNSUPPORTED);
}

/* parse() then, if forwarded, a filter at position pos with generation gen, then format(). */
static struct rte_mbuf *
through(const uint8_t *bytes, size_t len, uint32_t pos, uint32_t gen)
{
	struct rte_mbuf *m = parse1(bytes, len, false);
	struct sp_meta *meta = sp_meta(m);

	if (meta->verdict == SP_FORWARD) {
		meta->filter = pos;
		memcpy(meta->result.data, &gen, sizeof(gen));
	} else if (meta->verdict == SP_ROUTED) {
		meta->verdict = SP_FORWARD;
		meta->filter = SP_FILTER_NONE;
	}
	co->format(&slice, &m, 1);
	return m;
}

static void
put_record(uint32_t pos, const uint8_t *id, uint32_t gen, uint16_t count, uint16_t min_bits)
{
	memcpy(record(pos)->id, id, SP_I3_ID_BYTES);
	record(pos)->w = (struct sp_i3_trigger_word){gen, count, min_bits};
}

static void
expect_format(const uint8_t *id, uint32_t pos, uint32_t gen, enum sp_verdict v)
{
	uint8_t p[MAX_PKT];
	size_t len = data_to(p, id);
	struct rte_mbuf *m = through(p, len, pos, gen);

	assert_int_equal(sp_meta(m)->verdict, v);
	if (v == SP_FORWARD) {
		/* FIRST_HOP cleared, nothing else changed. */
		p[1] = SP_I3_FLAG_DATA;
		assert_int_equal(rte_pktmbuf_pkt_len(m), len);
		assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), p, len);
	} else {
		assert_int_equal(sp_meta(m)->reason, SP_REASON_UNSUPPORTED);
	}
	rte_pktmbuf_free(m);
}

static void
test_format_checks_trigger(void **state)
{
	uint8_t trig[SP_I3_ID_BYTES], id[SP_I3_ID_BYTES];

	(void)state;
	install_ring();
	id_fill(trig, 0x3f, 0x77);
	memcpy(id, trig, sizeof(id));
	id[20] ^= 0x01; /* bit 167 differs: 167 leading bits match */
	put_record(5, trig, 9, 1, 128);
	expect_format(id, 5, 9, SP_FORWARD);
	expect_format(id, 5, 8, SP_EXCEPTION);  /* stale generation */
	put_record(5, trig, 9, 2, 128);
	expect_format(id, 5, 9, SP_EXCEPTION);  /* two triggers share the key */
	put_record(5, trig, 9, 1, 168);
	expect_format(id, 5, 9, SP_EXCEPTION);  /* the trigger wants 168 bits */
	put_record(5, trig, 9, 1, 167);
	expect_format(id, 5, 9, SP_FORWARD);
	id[15] ^= 0x80; /* bit 120 differs: under 128 */
	put_record(5, trig, 9, 1, 128);
	expect_format(id, 5, 9, SP_EXCEPTION);
	/* A position whose record lies beyond the slice's memory. */
	expect_format(trig, 16, 0, SP_EXCEPTION);
	/* Routed packets have no record to check. */
	id_fill(id, 0x90, 0);
	expect_format(id, 0, 0, SP_FORWARD);
}

static void
test_send_header(void **state)
{
	uint8_t p[MAX_PKT], id[SP_I3_ID_BYTES];
	struct sp_i3_send h = {.magic = SP_I3_SEND_MAGIC, .endpoint = 3, .queue = 4,
			       .nh_port = 0x1234, .nh_ip = 0x0100000a};
	struct rte_mbuf *m;
	size_t len;

	(void)state;
	install_ring();
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), "any bytes", 9);
	m = parse1(p, sizeof(h) + 9, true);
	assert_int_equal(sp_meta(m)->verdict, SP_ROUTED);
	assert_int_equal(sp_meta(m)->result.nh_ip, 0x0100000a);
	assert_int_equal(sp_meta(m)->result.endpoint, 3);
	assert_int_equal(rte_pktmbuf_pkt_len(m), 9);
	rte_pktmbuf_free(m);
	/* From the wire the same bytes are no i3 packet. */
	expect_verdict(p, sizeof(h) + 9, SP_DROP, SP_REASON_MALFORMED);
	/* nh_ip 0: by the ring, whatever the packet carries (options here)... */
	h.nh_ip = 0;
	memcpy(p, &h, sizeof(h));
	id_fill(id, 0x90, 0);
	len = build(p + sizeof(h), SP_I3_FLAG_OPTION_LIST, 1, id, 1, 2, NULL, 0, "");
	m = parse1(p, sizeof(h) + len, true);
	assert_int_equal(sp_meta(m)->verdict, SP_ROUTED);
	assert_int_equal(sp_meta(m)->result.nh_port, 7000 + 0x80);
	rte_pktmbuf_free(m);
	/* ...but not to this node itself (it would only come back), nor without an ID. */
	id_fill(id, 0x30, 0);
	len = build(p + sizeof(h), SP_I3_FLAG_DATA, 1, id, 1, -1, NULL, 0, "");
	m = parse1(p, sizeof(h) + len, true);
	assert_int_equal(sp_meta(m)->verdict, SP_DROP);
	rte_pktmbuf_free(m);
	len = build(p + sizeof(h), SP_I3_FLAG_DATA, 0, id, 0, -1, NULL, 0, "");
	m = parse1(p, sizeof(h) + len, true);
	assert_int_equal(sp_meta(m)->verdict, SP_DROP);
	assert_int_equal(sp_meta(m)->reason, SP_REASON_MALFORMED);
	rte_pktmbuf_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registered),
		cmocka_unit_test(test_malformed_dropped),
		cmocka_unit_test(test_slow_path_work),
		cmocka_unit_test(test_chain_to_slow_path),
		cmocka_unit_test(test_options_walk),
		cmocka_unit_test(test_ring_build),
		cmocka_unit_test(test_ring_local),
		cmocka_unit_test(test_ring_routes_every_id_home),
		cmocka_unit_test(test_parse_routes),
		cmocka_unit_test(test_format_checks_trigger),
		cmocka_unit_test(test_send_header),
	};

	sp_test_eal_init();
	co = sp_codeopt_find("i3");
	slice.co = co; /* as sp_slice_create() sets it: the code option's log lines name it */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
