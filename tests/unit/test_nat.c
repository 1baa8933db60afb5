/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A host slice's NAT table (src/hostslice/nat.c): flows mapped to the range's
 * numbers and back, only for the remote a flow went to; a full range
 * refuses new flows and counts them; entries expire by protocol and TCP
 * state, freeing their numbers; readers see each entry whole.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ip.h>

#include "hostslice/nat.h"
#include "sp_test.h"

#define FIRST 61000
#define REMOTE RTE_BE32(RTE_IPV4(10, 0, 0, 2))
#define OTHER RTE_BE32(RTE_IPV4(10, 0, 0, 3))

static const struct sp_nat_timeouts timeouts = {
	.tcp_established = 100, .tcp_transitory = 10, .tcp_closed = 3, .udp = 30, .icmp = 5,
};

static uint64_t hz;

static int
setup(void **state)
{
	sp_test_eal_init();
	hz = rte_get_tsc_hz();
	*state = sp_nat_create("test_nat", FIRST, 4, &timeouts, SOCKET_ID_ANY);
	return *state == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	sp_nat_free(*state);
	return 0;
}

/* Expire everything idle at time now (the whole table's worth). */
static void
expire_all(struct sp_nat *n, uint64_t now)
{
	sp_nat_expire(n, now, 3 * 4);
}

static void
test_out_and_back(void **state)
{
	struct sp_nat *n = *state;
	uint16_t ext, again, inner;
	struct sp_nat_stats st;

	assert_int_equal(sp_nat_out(n, SP_NAT_UDP, 40000, REMOTE, 53, 0, hz, &ext), 0);
	assert_int_equal(ext, FIRST);
	/* The same flow keeps its number; another flow of the same socket gets another. */
	assert_int_equal(sp_nat_out(n, SP_NAT_UDP, 40000, REMOTE, 53, 0, hz, &again), 0);
	assert_int_equal(again, ext);
	assert_int_equal(sp_nat_out(n, SP_NAT_UDP, 40000, REMOTE, 54, 0, hz, &again), 0);
	assert_int_equal(again, FIRST + 1);
	/* Protocols have their own numbers. */
	assert_int_equal(sp_nat_out(n, SP_NAT_TCP, 40000, REMOTE, 53, 0, hz, &again), 0);
	assert_int_equal(again, FIRST);

	assert_int_equal(sp_nat_in(n, SP_NAT_UDP, ext, REMOTE, 53, 0, hz, &inner), 0);
	assert_int_equal(inner, 40000);
	/* Only the remote the flow went to, from the port it went to. */
	assert_int_equal(sp_nat_in(n, SP_NAT_UDP, ext, OTHER, 53, 0, hz, &inner), -ENOENT);
	assert_int_equal(sp_nat_in(n, SP_NAT_UDP, ext, REMOTE, 5353, 0, hz, &inner), -ENOENT);
	/* Numbers outside the range or unused: nothing. */
	assert_int_equal(sp_nat_in(n, SP_NAT_UDP, FIRST + 3, REMOTE, 53, 0, hz, &inner), -ENOENT);
	assert_int_equal(sp_nat_in(n, SP_NAT_UDP, FIRST - 1, REMOTE, 53, 0, hz, &inner), -ENOENT);
	assert_int_equal(sp_nat_in(n, SP_NAT_UDP, FIRST + 4, REMOTE, 53, 0, hz, &inner), -ENOENT);
	assert_int_equal(sp_nat_in(n, SP_NAT_ICMP, ext, REMOTE, 0, 0, hz, &inner), -ENOENT);

	sp_nat_stats(n, &st);
	assert_int_equal(st.in_use[SP_NAT_UDP], 2);
	assert_int_equal(st.in_use[SP_NAT_TCP], 1);
	assert_int_equal(st.created, 3);
	assert_int_equal(st.full, 0);
}

static void
test_full_range(void **state)
{
	struct sp_nat *n = *state;
	struct sp_nat_stats st;
	uint16_t ext;

	for (uint16_t i = 0; i < 4; i++) {
		assert_int_equal(sp_nat_out(n, SP_NAT_ICMP, 100 + i, REMOTE, 0, 0, hz, &ext), 0);
		assert_int_equal(ext, FIRST + i);
	}
	assert_int_equal(sp_nat_out(n, SP_NAT_ICMP, 200, REMOTE, 0, 0, hz, &ext), -ENOSPC);
	assert_int_equal(sp_nat_out(n, SP_NAT_ICMP, 201, REMOTE, 0, 0, hz, &ext), -ENOSPC);
	/* A flow already in still goes. */
	assert_int_equal(sp_nat_out(n, SP_NAT_ICMP, 102, REMOTE, 0, 0, hz, &ext), 0);
	assert_int_equal(ext, FIRST + 2);
	sp_nat_stats(n, &st);
	assert_int_equal(st.full, 2);
	assert_int_equal(st.in_use[SP_NAT_ICMP], 4);
	/* Idle beyond the ICMP timeout: all go, and the numbers serve new flows. */
	expire_all(n, hz + 6 * hz);
	sp_nat_stats(n, &st);
	assert_int_equal(st.in_use[SP_NAT_ICMP], 0);
	assert_int_equal(st.expired, 4);
	assert_int_equal(sp_nat_out(n, SP_NAT_ICMP, 200, REMOTE, 0, 0, 7 * hz, &ext), 0);
}

static void
test_timeouts_by_state(void **state)
{
	struct sp_nat *n = *state;
	uint16_t open, est, closing, reset, udp, inner;
	struct sp_nat_stats st;

	assert_int_equal(sp_nat_out(n, SP_NAT_TCP, 1, REMOTE, 80, 0, hz, &open), 0);
	assert_int_equal(sp_nat_out(n, SP_NAT_TCP, 2, REMOTE, 80, 0, hz, &est), 0);
	assert_int_equal(sp_nat_in(n, SP_NAT_TCP, est, REMOTE, 80, 0, hz, &inner), 0);
	assert_int_equal(sp_nat_out(n, SP_NAT_TCP, 3, REMOTE, 80, 0, hz, &closing), 0);
	assert_int_equal(sp_nat_in(n, SP_NAT_TCP, closing, REMOTE, 80, SP_NAT_TCP_FIN, hz, &inner),
			 0);
	assert_int_equal(sp_nat_out(n, SP_NAT_TCP, 3, REMOTE, 80, SP_NAT_TCP_FIN, hz, &closing), 0);
	assert_int_equal(sp_nat_out(n, SP_NAT_TCP, 4, REMOTE, 80, 0, hz, &reset), 0);
	assert_int_equal(sp_nat_in(n, SP_NAT_TCP, reset, REMOTE, 80, SP_NAT_TCP_RST, hz, &inner),
			 0);
	/* 4 s later the closed and reset ones are gone (3 s), not the unanswered (10 s)... */
	expire_all(n, 5 * hz);
	sp_nat_stats(n, &st);
	assert_int_equal(st.in_use[SP_NAT_TCP], 2);
	assert_int_equal(sp_nat_out(n, SP_NAT_TCP, 1, REMOTE, 80, 0, 2 * hz, &inner), 0);
	assert_int_equal(inner, open); /* (its own packets keep it) */
	/* ... which goes once 10 s pass without an answer. */
	expire_all(n, 13 * hz);
	sp_nat_stats(n, &st);
	assert_int_equal(st.in_use[SP_NAT_TCP], 1);
	assert_int_equal(sp_nat_in(n, SP_NAT_TCP, est, REMOTE, 80, 0, 12 * hz, &inner), 0);
	assert_int_equal(inner, 2);
	/* Traffic keeps it: 99 s after its last packet it is there, 101 s after it is not. */
	expire_all(n, 111 * hz);
	assert_int_equal(sp_nat_in(n, SP_NAT_TCP, est, REMOTE, 80, 0, 111 * hz, &inner), 0);
	expire_all(n, 212 * hz);
	sp_nat_stats(n, &st);
	assert_int_equal(st.in_use[SP_NAT_TCP], 0);
	/* UDP's own timeout (30 s). */
	assert_int_equal(sp_nat_out(n, SP_NAT_UDP, 9, REMOTE, 53, 0, 300 * hz, &udp), 0);
	expire_all(n, 329 * hz);
	assert_int_equal(sp_nat_in(n, SP_NAT_UDP, udp, REMOTE, 53, 0, 329 * hz, &inner), 0);
	expire_all(n, 360 * hz);
	assert_int_equal(sp_nat_in(n, SP_NAT_UDP, udp, REMOTE, 53, 0, 360 * hz, &inner), -ENOENT);
}

static void
test_entries_listed(void **state)
{
	struct sp_nat *n = *state;
	struct sp_nat_view v;
	uint16_t ext, inner;
	uint32_t pos = 0;

	assert_int_equal(sp_nat_out(n, SP_NAT_TCP, 45000, REMOTE, 8000, 0, hz, &ext), 0);
	assert_int_equal(sp_nat_in(n, SP_NAT_TCP, ext, REMOTE, 8000, 0, hz, &inner), 0);
	assert_int_equal(sp_nat_out(n, SP_NAT_ICMP, 0x1234, OTHER, 0, 0, hz, &ext), 0);
	/* Idle: whole seconds since the last packet. */
	assert_true(sp_nat_next(n, &pos, 3 * hz + 2, &v));
	assert_int_equal(v.proto, SP_NAT_TCP);
	assert_int_equal(v.ext, FIRST);
	assert_int_equal(v.inner, 45000);
	assert_int_equal(v.rem_ip_be, REMOTE);
	assert_int_equal(v.rem_port, 8000);
	assert_int_equal(v.idle_s, 2);
	assert_string_equal(v.state, "established");
	assert_true(sp_nat_next(n, &pos, 3 * hz, &v));
	assert_int_equal(v.proto, SP_NAT_ICMP);
	assert_int_equal(v.inner, 0x1234);
	assert_string_equal(v.state, "active");
	assert_false(sp_nat_next(n, &pos, 3 * hz, &v));
}

#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_out_and_back),
		T(test_full_range),
		T(test_timeouts_by_state),
		T(test_entries_listed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
