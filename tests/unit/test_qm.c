/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The WDRR queue manager: round robin order and deficits, shares, the
 * token bucket at several rates, thresholds and quotas, binding and
 * admission errors, and counters, as a slice sees them. Time is the `now`
 * the tests pass, so every figure is exact.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <slicepath/codeopt.h>

#include "sp_test.h"
#include "qm/qm.h"
#include "qm/qm_worker.h"

/* Schedulers that have never sent have no tokens: their arrivals queue (see express_*). */
#define NB_PORTS 4
#define MAX_QUEUES 16
#define MAX_OWNERS 4
#define GBPS UINT64_C(1000000000)
#define MBPS UINT64_C(1000000)
#define BIG 100000000 /* a threshold nothing here reaches */
#define OVERHEAD 24

static uint64_t hz;

static struct sp_qm *
make_qm(void)
{
	struct sp_qm_params p = {
		.name = "test",
		.nb_ports = NB_PORTS,
		.max_queues = MAX_QUEUES,
		.max_owners = MAX_OWNERS,
		.socket = SOCKET_ID_ANY,
	};
	struct sp_qm *qm = sp_qm_create(&p);

	assert_non_null(qm);
	return qm;
}

/* Ports at 10 Gb/s; every owner reserves 2 Gb/s on each and may hold 4000 packets. */
static int
setup(void **state)
{
	struct sp_qm *qm = make_qm();

	for (uint16_t port = 0; port < NB_PORTS; port++) {
		assert_int_equal(sp_qm_port_config(qm, port, 10 * GBPS, OVERHEAD), 0);
		for (uint16_t o = 0; o < MAX_OWNERS; o++)
			assert_int_equal(sp_qm_owner_reserve(qm, o, port, 2 * GBPS), 0);
	}
	for (uint16_t o = 0; o < MAX_OWNERS; o++)
		assert_int_equal(sp_qm_owner_quota(qm, o, 4000), 0);
	*state = qm;
	return 0;
}

static int
teardown(void **state)
{
	sp_qm_free(*state);
	return 0;
}

static int
bind(struct sp_qm *qm, uint32_t q, uint16_t port, uint16_t owner, uint64_t share,
     uint32_t max_bytes, uint32_t max_pkts)
{
	struct sp_qm_queue_conf c = {
		.port = port,
		.owner = owner,
		.share_bps = share,
		.max_bytes = max_bytes,
		.max_pkts = max_pkts,
	};

	return sp_qm_queue_bind(qm, q, &c);
}

/* A packet of len bytes for physical queue q, its first byte a tag to recognise it by. */
static struct rte_mbuf *
pkt(uint32_t q, uint16_t len, uint8_t tag)
{
	static uint8_t bytes[2048];
	struct rte_mbuf *m;

	bytes[0] = tag;
	m = sp_test_pkt(bytes, len, 0);
	assert_non_null(m);
	sp_meta(m)->queue = q;
	return m;
}

static uint8_t
tag_of(struct rte_mbuf *m)
{
	return *rte_pktmbuf_mtod(m, uint8_t *);
}

/* Enqueue one packet; returns 1 if it was refused (and then frees it, checking its marks). */
static uint16_t
enq1(struct sp_qm *qm, uint32_t q, uint16_t len)
{
	struct rte_mbuf *m = pkt(q, len, (uint8_t)q);
	uint16_t refused = sp_qm_enqueue_burst(qm, &m, 1);

	if (refused != 0) {
		assert_int_equal(sp_meta(m)->verdict, SP_DROP);
		assert_int_equal(sp_meta(m)->reason, SP_REASON_QUEUE_FULL);
		rte_pktmbuf_free(m);
	}
	return refused;
}

/* A time late enough for a full bucket: the rate never holds anything back. */
static uint64_t
later(void)
{
	static uint64_t t;

	t += 10 * hz;
	return t;
}

/* Dequeue everything waiting on port with full buckets, free it, return how many. */
static uint16_t
drain(struct sp_qm *qm, uint16_t port)
{
	struct rte_mbuf *out[64];
	uint16_t n, total = 0;

	while ((n = sp_qm_dequeue_burst(qm, port, later(), out, RTE_DIM(out))) != 0) {
		rte_pktmbuf_free_bulk(out, n);
		total += n;
	}
	return total;
}

static struct sp_qm_queue_stats
stats(struct sp_qm *qm, uint32_t q)
{
	struct sp_qm_queue_stats st;

	assert_int_equal(sp_qm_queue_stats(qm, q, &st), 0);
	return st;
}

static uint64_t
drops(const struct sp_qm_queue_stats *st)
{
	uint64_t n = 0;

	for (unsigned int r = 0; r < SP_QM_DROP_MAX; r++)
		n += st->drop_pkts[r];
	return n;
}

/* The queues of everything dequeued from port (full buckets), in order; frees the packets. */
static unsigned int
order(struct sp_qm *qm, uint16_t port, uint8_t *queues, unsigned int max)
{
	struct rte_mbuf *out[8];
	unsigned int n = 0;
	uint16_t k;

	while ((k = sp_qm_dequeue_burst(qm, port, later(), out, RTE_DIM(out))) != 0) {
		for (uint16_t i = 0; i < k; i++) {
			assert_true(n < max);
			queues[n++] = tag_of(out[i]);
		}
		rte_pktmbuf_free_bulk(out, k);
	}
	return n;
}

static void
test_create_errors(void **state)
{
	struct sp_qm_params p = {.name = "bad", .nb_ports = 0, .max_queues = 1, .max_owners = 1};

	(void)state;
	assert_null(sp_qm_create(NULL));
	assert_null(sp_qm_create(&p));
	p.nb_ports = 1;
	p.max_queues = 0;
	assert_null(sp_qm_create(&p));
	p.max_queues = 1;
	p.max_owners = 0;
	assert_null(sp_qm_create(&p));
	sp_qm_free(NULL);
}

/* Queue 1 has twice queue 0's share: per round 4 of its 1000-byte frames to 2 of queue 0's. */
static void
test_rounds_follow_shares(void **state)
{
	struct sp_qm *qm = *state;
	static const uint8_t want[] = {0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1,
				       0, 0, 1, 1, 0, 0, 0, 0};
	uint8_t got[32];
	int i;

	assert_int_equal(bind(qm, 0, 0, 0, 1 * MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 1, 0, 0, 2 * MBPS, BIG, 1000), 0);
	/* 1000 + 24 wire bytes: quanta of 2048 and 4096 hold exactly 2 and 4. */
	for (i = 0; i < 10; i++) {
		assert_int_equal(enq1(qm, 0, 1000), 0);
		assert_int_equal(enq1(qm, 1, 1000), 0);
	}
	assert_int_equal(order(qm, 0, got, RTE_DIM(got)), RTE_DIM(want));
	assert_memory_equal(got, want, sizeof(want));
}

/* What a queue cannot send in its round is kept for the next (its deficit). */
static void
test_deficit_carries_over(void **state)
{
	struct sp_qm *qm = *state;
	/* Equal quanta of 2048: queue 0 sends 1524-byte frames, queue 1 124-byte ones. */
	static const struct {
		uint8_t queue, n;
	} want[] = {{0, 1}, {1, 16}, {0, 1}, {1, 17}, {0, 2}, {1, 16}};
	uint8_t got[64];
	unsigned int n, i, k = 0;

	assert_int_equal(bind(qm, 0, 0, 0, 5 * MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 1, 0, 0, 5 * MBPS, BIG, 1000), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(enq1(qm, 0, 1500), 0);
	for (i = 0; i < 49; i++)
		assert_int_equal(enq1(qm, 1, 100), 0);
	n = order(qm, 0, got, RTE_DIM(got));
	assert_int_equal(n, 53);
	for (i = 0; i < RTE_DIM(want); i++)
		for (unsigned int j = 0; j < want[i].n; j++, k++)
			assert_int_equal(got[k], want[i].queue);
}

/* Idle queues take no turn: a lone backlogged queue gets everything, at once. */
static void
test_only_backlogged_queues_served(void **state)
{
	struct sp_qm *qm = *state;
	struct rte_mbuf *out[64];
	uint8_t got[8];
	int i;

	for (uint32_t q = 0; q < 8; q++)
		assert_int_equal(bind(qm, q, 0, 0, (q + 1) * 10 * MBPS, BIG, 1000), 0);
	for (i = 0; i < 40; i++)
		assert_int_equal(enq1(qm, 3, 1500), 0);
	/* 40 frames of queue 3 in one call: no visit of the 7 idle queues stops it. */
	assert_int_equal(sp_qm_dequeue_burst(qm, 0, later(), out, RTE_DIM(out)), 40);
	rte_pktmbuf_free_bulk(out, 40);
	/* A queue that becomes backlogged joins the round behind the others (on a
	 * scheduler that has not sent yet: without tokens, arrivals queue). */
	assert_int_equal(bind(qm, 10, 1, 0, 10 * MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 11, 1, 0, 10 * MBPS, BIG, 1000), 0);
	assert_int_equal(enq1(qm, 10, 100), 0);
	assert_int_equal(enq1(qm, 11, 100), 0);
	assert_int_equal(enq1(qm, 10, 100), 0);
	assert_int_equal(order(qm, 1, got, RTE_DIM(got)), 3);
	assert_memory_equal(got, ((uint8_t[]){10, 10, 11}), 3);
}

/*
 * An idle scheduler with tokens sends arrivals as they come (as DRR would
 * send them at once anyway): they skip their queues, counted as sent on
 * arrival, and a queue's later arrivals wait behind them.
 */
static void
test_express_when_idle(void **state)
{
	struct sp_qm *qm = *state;
	struct sp_qm_queue_stats st;
	struct rte_mbuf *out[8];
	uint8_t got[8];

	assert_int_equal(bind(qm, 2, 0, 0, 10 * MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 5, 0, 0, 10 * MBPS, BIG, 1000), 0);
	assert_int_equal(drain(qm, 0), 0); /* the first dequeue fills the bucket */
	assert_int_equal(enq1(qm, 5, 100), 0);
	assert_int_equal(enq1(qm, 2, 100), 0);
	assert_int_equal(enq1(qm, 5, 100), 0);
	st = stats(qm, 5);
	assert_int_equal(st.enq_pkts, 2);
	assert_int_equal(st.sent_pkts, 2);
	assert_int_equal(st.sent_bytes, 200);
	assert_int_equal(st.len_pkts, 0);
	/* Taken two at a time, in arrival order, not by round (that would be 5, 5, 2). */
	assert_int_equal(sp_qm_dequeue_burst(qm, 0, later(), out, 2), 2);
	assert_int_equal(tag_of(out[0]), 5);
	assert_int_equal(tag_of(out[1]), 2);
	rte_pktmbuf_free_bulk(out, 2);
	/* While no queue is backlogged, arrivals join the frame still waiting. */
	assert_int_equal(enq1(qm, 2, 100), 0);
	assert_int_equal(enq1(qm, 5, 100), 0);
	assert_int_equal(enq1(qm, 2, 100), 0);
	assert_int_equal(stats(qm, 2).len_pkts, 0);
	assert_int_equal(order(qm, 0, got, RTE_DIM(got)), 4);
	assert_memory_equal(got, ((uint8_t[]){5, 2, 5, 2}), 4);
}

/* Only owner 0 reserves on port, bps: the port's rate may then go down to that. */
static void
reserve_only_owner0(struct sp_qm *qm, uint16_t port, uint64_t bps)
{
	for (uint16_t o = 1; o < MAX_OWNERS; o++)
		assert_int_equal(sp_qm_owner_reserve(qm, o, port, 0), 0);
	assert_int_equal(sp_qm_owner_reserve(qm, 0, port, bps), 0);
}

/*
 * Arrivals skip their queues only as far as the bucket's tokens (spent at
 * dequeue) and the express array's QM_EXPRESS (256) places go; the rest queue.
 */
static void
test_express_bounds(void **state)
{
	struct sp_qm *qm = *state;
	int i;

	/* 1 Mb/s: a bucket of two minimum quanta, 2 * (2048 + 24) bytes. */
	reserve_only_owner0(qm, 0, MBPS);
	assert_int_equal(sp_qm_port_config(qm, 0, MBPS, OVERHEAD), 0);
	assert_int_equal(bind(qm, 1, 0, 0, MBPS, BIG, 1000), 0);
	assert_int_equal(drain(qm, 0), 0);
	for (i = 0; i < 5; i++) /* 1024 wire bytes each: four fit in 4144 */
		assert_int_equal(enq1(qm, 1, 1000), 0);
	assert_int_equal(stats(qm, 1).sent_pkts, 4);
	assert_int_equal(stats(qm, 1).len_pkts, 1);
	assert_int_equal(drain(qm, 0), 5);
	/* 10 Gb/s on port 1, small frames: 256 skip, the others queue. */
	assert_int_equal(bind(qm, 2, 1, 0, MBPS, BIG, 1000), 0);
	assert_int_equal(drain(qm, 1), 0);
	for (i = 0; i < 300; i++)
		assert_int_equal(enq1(qm, 2, 64), 0);
	assert_int_equal(stats(qm, 2).sent_pkts, 256);
	assert_int_equal(stats(qm, 2).len_pkts, 44);
	assert_int_equal(drain(qm, 1), 300);
}

/*
 * A lower rate configured while express frames wait: a dequeue sends only
 * as many as the new bucket holds, the oldest, and the rest go later.
 */
static void
test_express_rate_lowered(void **state)
{
	struct sp_qm *qm = *state;
	struct rte_mbuf *out[64];
	int i;

	reserve_only_owner0(qm, 2, MBPS);
	assert_int_equal(bind(qm, 3, 2, 0, MBPS, BIG, 1000), 0);
	assert_int_equal(drain(qm, 2), 0); /* 10 Gb/s: the bucket fills */
	for (i = 0; i < 10; i++)
		assert_int_equal(enq1(qm, 3, 1000), 0);
	assert_int_equal(stats(qm, 3).len_pkts, 0); /* all express */
	/* 1 Mb/s: a bucket of 2 * (2048 + 24) bytes, four frames of 1024 wire bytes. */
	assert_int_equal(sp_qm_port_config(qm, 2, MBPS, OVERHEAD), 0);
	assert_int_equal(sp_qm_dequeue_burst(qm, 2, later(), out, RTE_DIM(out)), 4);
	rte_pktmbuf_free_bulk(out, 4);
	assert_int_equal(sp_qm_dequeue_burst(qm, 2, later(), out, 3), 3); /* max below the tokens */
	rte_pktmbuf_free_bulk(out, 3);
	assert_int_equal(drain(qm, 2), 3);
	assert_int_equal(stats(qm, 3).sent_pkts, 10);
}

/* Top every queue up to 40 frames of len[i] bytes. */
static void
feed(struct sp_qm *qm, const uint32_t *queues, const uint16_t *len, unsigned int nb)
{
	for (unsigned int i = 0; i < nb; i++)
		while (stats(qm, queues[i]).len_pkts < 40)
			assert_int_equal(enq1(qm, queues[i], len[i]), 0);
}

/*
 * Keep the queues backlogged and dequeue port until its bucket is empty at
 * t0, then every step cycles for `cycles` more: frames[i] and bytes[i]
 * (padded to 60, without overhead) count what queue i sent after t0.
 */
static void
run(struct sp_qm *qm, uint16_t port, const uint32_t *queues, const uint16_t *len,
    unsigned int nb, uint64_t t0, uint64_t cycles, uint64_t step, uint64_t *frames,
    uint64_t *bytes)
{
	struct rte_mbuf *out[32];
	uint16_t n;

	do {
		feed(qm, queues, len, nb);
		n = sp_qm_dequeue_burst(qm, port, t0, out, RTE_DIM(out));
		rte_pktmbuf_free_bulk(out, n);
	} while (n > 0);
	for (uint64_t t = t0 + step; t <= t0 + cycles; t += step) {
		feed(qm, queues, len, nb);
		n = sp_qm_dequeue_burst(qm, port, t, out, RTE_DIM(out));
		for (uint16_t k = 0; k < n; k++) {
			for (unsigned int i = 0; i < nb; i++) {
				if (sp_meta(out[k])->queue != queues[i])
					continue;
				frames[i]++;
				bytes[i] += RTE_MAX(rte_pktmbuf_pkt_len(out[k]), 60u);
			}
		}
		rte_pktmbuf_free_bulk(out, n);
	}
}

/* The token bucket: at each rate, what goes out after the first burst is rate x time. */
static void
test_rate_at_several_rates(void **state)
{
	static const uint64_t rates[] = {1 * MBPS, 100 * MBPS, 800 * MBPS, 10 * GBPS};
	struct sp_qm *qm = *state;
	uint32_t q = 0;
	uint16_t len = 1000; /* 1024 wire bytes */

	assert_int_equal(bind(qm, q, 0, 0, 1 * MBPS, BIG, 1000), 0);
	reserve_only_owner0(qm, 0, 1 * MBPS);
	for (unsigned int i = 0; i < RTE_DIM(rates); i++) {
		/* Long enough for 2000 frames at the rate, in steps of a quarter frame. */
		uint64_t frame_cycles = 1024 * 8 * hz / rates[i];
		uint64_t cycles = 2000 * frame_cycles, frames = 0, bytes = 0, wire;
		double want = (double)rates[i] * (double)cycles / (double)hz / 8;

		assert_int_equal(sp_qm_port_config(qm, 0, rates[i], OVERHEAD), 0);
		run(qm, 0, &q, &len, 1, later(), cycles, RTE_MAX(frame_cycles / 4, UINT64_C(1)),
		    &frames, &bytes);
		wire = bytes + frames * OVERHEAD;
		print_message("%" PRIu64 " bit/s: %" PRIu64 " wire bytes sent, want %.0f\n",
			      rates[i], wire, want);
		assert_true((double)wire >= want - 1024 && (double)wire <= want + 1024);
	}
	drain(qm, 0);
}

/* Every frame counts at least 60 bytes plus the port's overhead. */
static void
test_rate_counts_padding_and_overhead(void **state)
{
	static const uint16_t overheads[] = {0, 24};
	struct sp_qm *qm = *state;
	uint32_t q = 1;
	uint16_t len = 40; /* padded to 60 */

	assert_int_equal(bind(qm, q, 1, 0, 1 * MBPS, BIG, 1000), 0);
	reserve_only_owner0(qm, 1, 1 * MBPS);
	for (unsigned int i = 0; i < RTE_DIM(overheads); i++) {
		uint64_t rate = 100 * MBPS, frames = 0, bytes = 0; /* for 10 ms */
		uint64_t want = rate / 100 / 8 / (60 + overheads[i]);

		assert_int_equal(sp_qm_port_config(qm, 1, rate, overheads[i]), 0);
		run(qm, 1, &q, &len, 1, later(), hz / 100, hz / 1000000, &frames, &bytes);
		print_message("overhead %u: %" PRIu64 " frames of 40 bytes in 10 ms at 100 Mb/s, "
			      "want %" PRIu64 "\n", overheads[i], frames, want);
		assert_true(frames + 1 >= want && frames <= want + 1);
	}
	drain(qm, 1);
}

/* A new rate set while the queue is backlogged holds from the lcore's next dequeue. */
static void
test_rate_change_under_load(void **state)
{
	struct sp_qm *qm = *state;
	uint32_t q = 0;
	uint16_t len = 1000; /* 1024 wire bytes */
	uint64_t t = later(), ms = hz / 1000;

	reserve_only_owner0(qm, 0, 1 * MBPS);
	assert_int_equal(bind(qm, q, 0, 0, 1 * MBPS, BIG, 1000), 0);
	assert_int_equal(sp_qm_port_config(qm, 0, 800 * MBPS, OVERHEAD), 0);
	for (unsigned int i = 0; i < 2; i++) {
		uint64_t rate = i == 0 ? 800 * MBPS : 400 * MBPS, frames = 0, bytes = 0;
		double want = (double)rate / 100 / 8; /* bytes in 10 ms */

		if (i == 1)
			assert_int_equal(sp_qm_port_config(qm, 0, rate, OVERHEAD), 0);
		run(qm, 0, &q, &len, 1, t, 10 * ms, hz / 100000, &frames, &bytes);
		t += 10 * ms;
		print_message("%" PRIu64 " bit/s: %" PRIu64 " wire bytes in 10 ms, want %.0f\n", rate,
			      bytes + frames * OVERHEAD, want);
		assert_true((double)(bytes + frames * OVERHEAD) >= want - 2048 &&
			    (double)(bytes + frames * OVERHEAD) <= want + 2048);
	}
	drain(qm, 0);
}

/* An idle scheduler saves up at most its bucket: 1 ms at its rate (and two frames). */
static void
test_bucket_depth(void **state)
{
	struct sp_qm *qm = *state;
	struct rte_mbuf *out[32];
	uint64_t t = later(), sent = 0;
	uint16_t n;
	int i;

	reserve_only_owner0(qm, 0, 0);
	assert_int_equal(sp_qm_port_config(qm, 0, 800 * MBPS, OVERHEAD), 0);
	assert_int_equal(sp_qm_owner_reserve(qm, 0, 0, 1 * MBPS), 0);
	assert_int_equal(bind(qm, 0, 0, 0, 1 * MBPS, BIG, 1000), 0);
	for (i = 0; i < 200; i++)
		assert_int_equal(enq1(qm, 0, 1000), 0);
	t += 10 * hz; /* ten idle seconds */
	while ((n = sp_qm_dequeue_burst(qm, 0, t, out, RTE_DIM(out))) != 0) {
		sent += n;
		rte_pktmbuf_free_bulk(out, n);
	}
	/* 800 kbit / 8192 bits per frame = 97.6 */
	assert_int_equal(sent, 97);
	drain(qm, 0);
}

/* Shares 30/25/20/15/10 of an 800 Mb/s scheduler, all backlogged, mixed frame sizes. */
static void
test_shares_of_a_busy_scheduler(void **state)
{
	static const uint64_t pct[] = {30, 25, 20, 15, 10};
	static const uint32_t queues[] = {0, 1, 2, 3, 4};
	static const uint16_t len[] = {1400, 64, 800, 200, 1000};
	struct sp_qm *qm = *state;
	uint64_t frames[5] = {0}, wire[5] = {0}, total = 0;
	uint64_t rate = 800 * MBPS, cycles = hz / 10; /* 100 ms */

	reserve_only_owner0(qm, 0, rate);
	assert_int_equal(sp_qm_port_config(qm, 0, rate, OVERHEAD), 0);
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(bind(qm, queues[i], 0, 0, rate * pct[i] / 100, BIG, 1000), 0);
	run(qm, 0, queues, len, 5, later(), cycles, hz / 100000, frames, wire);
	for (unsigned int i = 0; i < 5; i++) {
		wire[i] += frames[i] * OVERHEAD;
		total += wire[i];
	}
	/* Work conserving: the scheduler's whole rate, to within two frames. */
	assert_true(total * 8 + 2 * 1424 * 8 >= rate / 10 && total * 8 <= rate / 10 + 2 * 1424 * 8);
	for (unsigned int i = 0; i < 5; i++) {
		double share = 100.0 * (double)wire[i] / (double)total;

		print_message("queue %u: share %" PRIu64 " %%, got %.2f %%\n", i, pct[i], share);
		assert_true(share > (double)pct[i] - 1 && share < (double)pct[i] + 1);
	}
	drain(qm, 0);
}

/* The 30 % and 10 % queues' inputs stop: once they drain, the others split the rate 25:20:15. */
static void
test_others_take_up_idle_shares(void **state)
{
	static const uint64_t pct[] = {30, 25, 20, 15, 10};
	static const uint32_t all[] = {0, 1, 2, 3, 4}, busy[] = {1, 2, 3};
	static const uint16_t len[] = {1000, 1000, 1000, 1000, 1000};
	struct sp_qm *qm = *state;
	uint64_t frames[5] = {0}, wire[5] = {0}, total = 0;
	uint64_t rate = 800 * MBPS, t = later(), ms = hz / 1000;

	reserve_only_owner0(qm, 0, rate);
	assert_int_equal(sp_qm_port_config(qm, 0, rate, OVERHEAD), 0);
	for (unsigned int i = 0; i < 5; i++)
		assert_int_equal(bind(qm, i, 0, 0, rate * pct[i] / 100, BIG, 1000), 0);
	run(qm, 0, all, len, 5, t, 50 * ms, hz / 100000, frames, wire);
	t += 50 * ms;
	assert_int_equal(stats(qm, 0).len_pkts, 40); /* backlogged when its input stops */
	run(qm, 0, busy, len, 3, t, 10 * ms, hz / 100000, frames, wire);
	t += 10 * ms;
	assert_int_equal(stats(qm, 0).len_pkts, 0);
	assert_int_equal(stats(qm, 4).len_pkts, 0);
	memset(frames, 0, sizeof(frames));
	memset(wire, 0, sizeof(wire));
	run(qm, 0, busy, len, 3, t, 100 * ms, hz / 100000, frames, wire);
	for (unsigned int i = 0; i < 3; i++) {
		wire[i] += frames[i] * OVERHEAD;
		total += wire[i];
	}
	/* The whole rate still goes out, to within two frames. */
	assert_true(total * 8 + 2 * 1024 * 8 >= rate / 10);
	for (unsigned int i = 0; i < 3; i++) {
		double share = 100.0 * (double)wire[i] / (double)total;
		double want = 100.0 * (double)pct[busy[i]] / 60.0;

		assert_true(share > want - 1 && share < want + 1);
	}
	drain(qm, 0);
}

static void
test_thresholds_exact(void **state)
{
	struct sp_qm *qm = *state;
	struct sp_qm_queue_stats st;
	int i;

	/* An empty queue of an idle scheduler (its frames would go express): the same bounds. */
	assert_int_equal(bind(qm, 5, 1, 0, MBPS, 200, 1000), 0);
	assert_int_equal(drain(qm, 1), 0); /* the first dequeue fills the bucket */
	assert_int_equal(enq1(qm, 5, 201), 1);
	assert_int_equal(enq1(qm, 5, 200), 0);
	st = stats(qm, 5);
	assert_int_equal(st.drop_bytes[SP_QM_DROP_BYTES], 201);
	assert_int_equal(st.len_pkts, 0); /* it went express */
	assert_int_equal(drain(qm, 1), 1);
	/* Bytes: 1000 fit, one more does not. */
	assert_int_equal(bind(qm, 3, 0, 0, MBPS, 1000, 1000), 0);
	for (i = 0; i < 9; i++)
		assert_int_equal(enq1(qm, 3, 100), 0);
	assert_int_equal(enq1(qm, 3, 101), 1);
	assert_int_equal(enq1(qm, 3, 100), 0);
	assert_int_equal(enq1(qm, 3, 1), 1);
	st = stats(qm, 3);
	assert_int_equal(st.len_bytes, 1000);
	assert_int_equal(st.drop_pkts[SP_QM_DROP_BYTES], 2);
	assert_int_equal(st.drop_bytes[SP_QM_DROP_BYTES], 102);
	/* Packets: 3 fit, a fourth does not, however small. */
	assert_int_equal(bind(qm, 4, 0, 0, MBPS, BIG, 3), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(enq1(qm, 4, 64), 0);
	assert_int_equal(enq1(qm, 4, 1), 1);
	st = stats(qm, 4);
	assert_int_equal(st.drop_pkts[SP_QM_DROP_PKTS], 1);
	assert_int_equal(st.drop_pkts[SP_QM_DROP_BYTES], 0);
	assert_int_equal(drain(qm, 0), 13);
	assert_int_equal(enq1(qm, 4, 64), 0);
	assert_int_equal(drain(qm, 0), 1);
}

/* An owner's packets in all its queues, on any port, stop at its quota. */
static void
test_buffer_quota(void **state)
{
	struct sp_qm *qm = *state;
	struct sp_qm_queue_stats st;

	assert_int_equal(sp_qm_owner_quota(qm, 2, 5), 0);
	assert_int_equal(bind(qm, 0, 0, 2, MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 1, 1, 2, MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 2, 0, 3, MBPS, BIG, 1000), 0); /* another owner */
	for (int i = 0; i < 3; i++)
		assert_int_equal(enq1(qm, 0, 100), 0);
	assert_int_equal(enq1(qm, 1, 100), 0);
	assert_int_equal(enq1(qm, 1, 100), 0);
	assert_int_equal(enq1(qm, 1, 100), 1);
	assert_int_equal(enq1(qm, 0, 100), 1);
	assert_int_equal(enq1(qm, 2, 100), 0); /* not owner 2's */
	st = stats(qm, 1);
	assert_int_equal(st.drop_pkts[SP_QM_DROP_QUOTA], 1);
	assert_int_equal(stats(qm, 0).drop_pkts[SP_QM_DROP_QUOTA], 1);
	/* What is sent makes room again. */
	assert_int_equal(drain(qm, 1), 2);
	assert_int_equal(enq1(qm, 0, 100), 0);
	assert_int_equal(enq1(qm, 0, 100), 0);
	assert_int_equal(enq1(qm, 0, 100), 1);
	assert_int_equal(sp_qm_owner_quota(qm, 2, 0), 0);
	assert_int_equal(drain(qm, 0), 6); /* and owner 3's */
	assert_int_equal(enq1(qm, 0, 100), 1); /* a quota of 0 refuses all */
	/* Frames an idle scheduler sends as they come are held by no queue: beyond the quota. */
	assert_int_equal(sp_qm_owner_quota(qm, 2, 1), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(enq1(qm, 1, 100), 0);
	assert_int_equal(drain(qm, 1), 3);
	assert_int_equal(sp_qm_owner_quota(qm, MAX_OWNERS, 1), -EINVAL);
}

static void
test_ports_independent(void **state)
{
	struct sp_qm *qm = *state;
	struct rte_mbuf *out[4];
	uint64_t t = later();

	assert_int_equal(bind(qm, 1, 0, 0, MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 2, 1, 0, MBPS, BIG, 1000), 0);
	assert_int_equal(sp_qm_queue_port(qm, 1), 0);
	assert_int_equal(sp_qm_queue_port(qm, 2), 1);
	assert_int_equal(enq1(qm, 1, 300), 0);
	assert_int_equal(enq1(qm, 2, 1000), 0);
	/* Each port sends only its own. */
	assert_int_equal(sp_qm_dequeue_burst(qm, 1, t, out, 4), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(out[0]), 1000);
	assert_int_equal(sp_qm_dequeue_burst(qm, 1, t, out + 1, 4), 0);
	assert_int_equal(sp_qm_dequeue_burst(qm, 0, t, out + 1, 4), 1);
	assert_int_equal(rte_pktmbuf_pkt_len(out[1]), 300);
	assert_int_equal(sp_qm_dequeue_burst(qm, NB_PORTS, t, out, 4), 0);
	rte_pktmbuf_free_bulk(out, 2);
}

/* One burst to queues of two ports taking turns: each port sends its own, in order. */
static void
test_burst_across_ports(void **state)
{
	struct sp_qm *qm = *state;
	struct rte_mbuf *in[6], *orig[6], *out[8];
	uint64_t t = later();

	assert_int_equal(bind(qm, 1, 0, 0, MBPS, 1 << 20, 1000), 0);
	assert_int_equal(bind(qm, 2, 1, 1, MBPS, 1 << 20, 1000), 0);
	for (uint8_t i = 0; i < 6; i++)
		in[i] = pkt(i % 3 == 1 ? 2 : 1, 100 + i, i); /* queues 1 2 1 1 2 1 */
	memcpy(orig, in, sizeof(in));
	assert_int_equal(sp_qm_enqueue_burst(qm, in, 6), 0);
	assert_int_equal(sp_qm_dequeue_burst(qm, 0, t, out, 8), 4);
	assert_int_equal(sp_qm_dequeue_burst(qm, 1, t, out + 4, 4), 2);
	assert_ptr_equal(out[0], orig[0]);
	assert_ptr_equal(out[1], orig[2]);
	assert_ptr_equal(out[2], orig[3]);
	assert_ptr_equal(out[3], orig[5]);
	assert_ptr_equal(out[4], orig[1]);
	assert_ptr_equal(out[5], orig[4]);
	rte_pktmbuf_free_bulk(out, 6);
}

static void
test_refused_moved_to_front(void **state)
{
	struct sp_qm *qm = *state;
	struct rte_mbuf *in[6], *orig[6], *out[8];
	uint16_t i;

	assert_int_equal(bind(qm, 0, 0, 0, MBPS, 250, 1000), 0);
	in[0] = pkt(0, 100, 0);
	in[1] = pkt(5, 100, 1);          /* unbound */
	in[2] = pkt(0, 100, 2);
	in[3] = pkt(0, 100, 3);          /* over queue 0's threshold */
	in[4] = pkt(MAX_QUEUES, 100, 4); /* no such queue */
	in[5] = pkt(0, 50, 5);           /* exactly 250 */
	memcpy(orig, in, sizeof(in));
	assert_int_equal(sp_qm_enqueue_burst(qm, in, 6), 3);
	/* Refused ones first, in their order, marked... */
	assert_ptr_equal(in[0], orig[1]);
	assert_ptr_equal(in[1], orig[3]);
	assert_ptr_equal(in[2], orig[4]);
	for (i = 0; i < 3; i++) {
		assert_int_equal(sp_meta(in[i])->verdict, SP_DROP);
		assert_int_equal(sp_meta(in[i])->reason, SP_REASON_QUEUE_FULL);
	}
	/* ...and the accepted ones behind them, for the caller to count. */
	for (i = 3; i < 6; i++)
		assert_true(in[i] == orig[0] || in[i] == orig[2] || in[i] == orig[5]);
	assert_true(in[3] != in[4] && in[4] != in[5] && in[3] != in[5]);
	rte_pktmbuf_free_bulk(in, 3);
	/* One queue: first in, first out. */
	assert_int_equal(sp_qm_dequeue_burst(qm, 0, later(), out, 8), 3);
	assert_ptr_equal(out[0], orig[0]);
	assert_ptr_equal(out[1], orig[2]);
	assert_ptr_equal(out[2], orig[5]);
	for (i = 0; i < 3; i++)
		assert_int_equal(sp_meta(out[i])->verdict, SP_FORWARD);
	rte_pktmbuf_free_bulk(out, 3);
}

static void
test_counters_exact(void **state)
{
	struct sp_qm *qm = *state;
	struct sp_qm_queue_stats st;
	struct rte_mbuf *out[4];

	assert_int_equal(bind(qm, 7, 1, 0, MBPS, 600, 1000), 0);
	st = stats(qm, 7);
	assert_int_equal(st.enq_pkts + st.sent_pkts + drops(&st) + st.len_pkts, 0);
	assert_int_equal(enq1(qm, 7, 100), 0);
	assert_int_equal(enq1(qm, 7, 200), 0);
	assert_int_equal(enq1(qm, 7, 300), 0);
	assert_int_equal(enq1(qm, 7, 400), 1);
	assert_int_equal(sp_qm_dequeue_burst(qm, 1, later(), out, 2), 2);
	rte_pktmbuf_free_bulk(out, 2);

	st = stats(qm, 7);
	assert_int_equal(st.enq_pkts, 3);
	assert_int_equal(st.enq_bytes, 600);
	assert_int_equal(st.sent_pkts, 2);
	assert_int_equal(st.sent_bytes, 300);
	assert_int_equal(drops(&st), 1);
	assert_int_equal(st.drop_bytes[SP_QM_DROP_BYTES], 400);
	assert_int_equal(st.len_pkts, 1);
	assert_int_equal(st.len_bytes, 300);
	/* Unbound queues refuse without counting against anyone. */
	assert_int_equal(enq1(qm, 8, 100), 1);
	st = stats(qm, 8);
	assert_int_equal(drops(&st) + st.enq_pkts, 0);
	assert_int_equal(drain(qm, 1), 1);
}

static void
test_bind_rebind_and_errors(void **state)
{
	struct sp_qm *qm = *state;
	struct sp_qm_queue_stats st;
	struct sp_qm_room r;

	assert_int_equal(sp_qm_queue_port(qm, 2), -ENOENT);
	assert_int_equal(sp_qm_queue_unbind(qm, 2), -ENOENT);
	assert_int_equal(bind(qm, MAX_QUEUES, 0, 0, MBPS, BIG, 1), -EINVAL);
	assert_int_equal(bind(qm, 2, NB_PORTS, 0, MBPS, BIG, 1), -EINVAL);
	assert_int_equal(bind(qm, 2, 0, MAX_OWNERS, MBPS, BIG, 1), -EINVAL);
	assert_int_equal(bind(qm, 2, 0, 0, 0, BIG, 1), -EINVAL);
	assert_int_equal(bind(NULL, 2, 0, 0, MBPS, BIG, 1), -EINVAL);
	assert_int_equal(sp_qm_queue_bind(qm, 2, NULL), -EINVAL);
	/* Shares: owner 0 reserves 2G on port 0. */
	assert_int_equal(bind(qm, 2, 0, 0, 2 * GBPS + 1, BIG, 1), -ENOSPC);
	assert_int_equal(sp_qm_queue_port(qm, 2), -ENOENT);
	assert_int_equal(bind(qm, 2, 0, 0, 1500 * MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 3, 0, 0, 600 * MBPS, BIG, 1000), -ENOSPC);
	assert_int_equal(bind(qm, 3, 0, 0, 500 * MBPS, BIG, 1000), 0);
	assert_int_equal(sp_qm_room(qm, 0, 0, &r), 0);
	assert_int_equal(r.rate_bps, 10 * GBPS);
	assert_int_equal(r.reserved_bps, 8 * GBPS);
	assert_int_equal(r.owner_bps, 2 * GBPS);
	assert_int_equal(r.shares_bps, 2 * GBPS);
	/* Rebinding changes its own share, not counted twice. */
	assert_int_equal(bind(qm, 2, 0, 0, 1000 * MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 3, 0, 0, 1000 * MBPS, BIG, 1000), 0);
	/* Reservations: not below the shares, not above the rate, rate not below them. */
	assert_int_equal(sp_qm_owner_reserve(qm, 0, 0, 2 * GBPS - 1), -EBUSY);
	assert_int_equal(sp_qm_owner_reserve(qm, 1, 0, 4 * GBPS + 1), -ENOSPC);
	assert_int_equal(sp_qm_owner_reserve(qm, 1, 0, 4 * GBPS), 0);
	assert_int_equal(sp_qm_port_config(qm, 0, 10 * GBPS - 1, OVERHEAD), -ENOSPC);
	assert_int_equal(sp_qm_port_config(qm, 0, 0, OVERHEAD), -EINVAL);
	assert_int_equal(sp_qm_port_config(qm, 0, SP_MAX_RATE + 1, OVERHEAD), -EINVAL);
	assert_int_equal(sp_qm_port_config(qm, NB_PORTS, GBPS, OVERHEAD), -EINVAL);
	assert_int_equal(sp_qm_owner_reserve(qm, MAX_OWNERS, 0, 1), -EINVAL);
	assert_int_equal(sp_qm_owner_reserve(qm, 0, NB_PORTS, 1), -EINVAL);
	assert_int_equal(sp_qm_room(qm, 0, NB_PORTS, &r), -EINVAL);

	/* Packets waiting: the queue keeps its port and owner, but may change share. */
	assert_int_equal(enq1(qm, 2, 100), 0);
	assert_int_equal(sp_qm_queue_unbind(qm, 2), -EBUSY);
	assert_int_equal(bind(qm, 2, 1, 0, MBPS, BIG, 1000), -EBUSY);
	assert_int_equal(bind(qm, 2, 0, 1, MBPS, BIG, 1000), -EBUSY);
	assert_int_equal(bind(qm, 2, 0, 0, 10 * MBPS, 150, 1000), 0);
	assert_int_equal(enq1(qm, 2, 100), 1); /* its new threshold */
	assert_int_equal(sp_qm_queue_port(qm, 2), 0);
	assert_int_equal(drain(qm, 0), 1);

	/* Rebinding an empty queue elsewhere keeps its counters; unbinding clears them. */
	assert_int_equal(bind(qm, 2, 1, 1, MBPS, 50, 1000), 0);
	assert_int_equal(sp_qm_queue_port(qm, 2), 1);
	assert_int_equal(enq1(qm, 2, 100), 1);
	st = stats(qm, 2);
	assert_int_equal(st.sent_pkts, 1);
	assert_int_equal(drops(&st), 2);
	assert_int_equal(sp_qm_room(qm, 0, 0, &r), 0);
	assert_int_equal(r.shares_bps, 1000 * MBPS); /* queue 2's share left owner 0 */
	assert_int_equal(sp_qm_queue_unbind(qm, 2), 0);
	assert_int_equal(sp_qm_queue_port(qm, 2), -ENOENT);
	st = stats(qm, 2);
	assert_int_equal(st.enq_pkts + st.sent_pkts + drops(&st), 0);
	assert_int_equal(enq1(qm, 2, 10), 1);
	assert_int_equal(sp_qm_room(qm, 1, 1, &r), 0);
	assert_int_equal(r.shares_bps, 0);

	assert_int_equal(sp_qm_queue_stats(qm, MAX_QUEUES, &st), -EINVAL);
	assert_int_equal(sp_qm_queue_stats(qm, 2, NULL), -EINVAL);
	assert_int_equal(sp_qm_queue_port(qm, MAX_QUEUES), -EINVAL);
	assert_int_equal(sp_qm_queue_unbind(qm, MAX_QUEUES), -EINVAL);
}

/* A flush empties a queue at the lcore's next dequeue, of any port; the others go on. */
static void
test_flush_then_unbind(void **state)
{
	struct rte_mempool *mp = sp_test_eal_init();
	unsigned int avail = rte_mempool_avail_count(mp);
	struct sp_qm *qm = *state;
	struct sp_qm_queue_stats st;
	uint8_t got[16];
	int i;

	assert_int_equal(bind(qm, 0, 0, 0, MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 1, 0, 0, MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 2, 1, 0, MBPS, BIG, 1000), 0);
	assert_int_equal(sp_qm_queue_flush(qm, 2), 0); /* empty: nothing to do */
	for (i = 0; i < 5; i++) {
		assert_int_equal(enq1(qm, 0, 100), 0);
		assert_int_equal(enq1(qm, 1, 100), 0);
	}
	/* Withdrawn before the lcore took it: the queue keeps its packets. */
	assert_int_equal(sp_qm_queue_flush(qm, 0), 1);
	assert_int_equal(sp_qm_queue_flush_cancel(qm, 1), 0); /* not queue 1's: stands */
	assert_int_equal(sp_qm_queue_flush(qm, 1), -EBUSY);
	assert_int_equal(sp_qm_queue_flush_cancel(qm, 0), 0);
	assert_int_equal(drain(qm, 1), 0);
	assert_int_equal(stats(qm, 0).len_pkts, 5);
	assert_int_equal(stats(qm, 0).drop_pkts[SP_QM_DROP_FLUSH], 0);
	assert_int_equal(sp_qm_queue_flush(qm, 0), 1);
	assert_int_equal(sp_qm_queue_flush(qm, 1), -EBUSY); /* one at a time */
	assert_int_equal(sp_qm_queue_unbind(qm, 0), -EBUSY);
	/* A dequeue of the other port carries it out. */
	assert_int_equal(drain(qm, 1), 0);
	st = stats(qm, 0);
	assert_int_equal(st.len_pkts, 0);
	assert_int_equal(st.drop_pkts[SP_QM_DROP_FLUSH], 5);
	assert_int_equal(st.drop_bytes[SP_QM_DROP_FLUSH], 500);
	assert_int_equal(rte_mempool_avail_count(mp), avail - 5);
	assert_int_equal(sp_qm_queue_flush_cancel(qm, 0), 0); /* done: nothing to withdraw */
	assert_int_equal(sp_qm_queue_unbind(qm, 0), 0);
	assert_int_equal(order(qm, 0, got, RTE_DIM(got)), 5);
	for (i = 0; i < 5; i++)
		assert_int_equal(got[i], 1);
	/* Flushing the round's only queue, its turn half done (port 2 has no
	 * tokens yet, so its arrivals queue; the zero-frame dequeue gives them). */
	assert_int_equal(bind(qm, 4, 2, 0, MBPS, BIG, 1000), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(enq1(qm, 4, 100), 0);
	assert_int_equal(sp_qm_dequeue_burst(qm, 2, later(), (struct rte_mbuf *[1]){NULL}, 0), 0);
	assert_int_equal(sp_qm_queue_flush(qm, 4), 1);
	assert_int_equal(drain(qm, 2), 0);
	assert_int_equal(enq1(qm, 4, 100), 0); /* it works on after */
	assert_int_equal(drain(qm, 2), 1);
	/* The middle and then the last queue of a round of three, on port 3. */
	for (uint32_t q = 5; q <= 7; q++)
		assert_int_equal(bind(qm, q, 3, 0, MBPS, BIG, 1000), 0);
	for (i = 0; i < 6; i++) /* a round of 5, 6, 7 */
		assert_int_equal(enq1(qm, 5 + (uint32_t)i / 2, 100), 0);
	assert_int_equal(sp_qm_queue_flush(qm, 6), 1);
	assert_int_equal(drain(qm, 1), 0);
	assert_int_equal(sp_qm_queue_flush(qm, 7), 1);
	assert_int_equal(drain(qm, 1), 0);
	assert_int_equal(enq1(qm, 7, 100), 0); /* joins behind queue 5 */
	assert_int_equal(order(qm, 3, got, RTE_DIM(got)), 3);
	assert_memory_equal(got, ((uint8_t[]){5, 5, 7}), 3);
	assert_int_equal(sp_qm_queue_flush(qm, 0), -ENOENT);
	assert_int_equal(sp_qm_queue_flush(qm, MAX_QUEUES), -EINVAL);
	assert_int_equal(rte_mempool_avail_count(mp), avail);
}

static void
test_free_releases_waiting(void **state)
{
	struct rte_mempool *mp = sp_test_eal_init();
	unsigned int avail = rte_mempool_avail_count(mp);
	struct sp_qm *qm = *state;
	int i;

	assert_int_equal(bind(qm, 0, 0, 0, MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 1, 1, 0, MBPS, BIG, 1000), 0);
	assert_int_equal(bind(qm, 2, 2, 0, MBPS, BIG, 1000), 0);
	for (i = 0; i < 10; i++)
		assert_int_equal(enq1(qm, i % 2, 64), 0);
	assert_int_equal(drain(qm, 2), 0); /* tokens: the next three skip their queue */
	for (i = 0; i < 3; i++)
		assert_int_equal(enq1(qm, 2, 64), 0);
	assert_int_equal(stats(qm, 2).sent_pkts, 3);
	assert_int_equal(rte_mempool_avail_count(mp), avail - 13);
	sp_qm_free(qm);
	*state = NULL;
	assert_int_equal(rte_mempool_avail_count(mp), avail);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_errors),
		cmocka_unit_test_setup_teardown(test_rounds_follow_shares, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deficit_carries_over, setup, teardown),
		cmocka_unit_test_setup_teardown(test_only_backlogged_queues_served, setup, teardown),
		cmocka_unit_test_setup_teardown(test_express_when_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_express_rate_lowered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_express_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_at_several_rates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rate_counts_padding_and_overhead, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rate_change_under_load, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bucket_depth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shares_of_a_busy_scheduler, setup, teardown),
		cmocka_unit_test_setup_teardown(test_others_take_up_idle_shares, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thresholds_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_quota, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ports_independent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_burst_across_ports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_moved_to_front, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counters_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_rebind_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flush_then_unbind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_releases_waiting, setup, teardown),
	};

	sp_test_eal_init();
	hz = rte_get_tsc_hz();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
