/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: which ARP answers and neighbor advertisements the neighbor
 * table takes (src/mgmt/resolver.c), under any sequence of next hops wanted,
 * frames from the link, requests sent and time passing.
 *
 * Input: 4-byte events, each:
 *   byte 0  bits 0-1: 0 want, 1 an answer, 2 the requests due, 3 time passes;
 *           bits 2-7: how many milliseconds pass first (times 40)
 *   byte 1  the port (0 to 3)
 *   byte 2  the address (0 to 7): few, so that events meet; 0 to 3 are
 *           IPv4 (10.0.0.a), 4 to 7 IPv6 (2001:db8::a), the families side by side
 *   byte 3  which of 4 MACs the frame claims
 * Two entries are static, as the config makes them: port 0 address 1 (IPv4)
 * and port 1 address 5 (IPv6).
 *
 * Invariants: a static entry never changes; a frame is taken (learned or
 * changed) only within SP_RESOLVE_WINDOW_MS of a request the resolver handed
 * out for that address, and at most once per request; then the table holds
 * the frame's MAC as learned, and "changed" means the entry held another MAC;
 * an ignored frame changes nothing; no more requests than asked for at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "mgmt/resolver.h"
#include "sp_test.h"

#define HZ 1000 /* a tick is a millisecond */
#define PORTS 4
#define ADDRS 8
#define MAX_DUE 5 /* fewer than can be due: the rest must wait, not be lost */

static const struct rte_ether_addr macs[4] = {
	{{0x02, 0, 0, 0, 0, 0x01}}, {{0x02, 0, 0, 0, 0, 0x02}},
	{{0x02, 0, 0, 0, 0, 0x03}}, {{0x02, 0x66, 0x66, 0x66, 0x66, 0x66}},
};

/* What the target knows of each address: the last request handed out, and whether answered. */
static struct {
	uint64_t asked; /* 0: never */
	bool answered;
} model[PORTS][ADDRS];

static struct sp_resolver r;

#define V6_FROM (ADDRS / 2)

static struct sp_ip
ip(unsigned int a)
{
	const uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = (uint8_t)a};

	return a < V6_FROM ? sp_ip_v4(rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, a))) : sp_ip_v6(v6);
}

/* Which address ip() made a (ADDRS if none). */
static unsigned int
addr_of(const struct sp_ip *x)
{
	for (unsigned int a = 0; a < ADDRS; a++) {
		const struct sp_ip y = ip(a);

		if (sp_ip_equal(x, &y))
			return a;
	}
	return ADDRS;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sp_test_eal_init();
	return 0;
}

static bool
is_static(unsigned int port, unsigned int a)
{
	return (port == 0 && a == 1) || (port == 1 && a == V6_FROM + 1);
}

static void
frame(struct sp_neigh *n, unsigned int port, unsigned int a, const struct rte_ether_addr *mac,
      uint64_t now)
{
	const struct sp_ip x = ip(a);
	struct rte_ether_addr before, after;
	enum sp_neigh_kind kind_before, kind_after;
	bool had = sp_neigh_find_ip(n, (uint16_t)port, &x, &before, &kind_before) == 0;
	enum sp_arp_verdict v = sp_resolver_input(&r, (uint16_t)port, &x, mac, now);
	bool has = sp_neigh_find_ip(n, (uint16_t)port, &x, &after, &kind_after) == 0;

	if (v == SP_ARP_IGNORED) {
		SP_TEST_CHECK(had == has && (!had || (rte_is_same_ether_addr(&before, &after) &&
					      kind_before == kind_after)),
		      "an ignored frame changed port %u .%u", port, a);
		return;
	}
	SP_TEST_CHECK(!is_static(port, a), "a frame was taken over static port %u .%u", port, a);
	SP_TEST_CHECK(model[port][a].asked != 0 && !model[port][a].answered &&
	      now - model[port][a].asked <= SP_RESOLVE_WINDOW_MS,
	      "port %u .%u taken unasked (asked %lu, answered %d, now %lu)", port, a,
	      (unsigned long)model[port][a].asked, model[port][a].answered, (unsigned long)now);
	SP_TEST_CHECK(has && rte_is_same_ether_addr(&after, mac) && kind_after == SP_NEIGH_LEARNED,
	      "port %u .%u not learned as taken", port, a);
	SP_TEST_CHECK((v == SP_ARP_CHANGED) == (had && !rte_is_same_ether_addr(&before, mac)),
	      "port %u .%u: changed is %d", port, a, v == SP_ARP_CHANGED);
	model[port][a].answered = true;
}

static void
due(uint64_t now)
{
	struct sp_resolve_ask asks[MAX_DUE];
	unsigned int n = sp_resolver_due(&r, now, asks, MAX_DUE);

	SP_TEST_CHECK(n <= MAX_DUE, "%u requests due, at most %d asked for", n, MAX_DUE);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int a = addr_of(&asks[i].ip);

		SP_TEST_CHECK(asks[i].port < PORTS && a < ADDRS, "a request for an address never wanted");
		model[asks[i].port][a].asked = now;
		model[asks[i].port][a].answered = false;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_neigh *n = sp_neigh_create("fuzz_arp", 64, SOCKET_ID_ANY);
	const struct sp_ip static_ip[2] = {ip(1), ip(V6_FROM + 1)};
	uint64_t now = 1;

	SP_TEST_CHECK(n != NULL, "cannot create the neighbor table");
	memset(model, 0, sizeof(model));
	for (unsigned int i = 0; i < 2; i++)
		SP_TEST_CHECK(sp_neigh_set_ip(n, (uint16_t)i, &static_ip[i], &macs[i],
					      SP_NEIGH_STATIC) == 0, "static entry");
	sp_resolver_init(&r, n, HZ, now);
	for (size_t off = 0; off + 4 <= size; off += 4) {
		unsigned int op = data[off] & 3, port = data[off + 1] % PORTS;
		unsigned int a = data[off + 2] % ADDRS;

		now += (uint64_t)(data[off] >> 2) * 40;
		switch (op) {
		case 0: {
			const struct sp_ip x = ip(a);

			sp_resolver_want(&r, (uint16_t)port, &x);
			break;
		}
		case 1: frame(n, port, a, &macs[data[off + 3] % 4], now); break;
		case 2: due(now); break;
		default: now += (uint64_t)data[off + 3] * 1000; break;
		}
	}
	/* Static entries as the config made them, whatever came. */
	for (unsigned int i = 0; i < 2; i++) {
		struct rte_ether_addr mac;
		enum sp_neigh_kind kind;

		SP_TEST_CHECK(sp_neigh_find_ip(n, (uint16_t)i, &static_ip[i], &mac, &kind) == 0 &&
		      rte_is_same_ether_addr(&mac, &macs[i]) && kind == SP_NEIGH_STATIC,
		      "static entry %u changed", i);
	}
	sp_neigh_free(n);
	return 0;
}
