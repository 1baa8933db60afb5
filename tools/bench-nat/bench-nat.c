/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sp-bench-nat: what a host slice's NAT table (src/hostslice/nat.c) costs the
 * lcore of its NPE, on one core: cycles and ns per outbound packet of an
 * existing flow (a hash lookup), per inbound packet (an array load and a
 * compare), and per new flow (a free number found, the hash written, the
 * entry later expired), with 16 to 4096 flows in the table, flows chosen at
 * random so the table's size shows as cache misses.
 *
 * usage: sp-bench-nat [EAL options] -- [-n PACKETS]
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ip.h>
#include <rte_random.h>

#include "hostslice/nat.h"

#define FIRST 61000
#define REMOTE RTE_BE32(RTE_IPV4(10, 0, 0, 2))

static const uint16_t sizes[] = {16, 256, 4096};

struct flow {
	uint16_t inner, rem_port, ext;
};

static double
per_op(uint64_t cycles, uint64_t ops)
{
	return (double)cycles / (double)ops;
}

static void
run(uint16_t count, uint64_t packets)
{
	static const struct sp_nat_timeouts to = {7440, 240, 10, 120, 60};
	struct sp_nat *n = sp_nat_create("bench_nat", FIRST, count, &to, SOCKET_ID_ANY);
	struct flow *f = calloc(count, sizeof(*f));
	uint64_t t0, t_new, t_out, t_in, now = rte_rdtsc();
	volatile uint16_t sink; /* the lookups' answers are used */
	double ns = 1e9 / (double)rte_get_tsc_hz();
	uint16_t *pick = malloc(packets * sizeof(*pick));

	if (n == NULL || f == NULL || pick == NULL) {
		fprintf(stderr, "sp-bench-nat: no memory for %u flows\n", count);
		exit(1);
	}
	for (uint64_t i = 0; i < packets; i++)
		pick[i] = (uint16_t)(rte_rand() % count);
	/* New flows: the table filled, expired and filled again, packets / count times. */
	t0 = rte_rdtsc();
	for (uint64_t round = 0; round < packets / count; round++) {
		for (uint16_t i = 0; i < count; i++) {
			f[i] = (struct flow){.inner = (uint16_t)(1024 + i),
					     .rem_port = (uint16_t)(round % 60000 + 1)};
			if (sp_nat_out(n, SP_NAT_TCP, f[i].inner, REMOTE, f[i].rem_port, 0, now,
				       &f[i].ext) < 0) {
				fprintf(stderr, "sp-bench-nat: the table refused flow %u\n", i);
				exit(1);
			}
		}
		now += (uint64_t)241 * rte_get_tsc_hz(); /* every entry idle past its timeout */
		sp_nat_expire(n, now, 3u * count);
	}
	t_new = rte_rdtsc() - t0;
	for (uint16_t i = 0; i < count; i++)
		sp_nat_out(n, SP_NAT_TCP, f[i].inner, REMOTE, f[i].rem_port, 0, now, &f[i].ext);
	t0 = rte_rdtsc();
	for (uint64_t i = 0; i < packets; i++) {
		const struct flow *x = &f[pick[i]];
		uint16_t ext;

		sp_nat_out(n, SP_NAT_TCP, x->inner, REMOTE, x->rem_port, 0, now, &ext);
		sink = ext;
	}
	t_out = rte_rdtsc() - t0;
	t0 = rte_rdtsc();
	for (uint64_t i = 0; i < packets; i++) {
		const struct flow *x = &f[pick[i]];
		uint16_t inner;

		sp_nat_in(n, SP_NAT_TCP, x->ext, REMOTE, x->rem_port, 0, now, &inner);
		sink = inner;
	}
	t_in = rte_rdtsc() - t0;
	printf("%5u flows: out %6.1f cycles %6.1f ns/pkt, in %6.1f cycles %6.1f ns/pkt, "
	       "new flow %7.1f cycles %7.1f ns (%.2f M setups/s)\n", count,
	       per_op(t_out, packets), per_op(t_out, packets) * ns, per_op(t_in, packets),
	       per_op(t_in, packets) * ns, per_op(t_new, packets / count * count),
	       per_op(t_new, packets / count * count) * ns,
	       1e3 / (per_op(t_new, packets / count * count) * ns));
	(void)sink;
	free(pick);
	free(f);
	sp_nat_free(n);
}

int
main(int argc, char **argv)
{
	uint64_t packets = 4000000;
	int rc = rte_eal_init(argc, argv), opt;

	if (rc < 0) {
		fprintf(stderr, "sp-bench-nat: EAL init failed\n");
		return 1;
	}
	argc -= rc;
	argv += rc;
	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: sp-bench-nat [EAL options] -- [-n PACKETS]\n");
			return 2;
		}
		packets = strtoull(optarg, NULL, 10);
	}
	if (packets < 4096) {
		fprintf(stderr, "sp-bench-nat: -n takes 4096 packets at least\n");
		return 2;
	}
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++)
		run(sizes[i], packets);
	rte_eal_cleanup();
	return 0;
}
