/* SPDX-License-Identifier: BSD-3-Clause */
#include "fuzz_pkt.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_lcore.h>

#include "port/port.h"

#define POOL_SIZE 1023

static struct rte_mempool *pool;

void
sp_fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "==fuzz invariant broken: ");
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
sp_fuzz_eal_init(void)
{
	static char lcores[1024];
	char *argv[] = {"fuzz", "--no-huge", "-m", "128", "--no-pci", "--no-shconf",
			"--no-telemetry", lcores, "--log-level", "*:error", NULL};

	if (pool != NULL)
		return pool;
	lcores_arg(lcores, sizeof(lcores));
	if (rte_eal_init(RTE_DIM(argv) - 1, argv) < 0) {
		fprintf(stderr, "fuzz: cannot initialise EAL (%s)\n", lcores);
		exit(1);
	}
	pool = sp_pktmbuf_pool_create("fuzz_pool", POOL_SIZE, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "fuzz: cannot create the packet pool\n");
		exit(1);
	}
	return pool;
}

static struct rte_mbuf *
segment(struct rte_mempool *mp, const uint8_t *bytes, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	char *p;

	SP_FUZZ_CHECK(m != NULL, "packet pool empty: packets leak");
	p = rte_pktmbuf_append(m, (uint16_t)len);
	SP_FUZZ_CHECK(p != NULL, "%zu bytes do not fit in one segment", len);
	if (len > 0)
		memcpy(p, bytes, len);
	return m;
}

struct rte_mbuf *
sp_fuzz_mbuf(struct rte_mempool *mp, const uint8_t *bytes, size_t len, size_t split,
	     uint8_t fill)
{
	struct rte_mbuf *m;

	if (split == 0 || split >= len) {
		m = segment(mp, bytes, len);
	} else {
		m = segment(mp, bytes, split);
		SP_FUZZ_CHECK(rte_pktmbuf_chain(m, segment(mp, bytes + split, len - split)) == 0,
			      "cannot chain two segments");
	}
	memset(rte_mbuf_to_priv(m), fill, m->priv_size);
	return m;
}

void
sp_fuzz_fix_ipv4_cksum(uint8_t *ip, size_t len)
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
sp_fuzz_ipv4_cksum_ok(const void *ip)
{
	const struct rte_ipv4_hdr *h = ip;

	return rte_raw_cksum(h, rte_ipv4_hdr_len(h)) == UINT16_MAX;
}

void
sp_fuzz_check_left(const struct sp_meta *meta)
{
	SP_FUZZ_CHECK(meta->verdict == SP_EXCEPTION || meta->verdict == SP_DROP,
		      "verdict %u after parse()", meta->verdict);
	SP_FUZZ_CHECK(meta->reason > SP_REASON_NONE && meta->reason < SP_REASON_MAX,
		      "verdict %u with reason %u", meta->verdict, meta->reason);
}

void
sp_fuzz_free_all(struct rte_mempool *mp, struct rte_mbuf *m, unsigned int in_use)
{
	rte_pktmbuf_free(m);
	SP_FUZZ_CHECK(rte_mempool_in_use_count(mp) == in_use,
		      "%u packets in use before, %u after", in_use, rte_mempool_in_use_count(mp));
}
