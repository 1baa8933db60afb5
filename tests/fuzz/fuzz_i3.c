/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the i3 code option, parse() then format(), and the option
 * walker of its wire parser, on an arbitrary inner packet.
 *
 * Input: one control byte, then the packet.
 *   bit 0     the packet was injected by the slow path (send header honoured)
 *   bits 1-7  k: if 0 < k < packet length, the packet is a chain of two
 *             segments, the first k bytes long
 *
 * The slice's memory holds a ring of four nodes (this one at 0x40..) and
 * the record of a trigger at filter position 0, generation 1.
 *
 * Invariants: parse() leaves FORWARD, ROUTED, EXCEPTION or DROP, the last
 * two with a reason. FORWARD: a well-formed data packet with one ID, no
 * options, in this node's range, keyed on the ID's first 112 bits. ROUTED
 * from the wire: to one of the ring's fingers. format() after a match on
 * position 0 forwards only a packet whose ID shares 128 bits with the
 * trigger, and changes nothing but the FIRST_HOP flag. The option walker
 * stays inside the list (the packet is copied to a buffer of its exact size,
 * so AddressSanitizer sees any read past it).
 */
#include <stdlib.h>
#include <string.h>

#include <slicepath/i3.h>

#include "i3/i3_ring.h"
#include "i3/i3_wire.h"
#include "fuzz_pkt.h"
#include "npe/slice.h"

#define FROM_SLOW_PATH 0x01
#define SLICE_ID 9
#define NODES 4
#define MEM_SIZE (SP_I3_TRIGGERS_OFFSET + 4 * sizeof(struct sp_i3_trigger_rec))
#define TRIGGER_GEN 1

static struct rte_mempool *pool;
static const struct sp_codeopt *co;
static struct sp_slice slice;
static uint64_t mem[MEM_SIZE / 8 + 1];
static const uint8_t trigger_id[SP_I3_ID_BYTES] = {0x3f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sp_i3_member m[NODES];
	struct sp_i3_trigger_rec *rec;

	(void)argc;
	(void)argv;
	pool = sp_test_eal_init();
	co = sp_codeopt_find("i3");
	SP_TEST_CHECK(co != NULL, "no i3 code option registered");
	slice.id = SLICE_ID;
	slice.co = co;
	slice.mem = (uint8_t *)mem;
	slice.mem_size = MEM_SIZE;
	SP_TEST_CHECK(co->slice_init(&slice) == 0, "i3 slice_init failed");
	for (int i = 0; i < NODES; i++)
		m[i] = (struct sp_i3_member){.pos = (sp_i3_pos)(0x10 + 0x30 * i) << 120,
					     .ip = (uint32_t)(i + 1), .port = 7000};
	SP_TEST_CHECK(sp_i3_ring_build((struct sp_i3_ring *)slice.mem, m[1].pos, m, NODES, 0, 0) > 0,
		      "no fingers");
	rec = (struct sp_i3_trigger_rec *)(slice.mem + SP_I3_TRIGGERS_OFFSET);
	memcpy(rec->id, trigger_id, SP_I3_ID_BYTES);
	rec->w = (struct sp_i3_trigger_word){TRIGGER_GEN, 1, SP_I3_MIN_PREFIX_BITS};
	return 0;
}

static void
walk_options(const uint8_t *pkt, size_t len)
{
	uint8_t *copy = malloc(len > 0 ? len : 1);
	struct sp_i3_option_view o;
	struct sp_i3_view v;
	size_t off = 0;
	int rc;

	SP_TEST_CHECK(copy != NULL, "out of memory");
	memcpy(copy, pkt, len);
	if (sp_i3_parse(copy, len, &v) == SP_REASON_NONE) {
		SP_TEST_CHECK(v.hdr_len <= len, "header of %zu bytes in %zu", v.hdr_len, len);
		while ((rc = sp_i3_next_option(&v, &off, &o)) == 1)
			SP_TEST_CHECK(off <= v.options_len && o.body + o.len <= v.options + v.options_len,
				      "option past its list");
	}
	free(copy);
}

static void
check_forward(const struct sp_meta *meta, const uint8_t *pkt, size_t len)
{
	const struct sp_i3_ring *r = (const struct sp_i3_ring *)slice.mem;
	struct sp_i3_view v;

	SP_TEST_CHECK(!meta->from_slow_path || pkt[0] != SP_I3_SEND_MAGIC,
		      "a send header was looked up");
	SP_TEST_CHECK(sp_i3_parse(pkt, len, &v) == SP_REASON_NONE, "forwarded a malformed packet");
	SP_TEST_CHECK(v.stack_len == 1 && (v.flags & SP_I3_FLAG_DATA) &&
			      !(v.flags & SP_I3_FLAG_OPTION_LIST),
		      "forwarded flags 0x%02x, stack %u", v.flags, v.stack_len);
	SP_TEST_CHECK(sp_i3_ring_local(sp_i3_pos_get(r->self), sp_i3_pos_get(r->pred),
				       sp_i3_pos_get(v.ids)),
		      "looked up an ID this node is not responsible for");
	SP_TEST_CHECK(memcmp(meta->key.b, v.ids, SP_KEY_BYTES) == 0, "key is not the ID's prefix");
}

static void
check_routed(const struct sp_meta *meta)
{
	const struct sp_i3_ring *r = (const struct sp_i3_ring *)slice.mem;
	bool finger = false;

	if (meta->from_slow_path)
		return; /* anywhere its slow path said */
	for (uint32_t i = 0; i < r->nb_fingers; i++)
		finger |= meta->result.nh_ip == r->fingers[i].nh_ip;
	SP_TEST_CHECK(finger, "routed to %08x, not a finger", meta->result.nh_ip);
}

/* format() as after a match on the trigger at position 0. */
static void
check_format(struct rte_mbuf *m, const uint8_t *pkt, size_t len)
{
	struct sp_meta *meta = sp_meta(m);
	uint32_t gen = TRIGGER_GEN;
	const uint8_t *now;
	unsigned int same = 0;

	meta->filter = 0;
	memcpy(meta->result.data, &gen, sizeof(gen));
	co->format(&slice, &m, 1);
	if (meta->verdict != SP_FORWARD) {
		SP_TEST_CHECK(meta->verdict == SP_EXCEPTION, "format() left verdict %u",
			      meta->verdict);
		return;
	}
	while (same < SP_I3_ID_BYTES && pkt[SP_I3_HDR_BYTES + same] == trigger_id[same])
		same++;
	SP_TEST_CHECK(same >= SP_I3_MIN_PREFIX_BITS / 8, "matched a trigger on %u bytes", same);
	now = rte_pktmbuf_mtod(m, const uint8_t *);
	SP_TEST_CHECK(rte_pktmbuf_pkt_len(m) == len && now[1] == (pkt[1] & ~SP_I3_FLAG_FIRST_HOP) &&
			      now[0] == pkt[0] && memcmp(now + 2, pkt + 2, len - 2) == 0,
		      "format() changed more than FIRST_HOP");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int in_use = rte_mempool_in_use_count(pool);
	size_t len = size > 0 ? RTE_MIN(size - 1, (size_t)SP_FUZZ_MAX_PKT) : 0;
	const uint8_t *pkt = data + (size > 0);
	struct rte_mbuf *m;
	struct sp_meta *meta;

	walk_options(pkt, len);
	m = sp_fuzz_mbuf(pkt, len, size > 0 ? data[0] >> 1 : 0, 0);
	meta = sp_meta(m);
	meta->slice = SLICE_ID;
	meta->from_slow_path = size > 0 && (data[0] & FROM_SLOW_PATH);

	co->parse(&slice, &m, 1);

	switch (meta->verdict) {
	case SP_FORWARD:
		check_forward(meta, pkt, len);
		check_format(m, pkt, len);
		break;
	case SP_ROUTED:
		check_routed(meta);
		break;
	default:
		sp_fuzz_check_left(meta);
	}
	sp_fuzz_free_all(pool, m, in_use);
	return 0;
}
