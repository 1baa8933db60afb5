/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepath-gen, a DPDK traffic generator for slicepathd (docs/testing.md,
 * "Traffic generator"): streams of substrate-encapsulated packets, each
 * carrying a signature (stream, sequence number, send time), sent at a
 * paced rate during its phases; what comes back is matched to its stream
 * by that signature and counted: loss, reordering, latency.
 */
#ifndef SP_GEN_H
#define SP_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/ipaddr.h"
#include "common/latency.h"

struct rte_mempool;

#define GEN_MAX_STREAMS 256
#define GEN_MAX_PHASES 16
#define GEN_MAX_PORTS 8
#define GEN_NAME_LEN 32
/* Ethernet + IPv4 or IPv6 + UDP (the substrate), then the slice's header: inner IPv4 +
 * UDP, or an i3 header with one ID (version, flags, stack length, 32 bytes). */
#define GEN_OUTER_LEN (14 + 20 + 8)
#define GEN_OUTER6_LEN (14 + 40 + 8)
#define GEN_IPV4_INNER_LEN (20 + 8)
#define GEN_I3_INNER_LEN (3 + 32)
#define GEN_I3_ID_LEN 32
#define GEN_HDRS_LEN (GEN_OUTER_LEN + GEN_IPV4_INNER_LEN)
#define GEN_MAX_FRAME 1514
/* The signature at the start of the inner UDP payload. */
#define GEN_MAGIC UINT32_C(0x53504721) /* "SPG!" */
#define GEN_SIG_LEN 24
#define GEN_WIRE_OVERHEAD 24 /* preamble and start delimiter, FCS, inter-frame gap */

struct gen_sig {
	uint32_t magic;
	uint16_t stream;
	uint16_t flow;
	uint64_t seq;
	uint64_t tsc; /* when it was sent, on this machine's TSC */
} __attribute__((packed));

/* A time span of a stream's sending, in seconds from the run's start. */
struct gen_phase {
	double start, stop;
};

/* A stream as the spec file describes it (spec.c). */
struct gen_stream_spec {
	char name[GEN_NAME_LEN];
	uint16_t tx_port, rx_port;
	uint8_t src_mac[6], dst_mac[6];
	/* Outer, of one family: IPv4 (mapped) or IPv6, whose UDP checksum is summed. */
	struct sp_ip src_ip, dst_ip;
	uint8_t outer_len; /* GEN_OUTER_LEN or GEN_OUTER6_LEN */
	uint16_t src_port, dst_port;   /* outer UDP, host order: the node's endpoint */
	/* An i3 stream: i3 data packets to i3_id (flows add to its last 4 bytes,
	 * beyond the 128 bits a trigger matches) instead of inner IPv4/UDP. */
	bool i3;
	uint8_t i3_id[GEN_I3_ID_LEN];
	uint8_t inner_len; /* GEN_IPV4_INNER_LEN or GEN_I3_INNER_LEN */
	uint32_t inner_src, inner_dst; /* network byte order; flows add to inner_dst */
	uint16_t inner_sport, inner_dport;
	uint8_t ttl;
	uint32_t flows;   /* inner destinations inner_dst + 0 .. flows - 1, in turn */
	/*
	 * Payload bytes after the inner header. Below GEN_SIG_LEN the packets carry no
	 * signature: what arrives unsigned on rx_port is counted as the
	 * stream's (one such stream per port), without sequence or latency.
	 */
	uint16_t payload;
	double pps;       /* packets per second while a phase runs */
	unsigned int nb_phases;
	struct gen_phase phases[GEN_MAX_PHASES];
};

struct gen_spec {
	double duration; /* s of sending; then the receive side drains */
	double drain;    /* s to wait for the last packets */
	double interval; /* s between progress lines; 0: none */
	unsigned int nb_streams;
	struct gen_stream_spec streams[GEN_MAX_STREAMS];
};

/*
 * Read the spec file (JSON, docs/testing.md) into spec; the wire rate of
 * "bps" streams is turned into packets per second. 0, or -1 with a message
 * naming the field in err.
 */
int gen_spec_load(const char *path, struct gen_spec *spec, char *err, size_t errlen);
/* The same from JSON text (the fuzz and unit tests). */
int gen_spec_parse(const char *text, struct gen_spec *spec, char *err, size_t errlen);

struct gen_counts {
	uint64_t tx_pkts, tx_bytes; /* frames sent (bytes without FCS) */
	uint64_t rx_pkts, rx_bytes; /* frames of this stream received */
	uint64_t reordered;         /* received after a later sequence number */
	uint64_t max_seq;           /* highest received + 1 */
};

struct gen_stream {
	const struct gen_stream_spec *spec;
	uint16_t id; /* its index: the signature's stream */
	uint16_t frame_len;
	uint8_t frame[GEN_MAX_FRAME]; /* the template, checksums for flow 0 */
	uint64_t next_seq;
	struct gen_counts c;
	struct sp_latency lat;
};

/* A run: the streams and what arrived that was not theirs, per port. */
struct gen_run {
	const struct gen_spec *spec;
	uint16_t nb_ports;
	struct rte_mempool *pool;
	uint64_t hz;
	double elapsed; /* s the run took, drain included */
	struct gen_stream streams[GEN_MAX_STREAMS];
	uint64_t other_rx[GEN_MAX_PORTS]; /* frames without a signature of ours */
	int unsigned_stream[GEN_MAX_PORTS]; /* the port's unsigned stream, or -1 */
	FILE *csv;  /* progress rows, or NULL */
	bool quiet; /* no progress lines on stdout */
	volatile bool quit;
};

/* Send and receive for the spec's duration, then drain (run.c); progress lines if interval. */
void gen_run(struct gen_run *r);

/*
 * Progress over the last interval: a line per stream on stdout unless
 * quiet, a row per stream in r->csv if set. The human summary on stdout,
 * and the JSON one into path ("-": stdout) if not NULL (report.c).
 */
void gen_report_progress(const struct gen_run *r, double t, const struct gen_counts *before);
int gen_report(const struct gen_run *r, const char *json_path);
/* Seconds of sending a stream's phases hold in the first t seconds of the run. */
double gen_active_seconds(const struct gen_stream_spec *s, double t);

/* Build the template frame of a stream (frame.c). */
void gen_frame_build(struct gen_stream *s);
/*
 * Write a stream's packet number seq into buf (frame_len bytes): the
 * template with the flow's inner destination and checksums, and the
 * signature with tsc.
 */
void gen_frame_fill(const struct gen_stream *s, uint8_t *buf, uint64_t seq, uint64_t tsc);
/* The signature of a received frame, or NULL if it carries none (not ours). */
const struct gen_sig *gen_frame_sig(const uint8_t *frame, uint32_t len);

#endif
