/* SPDX-License-Identifier: BSD-3-Clause */
#include "eal_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lcore.h>

#include "port/port.h"

static struct rte_mempool *pool;

struct rte_mempool *
sp_test_eal_init(void)
{
	char *argv[] = {"unit", "--no-huge", "-m", "256", "--no-pci",
			"--no-shconf", "-l", "0", "--log-level", "*:warning", NULL};

	if (pool != NULL)
		return pool;
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0) {
		fprintf(stderr, "unit test: cannot initialise EAL\n");
		exit(1);
	}
	pool = sp_pktmbuf_pool_create("unit_pool", 4095, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "unit test: cannot create packet pool\n");
		exit(1);
	}
	return pool;
}

struct rte_mbuf *
sp_test_pkt(const void *bytes, size_t len, uint16_t port)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sp_test_eal_init());
	char *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, bytes, len);
	m->port = port;
	memset(rte_mbuf_to_priv(m), 0, m->priv_size);
	return m;
}

uint64_t
sp_test_rnd(void)
{
	static uint64_t state = 0x9e3779b97f4a7c15ull;

	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545f4914f6cdd1dull;
}
