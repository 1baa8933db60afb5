/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepath-gen's loop, on one lcore: each stream sends what its rate owes
 * since its phases began (paced from the TSC, at most a burst per turn, so
 * streams interleave; a lag of up to 10 ms is made up at the end, so each
 * sends rate x time in all unless it could not keep up), and every port's
 * arrivals are matched to their stream by the signature and counted.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "gen.h"

#define BURST 32
/* A lag the end of the run makes up: a descheduled moment, not an overload. */
#define CATCH_UP_S 0.01

double
gen_active_seconds(const struct gen_stream_spec *s, double t)
{
	double active = 0;

	for (unsigned int i = 0; i < s->nb_phases && s->phases[i].start < t; i++)
		active += (t < s->phases[i].stop ? t : s->phases[i].stop) - s->phases[i].start;
	return active;
}

/*
 * Send what stream s owes at t seconds, at most a burst; the port may take
 * fewer. Past the end (late) only a small lag is made up: a stream that
 * could not keep its rate at all must not show it by sending on.
 */
static void
send_due(struct gen_run *r, struct gen_stream *s, double t, bool late)
{
	uint64_t owed = (uint64_t)(gen_active_seconds(s->spec, t) * s->spec->pps);
	struct rte_mbuf *m[BURST];
	uint64_t now = rte_get_tsc_cycles();
	uint16_t n, sent;

	if (owed <= s->next_seq)
		return;
	if (late && owed - s->next_seq > RTE_MAX((uint64_t)(s->spec->pps * CATCH_UP_S), (uint64_t)BURST))
		return;
	n = (uint16_t)(owed - s->next_seq < BURST ? owed - s->next_seq : BURST);
	if (rte_pktmbuf_alloc_bulk(r->pool, m, n) != 0)
		return; /* all buffers in flight: the next turn */
	for (uint16_t i = 0; i < n; i++) {
		uint8_t *buf = (uint8_t *)rte_pktmbuf_append(m[i], s->frame_len);

		gen_frame_fill(s, buf, s->next_seq + i, now);
	}
	sent = rte_eth_tx_burst(s->spec->tx_port, 0, m, n);
	/* The refused ones are sent again next turn, with the same sequence numbers. */
	if (sent < n)
		rte_pktmbuf_free_bulk(m + sent, n - sent);
	s->next_seq += sent;
	s->c.tx_pkts += sent;
	s->c.tx_bytes += (uint64_t)sent * s->frame_len;
}

static void
count_arrival(struct gen_run *r, uint16_t port, const struct rte_mbuf *m, uint64_t now)
{
	uint8_t copy[GEN_MAX_FRAME];
	uint32_t len = rte_pktmbuf_pkt_len(m);
	const uint8_t *frame = rte_pktmbuf_read(m, 0, len < sizeof(copy) ? len : sizeof(copy), copy);
	const struct gen_sig *sig = frame != NULL ? gen_frame_sig(frame, len) : NULL;
	struct gen_stream *s;
	uint64_t seq, tsc;

	if (sig == NULL && r->unsigned_stream[port] >= 0) {
		s = &r->streams[r->unsigned_stream[port]];
		s->c.rx_pkts++;
		s->c.rx_bytes += len;
		return;
	}
	if (sig == NULL || sig->stream >= r->spec->nb_streams ||
	    r->streams[sig->stream].spec->rx_port != port) {
		r->other_rx[port]++;
		return;
	}
	s = &r->streams[sig->stream];
	memcpy(&seq, &sig->seq, sizeof(seq));
	memcpy(&tsc, &sig->tsc, sizeof(tsc));
	s->c.rx_pkts++;
	s->c.rx_bytes += len;
	if (seq + 1 < s->c.max_seq)
		s->c.reordered++;
	else
		s->c.max_seq = seq + 1;
	if (now >= tsc)
		sp_latency_add(&s->lat, (now - tsc) * 1000000000 / r->hz);
}

static void
receive(struct gen_run *r)
{
	struct rte_mbuf *m[BURST];

	for (uint16_t p = 0; p < r->nb_ports; p++) {
		uint16_t n = rte_eth_rx_burst(p, 0, m, BURST);
		uint64_t now = rte_get_tsc_cycles();

		for (uint16_t i = 0; i < n; i++)
			count_arrival(r, p, m[i], now);
		if (n > 0)
			rte_pktmbuf_free_bulk(m, n);
	}
}

void
gen_run(struct gen_run *r)
{
	const struct gen_spec *spec = r->spec;
	uint64_t start = rte_get_tsc_cycles(), now = start;
	double t = 0, next_report = spec->interval;
	struct gen_counts before[GEN_MAX_STREAMS];

	for (unsigned int i = 0; i < spec->nb_streams; i++)
		before[i] = r->streams[i].c;
	while (!r->quit && t < spec->duration + spec->drain) {
		/* Past the duration, a stream that fell behind (descheduled) still catches up. */
		bool late = t >= spec->duration;

		for (unsigned int i = 0; i < spec->nb_streams; i++)
			send_due(r, &r->streams[i], late ? spec->duration : t, late);
		receive(r);
		now = rte_get_tsc_cycles();
		t = (double)(now - start) / (double)r->hz;
		if (spec->interval > 0 && t >= next_report) {
			gen_report_progress(r, next_report, before);
			for (unsigned int i = 0; i < spec->nb_streams; i++)
				before[i] = r->streams[i].c;
			next_report += spec->interval;
		}
	}
	r->elapsed = t;
}
