/* SPDX-License-Identifier: BSD-3-Clause */
#include "sp_test.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_lcore.h>

#include "common/rnd.h"
#include "port/port.h"

#define POOL_SIZE 4095

static struct rte_mempool *pool;

void
sp_test_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "==test check failed: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

/* "0@(0,1,...)": lcore 0 floats over the CPUs this process may use. */
static void
lcores_arg(char *buf, size_t len)
{
	cpu_set_t set;
	size_t off;
	int cpu;

	off = (size_t)snprintf(buf, len, "--lcores=0@(");
	if (sched_getaffinity(0, sizeof(set), &set) != 0) {
		snprintf(buf, len, "--lcores=0");
		return;
	}
	for (cpu = 0; cpu < CPU_SETSIZE && cpu < RTE_MAX_LCORE && off + 8 < len; cpu++)
		if (CPU_ISSET(cpu, &set))
			off += (size_t)snprintf(buf + off, len - off, "%d,", cpu);
	snprintf(buf + off - 1, len - off + 1, ")");
}

struct rte_mempool *
sp_test_eal_init(void)
{
	static char lcores[1024];
	char *argv[] = {"sp_test", "--no-huge", "-m", "256", "--no-pci", "--no-shconf",
			"--no-telemetry", lcores, "--log-level", "*:warning", NULL};

	if (pool != NULL)
		return pool;
	lcores_arg(lcores, sizeof(lcores));
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0) {
		fprintf(stderr, "test: cannot initialise EAL (%s)\n", lcores);
		exit(1);
	}
	pool = sp_pktmbuf_pool_create("test_pool", POOL_SIZE, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "test: cannot create the packet pool\n");
		exit(1);
	}
	return pool;
}

static struct rte_mbuf *
segment(const uint8_t *bytes, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(sp_test_eal_init());
	char *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_append(m, (uint16_t)len);
	SP_TEST_CHECK(p != NULL, "%zu bytes do not fit in one segment", len);
	if (len > 0)
		memcpy(p, bytes, len);
	return m;
}

struct rte_mbuf *
sp_test_mbuf(const void *bytes, size_t len, size_t split, uint8_t fill)
{
	struct rte_mbuf *m, *tail;

	if (split == 0 || split >= len) {
		m = segment(bytes, len);
	} else {
		m = segment(bytes, split);
		tail = m != NULL ? segment((const uint8_t *)bytes + split, len - split) : NULL;
		if (tail == NULL || rte_pktmbuf_chain(m, tail) != 0) {
			rte_pktmbuf_free(m);
			rte_pktmbuf_free(tail);
			return NULL;
		}
	}
	if (m != NULL)
		memset(rte_mbuf_to_priv(m), fill, m->priv_size);
	return m;
}

struct rte_mbuf *
sp_test_pkt(const void *bytes, size_t len, uint16_t port)
{
	struct rte_mbuf *m = sp_test_mbuf(bytes, len, 0, 0);

	if (m != NULL)
		m->port = port;
	return m;
}

void
sp_test_fix_ipv4_cksum(uint8_t *ip, size_t len)
{
	struct rte_ipv4_hdr *h = (struct rte_ipv4_hdr *)ip;
	size_t hlen;

	if (len < sizeof(*h))
		return;
	hlen = rte_ipv4_hdr_len(h);
	if (hlen < sizeof(*h) || hlen > len)
		return;
	h->hdr_checksum = 0;
	h->hdr_checksum = (uint16_t)~rte_raw_cksum(h, hlen);
}

bool
sp_test_ipv4_cksum_ok(const void *ip)
{
	const struct rte_ipv4_hdr *h = ip;

	return rte_raw_cksum(h, rte_ipv4_hdr_len(h)) == UINT16_MAX;
}

uint64_t
sp_test_rnd(void)
{
	static uint64_t state = SP_RND_SEED;

	return sp_rnd_next(&state);
}
