/* SPDX-License-Identifier: BSD-3-Clause */
/* What slicepath-gen prints: progress lines, the summary table and its JSON form. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "gen.h"

/* Bits on the wire per second: frames padded to 60 bytes plus the overhead. */
static double
wire_bps(uint64_t pkts, uint64_t bytes, double seconds)
{
	if (seconds <= 0)
		return 0;
	return (double)(bytes + pkts * GEN_WIRE_OVERHEAD) * 8 / seconds;
}

void
gen_report_progress(const struct gen_run *r, double t, const struct gen_counts *before)
{
	double iv = r->spec->interval;

	for (unsigned int i = 0; i < r->spec->nb_streams; i++) {
		const struct gen_stream *s = &r->streams[i];
		uint64_t tx = s->c.tx_pkts - before[i].tx_pkts, rx = s->c.rx_pkts - before[i].rx_pkts;

		if (!r->quiet)
			printf("t=%.1f s  %-12s tx %12.0f pps  rx %12.0f pps\n", t, s->spec->name,
			       (double)tx / iv, (double)rx / iv);
		if (r->csv != NULL)
			fprintf(r->csv, "%.3f,%s,%.1f,%.1f,%.0f,%.0f\n", t, s->spec->name,
				(double)tx / iv, (double)rx / iv,
				wire_bps(tx, s->c.tx_bytes - before[i].tx_bytes, iv),
				wire_bps(rx, s->c.rx_bytes - before[i].rx_bytes, iv));
	}
	fflush(stdout);
}

static json_t *
stream_json(const struct gen_run *r, const struct gen_stream *s)
{
	double active = gen_active_seconds(s->spec, r->spec->duration);
	const struct gen_counts *c = &s->c;
	uint64_t lost = c->tx_pkts > c->rx_pkts ? c->tx_pkts - c->rx_pkts : 0;

	return json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:f, s:f, s:f, s:f, s:f, s:o}",
			 "name", s->spec->name, "tx_pkts", (json_int_t)c->tx_pkts, "tx_bytes",
			 (json_int_t)c->tx_bytes, "rx_pkts", (json_int_t)c->rx_pkts, "rx_bytes",
			 (json_int_t)c->rx_bytes, "lost", (json_int_t)lost, "loss",
			 c->tx_pkts > 0 ? (double)lost / (double)c->tx_pkts : 0.0, "reordered",
			 (json_int_t)c->reordered, "seconds", active, "tx_pps",
			 active > 0 ? (double)c->tx_pkts / active : 0.0, "rx_pps",
			 active > 0 ? (double)c->rx_pkts / active : 0.0, "tx_bps",
			 wire_bps(c->tx_pkts, c->tx_bytes, active), "rx_bps",
			 wire_bps(c->rx_pkts, c->rx_bytes, active), "latency_ns",
			 sp_latency_json(&s->lat));
}

static void
print_table(json_t *streams)
{
	json_t *o;
	size_t i;

	printf("%-12s %12s %12s %10s %8s %9s %11s %9s %9s %9s %9s\n", "STREAM", "TX_PKTS",
	       "RX_PKTS", "LOST", "LOSS_%", "REORDER", "RX_MPPS", "P50_US", "P99_US", "P999_US",
	       "MAX_US");
	json_array_foreach(streams, i, o) {
		struct sp_latency_summary lat;

		sp_latency_summary_from_json(json_object_get(o, "latency_ns"), &lat);
		printf("%-12s %12" JSON_INTEGER_FORMAT " %12" JSON_INTEGER_FORMAT " %10"
		       JSON_INTEGER_FORMAT " %8.3f %9" JSON_INTEGER_FORMAT " %11.4f %9.1f %9.1f %9.1f"
		       " %9.1f\n", json_string_value(json_object_get(o, "name")),
		       json_integer_value(json_object_get(o, "tx_pkts")),
		       json_integer_value(json_object_get(o, "rx_pkts")),
		       json_integer_value(json_object_get(o, "lost")),
		       100 * json_real_value(json_object_get(o, "loss")),
		       json_integer_value(json_object_get(o, "reordered")),
		       json_real_value(json_object_get(o, "rx_pps")) / 1e6,
		       (double)lat.p50 / 1e3, (double)lat.p99 / 1e3, (double)lat.p999 / 1e3,
		       (double)lat.max / 1e3);
	}
}

int
gen_report(const struct gen_run *r, const char *json_path)
{
	json_t *streams = json_array(), *other = json_object(), *root;
	int rc = 0;

	for (unsigned int i = 0; i < r->spec->nb_streams; i++)
		json_array_append_new(streams, stream_json(r, &r->streams[i]));
	for (uint16_t p = 0; p < r->nb_ports; p++) {
		char name[8];

		snprintf(name, sizeof(name), "%u", p);
		json_object_set_new(other, name, json_integer((json_int_t)r->other_rx[p]));
	}
	root = json_pack("{s:f, s:f, s:o, s:o}", "duration", r->spec->duration, "elapsed",
			 r->elapsed, "streams", streams, "other_rx", other);
	print_table(streams);
	if (json_path != NULL) {
		FILE *f = strcmp(json_path, "-") == 0 ? stdout : fopen(json_path, "w");

		if (f == NULL || json_dumpf(root, f, JSON_INDENT(1)) != 0 || fputc('\n', f) == EOF ||
		    (f != stdout && fclose(f) != 0)) {
			fprintf(stderr, "slicepath-gen: cannot write %s: %s\n", json_path,
				strerror(errno));
			rc = -1;
		}
	}
	json_decref(root);
	return rc;
}
