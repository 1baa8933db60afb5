/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sp-bench-qm: the queue manager's cost per packet (one enqueue and one
 * dequeue) on one core, with 1 to 65536 backlogged queues of random shares
 * on one scheduler, to show that the work per packet does not grow with
 * the number of queues (docs/qm.md). The scheduler's rate is the highest
 * it takes, so the token bucket never holds a packet back: every dequeue
 * is the round robin's work.
 *
 * usage: sp-bench-qm [EAL options] -- [-d SECONDS] [-p PACKETS_PER_QUEUE] [-q QUEUES]
 *   -q QUEUES  only this many queues (e.g. under perf stat) instead of 1 to 65536
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <slicepath/codeopt.h>

#include "port/port.h"
#include "qm/qm.h"
#include "qm/qm_worker.h"

#define BURST 32
#define FRAME 64

static uint32_t queue_counts[] = {1, 16, 256, 4096, 65536};
static unsigned int nb_counts = RTE_DIM(queue_counts);

/* Cycles per packet moved through a qm of n backlogged queues for `seconds`. */
static double
measure(struct rte_mempool *mp, uint32_t n, uint32_t per_queue, double seconds)
{
	struct sp_qm_params p = {.name = "bench", .nb_ports = 1, .max_queues = n, .max_owners = 1};
	struct sp_qm *qm = sp_qm_create(&p);
	struct rte_mbuf *pkts[BURST];
	uint64_t moved = 0, start, end, stop;

	if (qm == NULL || sp_qm_port_config(qm, 0, SP_MAX_RATE, 24) < 0 ||
	    sp_qm_owner_reserve(qm, 0, 0, SP_MAX_RATE) < 0 ||
	    sp_qm_owner_quota(qm, 0, UINT32_MAX) < 0) {
		fprintf(stderr, "sp-bench-qm: cannot set up a queue manager of %u queues\n", n);
		exit(1);
	}
	for (uint32_t q = 0; q < n; q++) {
		struct sp_qm_queue_conf c = {
			.share_bps = (1 + (uint64_t)rand() % 100) * 1000000, /* 1-100 Mb/s */
			.max_bytes = UINT32_MAX,
			.max_pkts = UINT32_MAX,
		};

		if (sp_qm_queue_bind(qm, q, &c) < 0) {
			fprintf(stderr, "sp-bench-qm: cannot bind queue %u\n", q);
			exit(1);
		}
		for (uint32_t k = 0; k < per_queue; k++) {
			struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

			if (m == NULL || rte_pktmbuf_append(m, FRAME) == NULL) {
				fprintf(stderr, "sp-bench-qm: out of mbufs (raise -m)\n");
				exit(1);
			}
			sp_meta(m)->queue = q;
			if (sp_qm_enqueue_burst(qm, &m, 1) != 0)
				exit(1);
		}
	}
	start = rte_rdtsc();
	stop = start + (uint64_t)(seconds * (double)rte_get_tsc_hz());
	do {
		for (int i = 0; i < 64; i++) {
			uint16_t k = sp_qm_dequeue_burst(qm, 0, rte_rdtsc(), pkts, BURST);

			/* Each packet back to its queue: every queue stays backlogged. */
			if (sp_qm_enqueue_burst(qm, pkts, k) != 0)
				exit(1);
			moved += k;
		}
		end = rte_rdtsc();
	} while (end < stop);
	sp_qm_free(qm);
	return (double)(end - start) / (double)moved;
}

int
main(int argc, char **argv)
{
	double seconds = 2, hz;
	uint32_t per_queue = 2, max = 0;
	struct rte_mempool *mp;
	int opt, n = rte_eal_init(argc, argv);

	if (n < 0) {
		fprintf(stderr, "sp-bench-qm: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	while ((opt = getopt(argc, argv, "d:p:q:h")) != -1) {
		switch (opt) {
		case 'd':
			seconds = atof(optarg);
			break;
		case 'p':
			per_queue = (uint32_t)atoi(optarg);
			break;
		case 'q':
			queue_counts[0] = (uint32_t)atoi(optarg);
			nb_counts = 1;
			break;
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"usage: sp-bench-qm [EAL options] -- [-d SECONDS] [-p PACKETS_PER_QUEUE] "
				"[-q QUEUES]\n");
			return opt == 'h' ? 0 : 1;
		}
	}
	if (seconds <= 0 || per_queue == 0 || queue_counts[0] == 0) {
		fprintf(stderr, "sp-bench-qm: -d, -p and -q must be above 0\n");
		return 1;
	}
	for (unsigned int i = 0; i < nb_counts; i++)
		max = RTE_MAX(max, queue_counts[i] * per_queue);
	mp = sp_pktmbuf_pool_create("bench_qm", max + 1024, (int)rte_socket_id());
	if (mp == NULL) {
		fprintf(stderr, "sp-bench-qm: no memory for %u mbufs (raise -m)\n", max + 1024);
		return 1;
	}
	hz = (double)rte_get_tsc_hz();
	printf("queue manager: %u-byte packets, %u per queue, every queue backlogged, %.1f s each\n",
	       FRAME, per_queue, seconds);
	printf("| backlogged queues | cycles/packet | ns/packet | Mpps (enqueue + dequeue) |\n");
	printf("| ---: | ---: | ---: | ---: |\n");
	for (unsigned int i = 0; i < nb_counts; i++) {
		double c = measure(mp, queue_counts[i], per_queue, seconds);

		printf("| %u | %.1f | %.1f | %.2f |\n", queue_counts[i], c, c * 1e9 / hz,
		       hz / c / 1e6);
	}
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return 0;
}
