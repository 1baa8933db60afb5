/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbor table: what the encap stage and the management thread see. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "encap/neigh.h"
#include "encap/neigh_worker.h"
#include "sp_test.h"

static const struct rte_ether_addr mac_a = {{0x02, 0x00, 0x00, 0x00, 0x00, 0x0a}};
static const struct rte_ether_addr mac_b = {{0x02, 0x00, 0x00, 0x00, 0x00, 0x0b}};

static uint32_t
ip(uint8_t last)
{
	return rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, last));
}

static int
setup(void **state)
{
	(void)state;
	sp_test_eal_init();
	return 0;
}

/* The MAC of an entry, whatever its kind. */
static int
get(const struct sp_neigh *n, uint16_t port, uint32_t ip_be, struct rte_ether_addr *mac)
{
	enum sp_neigh_kind kind;

	return sp_neigh_find(n, port, ip_be, mac, &kind);
}

static void
assert_mac_equal(const struct rte_ether_addr *got, const struct rte_ether_addr *want)
{
	assert_memory_equal(got->addr_bytes, want->addr_bytes, RTE_ETHER_ADDR_LEN);
}

static void
test_set_get_update(void **state)
{
	struct sp_neigh *n = sp_neigh_create("neigh_sgu", 64, SOCKET_ID_ANY);
	struct rte_ether_addr mac;

	(void)state;
	assert_non_null(n);
	assert_int_equal(get(n, 0, ip(1), &mac), -ENOENT);

	assert_int_equal(sp_neigh_set(n, 0, ip(1), &mac_a, SP_NEIGH_LEARNED), 0);
	assert_int_equal(get(n, 0, ip(1), &mac), 0);
	assert_mac_equal(&mac, &mac_a);

	/* Same address on another port is another neighbor. */
	assert_int_equal(get(n, 1, ip(1), &mac), -ENOENT);
	assert_int_equal(sp_neigh_set(n, 1, ip(1), &mac_b, SP_NEIGH_LEARNED), 0);
	assert_int_equal(get(n, 1, ip(1), &mac), 0);
	assert_mac_equal(&mac, &mac_b);

	/* Update in place. */
	assert_int_equal(sp_neigh_set(n, 0, ip(1), &mac_b, SP_NEIGH_LEARNED), 0);
	assert_int_equal(get(n, 0, ip(1), &mac), 0);
	assert_mac_equal(&mac, &mac_b);
	sp_neigh_free(n);
}

static void
test_bulk(void **state)
{
	struct sp_neigh *n = sp_neigh_create("neigh_bulk", 64, SOCKET_ID_ANY);
	uint16_t ports[3] = {0, 0, 2};
	uint32_t ips[3] = {ip(1), ip(2), ip(3)};
	struct rte_ether_addr found[3] = {0};
	struct rte_ether_addr zero = {0};

	(void)state;
	assert_non_null(n);
	assert_int_equal(sp_neigh_set(n, 0, ip(1), &mac_a, SP_NEIGH_LEARNED), 0);
	assert_int_equal(sp_neigh_set(n, 2, ip(3), &mac_b, SP_NEIGH_LEARNED), 0);
	assert_int_equal(sp_neigh_set(n, 1, ip(2), &mac_b, SP_NEIGH_LEARNED), 0); /* port 1, not port 0 */

	assert_int_equal(sp_neigh_get_bulk(n, ports, ips, 3, found), 0x5);
	assert_mac_equal(&found[0], &mac_a);
	assert_mac_equal(&found[1], &zero); /* a miss leaves its slot alone */
	assert_mac_equal(&found[2], &mac_b);
	assert_int_equal(sp_neigh_get_bulk(n, ports, ips, 0, found), 0);
	sp_neigh_free(n);
}

static void
test_bulk_64(void **state)
{
	struct sp_neigh *n = sp_neigh_create("neigh_bulk64", 64, SOCKET_ID_ANY);
	uint16_t ports[64] = {0};
	uint32_t ips[64];
	struct rte_ether_addr found[64];
	uint16_t i;

	(void)state;
	assert_non_null(n);
	for (i = 0; i < 64; i++) {
		ips[i] = ip((uint8_t)i);
		if (i % 2 == 0)
			assert_int_equal(sp_neigh_set(n, 0, ips[i], &mac_a, SP_NEIGH_LEARNED), 0);
	}
	assert_true(sp_neigh_get_bulk(n, ports, ips, 64, found) == 0x5555555555555555ULL);
	sp_neigh_free(n);
}

/*
 * Repeated next hops in one burst (each distinct one is looked up once): runs,
 * a key coming back after more than a few others, the same address on two
 * ports, and misses among them; every packet gets its own key's answer.
 */
static void
test_bulk_repeated_keys(void **state)
{
	struct sp_neigh *n = sp_neigh_create("neigh_bulkrep", 64, SOCKET_ID_ANY);
	struct rte_ether_addr found[64], mac[8], zero = {0};
	uint16_t ports[64];
	uint32_t ips[64];
	uint64_t want = 0;
	uint16_t i;

	(void)state;
	assert_non_null(n);
	for (i = 0; i < 8; i++) {
		mac[i] = mac_a;
		mac[i].addr_bytes[5] = (uint8_t)(0x10 + i);
		/* Addresses 0..7 on port 1; address 3 also on port 2, with another MAC; 6 and 7 unknown. */
		if (i < 6)
			assert_int_equal(sp_neigh_set(n, 1, ip((uint8_t)i), &mac[i], SP_NEIGH_LEARNED), 0);
	}
	assert_int_equal(sp_neigh_set(n, 2, ip(3), &mac_b, SP_NEIGH_LEARNED), 0);
	for (i = 0; i < 64; i++) {
		/* runs of 3, then all eight in turn, then port 2 now and then */
		uint8_t a = i < 24 ? (uint8_t)(i / 3 % 8) : (uint8_t)(i % 8);

		ports[i] = i >= 40 && i % 5 == 0 ? 2 : 1;
		ips[i] = ip(ports[i] == 2 ? 3 : a);
		if (ports[i] == 2 || a < 6)
			want |= RTE_BIT64(i);
	}
	memset(found, 0, sizeof(found));
	assert_true(sp_neigh_get_bulk(n, ports, ips, 64, found) == want);
	for (i = 0; i < 64; i++) {
		uint8_t a = (uint8_t)(rte_be_to_cpu_32(ips[i]) & 0xff);

		if (ports[i] == 2)
			assert_mac_equal(&found[i], &mac_b);
		else if (a < 6)
			assert_mac_equal(&found[i], &mac[a]);
		else
			assert_mac_equal(&found[i], &zero);
	}
	sp_neigh_free(n);
}

/*
 * Cached lookups (sp_neigh_get_cached) answer as the table does: more next
 * hops than the cache has entries (so keys collide), unknown ones among
 * them, calls that hit, and changes seen at the next call.
 */
#define CACHED_HOPS 300

static void
expect_cached_as_table(const struct sp_neigh *n, struct sp_neigh_cache *c)
{
	for (uint16_t off = 0; off < CACHED_HOPS; off += 60) {
		uint16_t ports[60];
		uint32_t ips[60];
		struct rte_ether_addr found[60], want;
		uint64_t hits;

		for (uint16_t i = 0; i < 60; i++) {
			ports[i] = (off + i) % 3;
			ips[i] = ip((uint8_t)((off + i) / 3));
		}
		hits = sp_neigh_get_cached(n, c, ports, ips, 60, found);
		for (uint16_t i = 0; i < 60; i++) {
			bool known = get(n, ports[i], ips[i], &want) == 0;

			assert_int_equal(!!(hits & RTE_BIT64(i)), known);
			if (known)
				assert_mac_equal(&found[i], &want);
		}
	}
}

static void
test_cached(void **state)
{
	struct sp_neigh *n = sp_neigh_create("neigh_cached", 512, SOCKET_ID_ANY);
	static struct sp_neigh_cache c; /* zeroed: empty */
	struct rte_ether_addr mac = mac_a;
	uint16_t last_port;
	uint32_t last_ip;

	(void)state;
	assert_non_null(n);
	for (uint16_t h = 0; h < CACHED_HOPS; h++) {
		mac.addr_bytes[4] = (uint8_t)(h >> 8);
		mac.addr_bytes[5] = (uint8_t)h;
		if (h % 7 != 0) /* every seventh unknown */
			assert_int_equal(sp_neigh_set(n, h % 3, ip((uint8_t)(h / 3)), &mac, SP_NEIGH_LEARNED), 0);
	}
	expect_cached_as_table(n, &c);
	expect_cached_as_table(n, &c); /* now mostly from the cache */
	/* A MAC that changes (the last hop looked up: in the cache for sure) and an
	 * unknown hop that becomes known: both seen at once. */
	last_port = (CACHED_HOPS - 1) % 3;
	last_ip = ip((CACHED_HOPS - 1) / 3);
	assert_int_equal(sp_neigh_set(n, last_port, last_ip, &mac_b, SP_NEIGH_LEARNED), 0);
	assert_int_equal(sp_neigh_set(n, 0, ip(0), &mac_b, SP_NEIGH_LEARNED), 0);
	assert_int_equal(sp_neigh_get_cached(n, &c, &last_port, &last_ip, 1, &mac), 1);
	assert_mac_equal(&mac, &mac_b);
	expect_cached_as_table(n, &c);
	sp_neigh_free(n);
}

/* The address whose last byte is last: an IPv4 one, or (v6) 2001:db8::ffff:10.0.0.last. */
static struct sp_ip
any_ip(bool v6, uint8_t last)
{
	const uint8_t ip6[16] = {0x20, 0x01, 0x0d, 0xb8, [10] = 0xff, [11] = 0xff, [12] = 10,
				 [15] = last};

	return v6 ? sp_ip_v6(ip6) : sp_ip_v4(ip(last));
}

static void
test_iterate(void **state)
{
	struct sp_neigh *n = sp_neigh_create("neigh_iter", 64, SOCKET_ID_ANY);
	struct rte_ether_addr mac;
	enum sp_neigh_kind kind;
	unsigned int seen = 0, count = 0;
	struct sp_ip a;
	uint32_t iter = 0;
	uint16_t port;

	(void)state;
	assert_non_null(n);
	assert_int_equal(sp_neigh_next(n, &iter, &port, &a, &mac, &kind), -ENOENT);
	assert_int_equal(sp_neigh_set(n, 3, ip(1), &mac_a, SP_NEIGH_LEARNED), 0);
	assert_int_equal(sp_neigh_set(n, 4, ip(2), &mac_b, SP_NEIGH_STATIC), 0);
	assert_int_equal(sp_neigh_set(n, 5, ip(3), &mac_a, SP_NEIGH_LEARNED), 0);
	a = any_ip(true, 4);
	assert_int_equal(sp_neigh_set_ip(n, 6, &a, &mac_b, SP_NEIGH_STATIC), 0);

	iter = 0;
	while (sp_neigh_next(n, &iter, &port, &a, &mac, &kind) >= 0) {
		uint8_t last = a.b[15];
		const struct sp_ip want = any_ip(last == 4, last);

		count++;
		seen |= 1u << last;
		assert_true(sp_ip_equal(&a, &want));
		assert_int_equal(port, last + 2);
		assert_mac_equal(&mac, last % 2 == 0 ? &mac_b : &mac_a);
		assert_int_equal(kind, last % 2 == 0 ? SP_NEIGH_STATIC : SP_NEIGH_LEARNED);
	}
	assert_int_equal(count, 4);
	assert_int_equal(seen, 0x1e);
	sp_neigh_free(n);
}

/* Both families in one table: an IPv6 address never answers for an IPv4 one, nor the reverse. */
static void
test_families_apart(void **state)
{
	struct sp_neigh *n = sp_neigh_create("neigh_fam", 16, SOCKET_ID_ANY);
	const struct sp_ip v4 = any_ip(false, 7), v6 = any_ip(true, 7);
	struct sp_neigh_cache cache = {0};
	const uint16_t ports[1] = {0};
	const uint32_t ips[1] = {ip(7)};
	struct rte_ether_addr mac, found[1];
	enum sp_neigh_kind kind;

	(void)state;
	assert_non_null(n);
	assert_false(sp_ip_equal(&v4, &v6));
	assert_int_equal(sp_neigh_set_ip(n, 0, &v6, &mac_b, SP_NEIGH_STATIC), 0);
	assert_int_equal(sp_neigh_find(n, 0, ip(7), &mac, &kind), -ENOENT);
	assert_int_equal(sp_neigh_get_cached(n, &cache, ports, ips, 1, found), 0);
	assert_int_equal(sp_neigh_set_ip(n, 0, &v4, &mac_a, SP_NEIGH_LEARNED), 0);
	assert_int_equal(sp_neigh_find_ip(n, 0, &v6, &mac, &kind), 0);
	assert_mac_equal(&mac, &mac_b);
	assert_int_equal(kind, SP_NEIGH_STATIC);
	assert_int_equal(sp_neigh_find_ip(n, 0, &v4, &mac, &kind), 0);
	assert_mac_equal(&mac, &mac_a);
	assert_int_equal(kind, SP_NEIGH_LEARNED);
	assert_int_equal(sp_neigh_get_cached(n, &cache, ports, ips, 1, found), 1);
	assert_mac_equal(&found[0], &mac_a);
	sp_neigh_free(n);
}

/* The kind rides beside the MAC: readers of the MAC never see it, sp_neigh_find() does. */
static void
test_kind(void **state)
{
	struct sp_neigh *n = sp_neigh_create("neigh_kind", 16, SOCKET_ID_ANY);
	struct sp_neigh_cache cache = {0};
	const uint16_t ports[2] = {0, 0};
	const uint32_t ips[2] = {ip(1), ip(2)};
	struct rte_ether_addr mac, found[2];
	enum sp_neigh_kind kind;

	(void)state;
	assert_non_null(n);
	assert_int_equal(sp_neigh_set(n, 0, ip(1), &mac_a, SP_NEIGH_STATIC), 0);
	assert_int_equal(sp_neigh_set(n, 0, ip(2), &mac_b, SP_NEIGH_LEARNED), 0);
	assert_int_equal(sp_neigh_find(n, 0, ip(1), &mac, &kind), 0);
	assert_mac_equal(&mac, &mac_a);
	assert_int_equal(kind, SP_NEIGH_STATIC);
	assert_int_equal(sp_neigh_find(n, 0, ip(2), &mac, &kind), 0);
	assert_int_equal(kind, SP_NEIGH_LEARNED);
	assert_int_equal(sp_neigh_find(n, 1, ip(2), &mac, &kind), -ENOENT);
	assert_int_equal(sp_neigh_get_bulk(n, ports, ips, 2, found), 3);
	assert_mac_equal(&found[0], &mac_a);
	assert_mac_equal(&found[1], &mac_b);
	assert_int_equal(sp_neigh_get_cached(n, &cache, ports, ips, 2, found), 3);
	assert_memory_equal(sp_neigh_cache_find(&cache, 0, ip(1)), mac_a.addr_bytes, 6);
	assert_int_equal(cache.entry[sp_neigh_cache_slot(sp_neigh_cache_key(0, ip(1)))].mac >> 48, 0);
	sp_neigh_free(n);
}

static void
test_full(void **state)
{
	struct sp_neigh *n = sp_neigh_create("neigh_full", 16, SOCKET_ID_ANY);
	struct rte_ether_addr mac;
	uint8_t i;

	(void)state;
	assert_non_null(n);
	for (i = 0; i < 16; i++)
		assert_int_equal(sp_neigh_set(n, 0, ip(i), &mac_a, SP_NEIGH_LEARNED), 0);
	assert_int_equal(sp_neigh_set(n, 0, ip(16), &mac_a, SP_NEIGH_LEARNED), -ENOSPC);
	assert_int_equal(get(n, 0, ip(16), &mac), -ENOENT);
	/* Updating a present entry still works when full. */
	assert_int_equal(sp_neigh_set(n, 0, ip(3), &mac_b, SP_NEIGH_LEARNED), 0);
	assert_int_equal(get(n, 0, ip(3), &mac), 0);
	assert_mac_equal(&mac, &mac_b);
	sp_neigh_free(n);
}

static void
test_create_invalid(void **state)
{
	(void)state;
	assert_null(sp_neigh_create("neigh_zero", 0, SOCKET_ID_ANY));
	assert_null(sp_neigh_create(NULL, 8, SOCKET_ID_ANY));
	sp_neigh_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_get_update), cmocka_unit_test(test_bulk),
		cmocka_unit_test(test_bulk_64),
		cmocka_unit_test(test_bulk_repeated_keys),        cmocka_unit_test(test_cached),
		cmocka_unit_test(test_iterate),           cmocka_unit_test(test_families_apart),
		cmocka_unit_test(test_kind),
		cmocka_unit_test(test_full),           cmocka_unit_test(test_create_invalid),
	};

	return cmocka_run_group_tests_name("neigh", tests, setup, NULL);
}
