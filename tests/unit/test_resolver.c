/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which ARP answers and neighbor advertisements the neighbor table takes,
 * and when the node asks: a forged reply never changes a static (config)
 * neighbor, nor a learned one unless the node asked within the window; a
 * claim that a learned neighbor moved makes the node ask; one request takes
 * one answer. Every test runs for both families: the same rules.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "sp_test.h"
#include "mgmt/resolver.h"

#define HZ 1000000 /* ticks a second, so that a millisecond is 1000 */
#define MS(x) ((uint64_t)(x) * (HZ / 1000))
#define T0 MS(5000)

static const struct rte_ether_addr mac_real = {{0x02, 0xee, 0, 0, 0, 0x09}};
static const struct rte_ether_addr mac_forged = {{0x02, 0x66, 0x66, 0x66, 0x66, 0x66}};
static const struct rte_ether_addr mac_moved = {{0x02, 0xee, 0, 0, 0, 0x10}};

static struct sp_neigh *neigh;
static struct sp_resolver r;

static bool v6; /* the family the group runs in */

/* 10.20.0.last or 2001:db8::last, whichever family the group runs in. */
static const struct sp_ip *
ip(uint8_t last)
{
	static struct sp_ip addr[256]; /* one each: several may be in use at once */
	const uint8_t ip6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = last};

	addr[last] = v6 ? sp_ip_v6(ip6) : sp_ip_v4(rte_cpu_to_be_32(RTE_IPV4(10, 20, 0, last)));
	return &addr[last];
}

static int
group_v4(void **state)
{
	(void)state;
	v6 = false;
	return 0;
}

static int
group_v6(void **state)
{
	(void)state;
	v6 = true;
	return 0;
}

static int
setup(void **state)
{
	static unsigned int n;
	char name[32];

	(void)state;
	sp_test_eal_init();
	snprintf(name, sizeof(name), "resolver_%u", n++);
	neigh = sp_neigh_create(name, 64, SOCKET_ID_ANY);
	if (neigh == NULL)
		return -1;
	sp_resolver_init(&r, neigh, HZ, T0);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	sp_neigh_free(neigh);
	return 0;
}

static void
assert_entry(const struct sp_ip *a, const struct rte_ether_addr *want, enum sp_neigh_kind want_kind)
{
	struct rte_ether_addr mac;
	enum sp_neigh_kind kind;

	assert_int_equal(sp_neigh_find_ip(neigh, 1, a, &mac, &kind), 0);
	assert_memory_equal(mac.addr_bytes, want->addr_bytes, RTE_ETHER_ADDR_LEN);
	assert_int_equal(kind, want_kind);
}

/* The requests due at now: their count; the first one's address in *first. */
static unsigned int
due(uint64_t now, struct sp_ip *first)
{
	struct sp_resolve_ask asks[SP_RESOLVE_MAX];
	unsigned int n = sp_resolver_due(&r, now, asks, SP_RESOLVE_MAX);

	if (n > 0 && first != NULL)
		*first = asks[0].ip;
	return n;
}

static void
test_static_never_changed(void **state)
{
	(void)state;
	assert_int_equal(sp_neigh_set_ip(neigh, 1, ip(9), &mac_real, SP_NEIGH_STATIC), 0);
	assert_int_equal(sp_resolver_input(&r, 1, ip(9), &mac_forged, T0), SP_ARP_IGNORED);
	/* Not even when someone asks for it: the config's word is final. */
	sp_resolver_want(&r, 1, ip(9));
	assert_int_equal(due(T0, NULL), 1);
	assert_int_equal(sp_resolver_input(&r, 1, ip(9), &mac_forged, T0 + MS(1)), SP_ARP_IGNORED);
	assert_entry(ip(9), &mac_real, SP_NEIGH_STATIC);
}

static void
test_unsolicited_not_learned(void **state)
{
	(void)state;
	assert_int_equal(sp_resolver_input(&r, 1, ip(7), &mac_forged, T0), SP_ARP_IGNORED);
	assert_int_equal(sp_neigh_find_ip(neigh, 1, ip(7), &(struct rte_ether_addr){0},
				       &(enum sp_neigh_kind){0}), -ENOENT);
	/* Wanted but not yet asked for: still unsolicited. */
	sp_resolver_want(&r, 1, ip(7));
	assert_int_equal(sp_resolver_input(&r, 1, ip(7), &mac_forged, T0), SP_ARP_IGNORED);
	assert_int_equal(due(T0, NULL), 1);
}

static void
test_answer_learned_once(void **state)
{
	struct sp_ip asked = {{0}};

	(void)state;
	sp_resolver_want(&r, 1, ip(9));
	assert_int_equal(due(T0, &asked), 1);
	assert_true(sp_ip_equal(&asked, ip(9)));
	assert_int_equal(sp_resolver_input(&r, 1, ip(9), &mac_real, T0 + MS(3)), SP_ARP_LEARNED);
	assert_entry(ip(9), &mac_real, SP_NEIGH_LEARNED);
	/* Answered: nothing more to ask. */
	assert_int_equal(due(T0 + MS(5000), NULL), 0);
	/* A second answer to the same request is not taken (though the node asks again). */
	assert_int_equal(sp_resolver_input(&r, 1, ip(9), &mac_forged, T0 + MS(5001)),
			 SP_ARP_IGNORED);
	assert_entry(ip(9), &mac_real, SP_NEIGH_LEARNED);
}

static void
test_late_answer_ignored(void **state)
{
	(void)state;
	sp_resolver_want(&r, 1, ip(9));
	assert_int_equal(due(T0, NULL), 1);
	/* Asked again a second later, and each answer counts within the window of the last. */
	assert_int_equal(due(T0 + MS(999), NULL), 0);
	assert_int_equal(due(T0 + MS(1000), NULL), 1);
	assert_int_equal(sp_resolver_input(&r, 1, ip(9), &mac_real,
					   T0 + MS(1000 + SP_RESOLVE_WINDOW_MS + 1)), SP_ARP_IGNORED);
	assert_int_equal(sp_resolver_input(&r, 1, ip(9), &mac_real,
					   T0 + MS(1000 + SP_RESOLVE_WINDOW_MS)), SP_ARP_LEARNED);
}

/* A claim that a learned neighbor moved is not taken, but the node asks; the answer is. */
static void
test_moved_neighbor_verified(void **state)
{
	struct sp_ip asked = {{0}};

	(void)state;
	assert_int_equal(sp_neigh_set_ip(neigh, 1, ip(9), &mac_real, SP_NEIGH_LEARNED), 0);
	assert_int_equal(sp_resolver_input(&r, 1, ip(9), &mac_forged, T0), SP_ARP_IGNORED);
	assert_entry(ip(9), &mac_real, SP_NEIGH_LEARNED);
	assert_int_equal(due(T0 + MS(1), &asked), 1);
	assert_true(sp_ip_equal(&asked, ip(9)));
	assert_int_equal(sp_resolver_input(&r, 1, ip(9), &mac_moved, T0 + MS(2)), SP_ARP_CHANGED);
	assert_entry(ip(9), &mac_moved, SP_NEIGH_LEARNED);
	/* The same MAC again, when asked: learned, not a change. */
	sp_resolver_want(&r, 1, ip(9));
	assert_int_equal(due(T0 + MS(3), NULL), 1);
	assert_int_equal(sp_resolver_input(&r, 1, ip(9), &mac_moved, T0 + MS(4)), SP_ARP_LEARNED);
	/* A claim of the MAC it has is no reason to ask. */
	assert_int_equal(sp_resolver_input(&r, 1, ip(9), &mac_moved, T0 + MS(5)), SP_ARP_IGNORED);
	assert_int_equal(due(T0 + MS(6), NULL), 0);
}

static void
test_gives_up_after_tries(void **state)
{
	uint64_t t = T0;

	(void)state;
	sp_resolver_want(&r, 1, ip(5));
	for (int i = 0; i < SP_RESOLVE_TRIES; i++, t += MS(SP_RESOLVE_RETRY_MS))
		assert_int_equal(due(t, NULL), 1);
	/* The last request's answer is still taken within the window, then the slot goes. */
	assert_int_equal(due(t, NULL), 0);
	assert_int_equal(due(t - MS(SP_RESOLVE_RETRY_MS) + MS(SP_RESOLVE_WINDOW_MS) + 1, NULL), 0);
	assert_int_equal(sp_resolver_input(&r, 1, ip(5), &mac_real, t + MS(SP_RESOLVE_WINDOW_MS)),
			 SP_ARP_IGNORED);
	/* Wanted again (the fast path still has packets for it): asked again at once. */
	sp_resolver_want(&r, 1, ip(5));
	assert_int_equal(due(t + MS(SP_RESOLVE_WINDOW_MS), NULL), 1);
}

static void
test_refresh_asks_learned_only(void **state)
{
	struct sp_ip asked = {{0}};
	uint64_t later = T0 + (uint64_t)SP_RESOLVE_REFRESH_S * HZ;

	(void)state;
	assert_int_equal(sp_neigh_set_ip(neigh, 1, ip(9), &mac_real, SP_NEIGH_STATIC), 0);
	assert_int_equal(sp_neigh_set_ip(neigh, 1, ip(10), &mac_real, SP_NEIGH_LEARNED), 0);
	assert_int_equal(due(later - 1, NULL), 0);
	assert_int_equal(due(later, &asked), 1);
	assert_true(sp_ip_equal(&asked, ip(10)));
	assert_int_equal(sp_resolver_input(&r, 1, ip(10), &mac_moved, later + MS(1)),
			 SP_ARP_CHANGED);
}

static void
test_full(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < SP_RESOLVE_MAX + 10; i++)
		sp_resolver_want(&r, (uint16_t)(i / 200), ip((uint8_t)i));
	assert_int_equal(due(T0, NULL), SP_RESOLVE_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_static_never_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsolicited_not_learned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answer_learned_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_answer_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_moved_neighbor_verified, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gives_up_after_tries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refresh_asks_learned_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full, setup, teardown),
	};

	return cmocka_run_group_tests_name("ipv4", tests, group_v4, NULL) |
	       cmocka_run_group_tests_name("ipv6", tests, group_v6, NULL);
}
