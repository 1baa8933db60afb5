/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NPE's hold of frames waiting for ARP (src/encap/neigh_hold.c): a few
 * frames a next hop, in arrival order, a deadline per next hop from its
 * first frame, full hops and a full hold refused; it never looks into the
 * frames (fake pointers here).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "encap/neigh_hold.h"

/* Next hop i: IPv4 10.0.x.y for even i, IPv6 2001:db8::i for odd ones, all on port 1. */
#define KEY(i) (i)
#define FRAME(i) ((struct rte_mbuf *)(uintptr_t)(0x1000 + (i)))

static struct sp_neigh_hold h;

static struct sp_neigh_hop_id
hop_id(unsigned int i)
{
	const uint8_t ip6[16] = {0x20, 0x01, 0x0d, 0xb8, [14] = (uint8_t)(i >> 8), [15] = (uint8_t)i};
	struct sp_neigh_hop_id id = {.port = 1};

	id.ip = i % 2 == 1 ? sp_ip_v6(ip6) : sp_ip_v4((uint32_t)(10 | i << 16));
	return id;
}

static bool
add(unsigned int key, unsigned int frame, uint64_t now)
{
	struct sp_neigh_hold_tag tag = {.owner = &h, .serial = frame, .slice = 1};
	const struct sp_neigh_hop_id id = hop_id(key);

	return sp_neigh_hold_add(&h, &id, FRAME(frame), &tag, now, 100);
}

static int
hop_of(unsigned int key)
{
	const struct sp_neigh_hop_id id = hop_id(key);

	for (int i = 0; i < SP_NEIGH_HOLD_HOPS; i++)
		if (h.hop[i].used && h.hop[i].id.port == id.port && sp_ip_equal(&h.hop[i].id.ip, &id.ip))
			return i;
	return -1;
}

static void
test_frames_of_a_hop_in_order(void **state)
{
	struct rte_mbuf *out[SP_NEIGH_HOLD_FRAMES];
	struct sp_neigh_hold_tag tags[SP_NEIGH_HOLD_FRAMES];

	(void)state;
	memset(&h, 0, sizeof(h));
	for (unsigned int i = 0; i < SP_NEIGH_HOLD_FRAMES; i++)
		assert_true(add(KEY(7), i, 1000 + i));
	assert_false(add(KEY(7), 99, 1010)); /* full: the caller keeps it */
	assert_true(add(KEY(8), 50, 1020));
	assert_int_equal(h.nb_frames, SP_NEIGH_HOLD_FRAMES + 1);
	/* The deadline is the first frame's arrival + ticks, the earliest hop's the hold's. */
	assert_int_equal(h.hop[hop_of(KEY(7))].deadline, 1100);
	assert_int_equal(h.hop[hop_of(KEY(8))].deadline, 1120);
	assert_int_equal(h.next_deadline, 1100);

	assert_int_equal(sp_neigh_hold_take(&h, (unsigned int)hop_of(KEY(7)), out, tags),
			 SP_NEIGH_HOLD_FRAMES);
	for (unsigned int i = 0; i < SP_NEIGH_HOLD_FRAMES; i++) {
		assert_ptr_equal(out[i], FRAME(i));
		assert_int_equal(tags[i].serial, i);
		assert_ptr_equal(tags[i].owner, &h);
	}
	assert_int_equal(hop_of(KEY(7)), -1);
	sp_neigh_hold_rearm(&h);
	assert_int_equal(h.next_deadline, 1120);
	assert_int_equal(h.nb_frames, 1);
	/* The hop is free again: a new frame to it starts a new wait. */
	assert_true(add(KEY(7), 60, 2000));
	assert_int_equal(h.hop[hop_of(KEY(7))].deadline, 2100);
	assert_int_equal(h.next_deadline, 1120);
}

static void
test_full_hold_refuses_new_hops(void **state)
{
	struct rte_mbuf *out[SP_NEIGH_HOLD_FRAMES];
	struct sp_neigh_hold_tag tags[SP_NEIGH_HOLD_FRAMES];

	(void)state;
	memset(&h, 0, sizeof(h));
	for (unsigned int i = 0; i < SP_NEIGH_HOLD_HOPS; i++)
		assert_true(add(KEY(i + 1), i, 500 + i));
	assert_false(add(KEY(1000), 1000, 600));
	/* Hops it has still take frames. */
	assert_true(add(KEY(3), 2000, 600));
	assert_int_equal(h.nb_frames, SP_NEIGH_HOLD_HOPS + 1);
	for (unsigned int i = 0; i < SP_NEIGH_HOLD_HOPS; i++)
		sp_neigh_hold_take(&h, i, out, tags);
	assert_int_equal(h.nb_frames, 0);
	sp_neigh_hold_rearm(&h);
	assert_int_equal(h.next_deadline, UINT64_MAX);
	/* Emptied, the hold's first frame sets its deadline whatever the last was. */
	assert_true(add(KEY(1000), 1000, 10));
	assert_int_equal(h.next_deadline, 110);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_of_a_hop_in_order),
		cmocka_unit_test(test_full_hold_refuses_new_hops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
