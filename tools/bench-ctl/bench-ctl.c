/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sp-bench-ctl: filter writes per second end to end, through libslicectl and
 * slicectld (which stores each write before acknowledging it) into
 * slicepathd, and the time to load a whole table, while traffic flows
 * through the slice being written (tools/bench-ctl.sh sets that up).
 *
 *   sp-bench-ctl [-s SOCKET] [-S SLICE] [-n FILTERS] [-b BATCH] [-1 SINGLES]
 *
 * SLICE (default "bench") must exist with an endpoint 1 and a queue 0 and
 * room for SINGLES + FILTERS positions. Phases, each with the slice's
 * received and forwarded packet rates while it ran:
 *   idle     1 s of traffic alone
 *   single   SINGLES filters, one request each (positions FILTERS and up)
 *   load     FILTERS filters at positions 0.. in requests of BATCH: the table's load time
 *   rewrite  the same positions again with another next hop
 *   steady   1 s of traffic alone again, every packet matching a filter: the
 *            forwarding rate the writes are to be compared with
 * Filter i matches the destination prefix 10.0.0.0/8 + i * 128, /25.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slicepath/ctl.h>
#include <slicepath/ipv4.h>

#include "common/clock.h"

struct phase {
	const char *name;
	uint64_t writes;
	double seconds;
	double rx_mpps, fwd_mpps;
};

static void
make_filter(struct sp_ctl_filter *f, uint32_t position, uint32_t i, const char *next_hop)
{
	uint32_t dst = htonl(UINT32_C(0x0a000000) + (i << 7)), mask = htonl(UINT32_C(0xffffff80));

	memset(f, 0, sizeof(*f));
	f->position = position;
	memcpy(&f->key.b[SP_IPV4_KEY_DST], &dst, 4);
	memcpy(&f->mask.b[SP_IPV4_KEY_DST], &mask, 4);
	f->result.endpoint = 1;
	f->result.queue = 0;
	inet_pton(AF_INET, next_hop, &f->result.nh_ip);
	f->result.nh_port = htons(6000);
}

struct bench {
	struct sp_ctl *ctl;
	const char *slice;
	struct sp_ctl_slice_stats at_start;
	double started;
};

static int
fail(struct bench *b, const char *what)
{
	fprintf(stderr, "sp-bench-ctl: %s: %s\n", what, sp_ctl_error(b->ctl));
	return 1;
}

static int
phase_start(struct bench *b)
{
	b->started = sp_mono_seconds();
	return sp_ctl_slice_stats(b->ctl, b->slice, &b->at_start);
}

static int
phase_end(struct bench *b, struct phase *p)
{
	struct sp_ctl_slice_stats end;
	int rc = sp_ctl_slice_stats(b->ctl, b->slice, &end);

	p->seconds = sp_mono_seconds() - b->started;
	p->rx_mpps = (double)(end.rx.pkts - b->at_start.rx.pkts) / p->seconds / 1e6;
	p->fwd_mpps = (double)(end.fwd.pkts - b->at_start.fwd.pkts) / p->seconds / 1e6;
	return rc;
}

/* count filters from position first, filter i of them numbered from, in requests of batch. */
static int
write_filters(struct bench *b, uint32_t first, uint32_t from, uint32_t count, uint32_t batch,
	      const char *next_hop)
{
	struct sp_ctl_filter *f = malloc((size_t)batch * sizeof(*f));
	int rc = 0;

	if (f == NULL)
		return -ENOMEM;
	for (uint32_t done = 0; rc == 0 && done < count; done += batch) {
		uint32_t n = count - done < batch ? count - done : batch;

		for (uint32_t k = 0; k < n; k++)
			make_filter(&f[k], first + done + k, from + done + k, next_hop);
		rc = sp_ctl_filter_write(b->ctl, b->slice, f, n);
	}
	free(f);
	return rc;
}

static void
report(const struct phase *p, unsigned int n)
{
	printf("%-8s %8s %8s %10s %8s %9s\n", "phase", "writes", "seconds", "writes/s", "rx Mpps",
	       "fwd Mpps");
	for (unsigned int i = 0; i < n; i++) {
		char rate[32] = "-";

		if (p[i].writes > 0)
			snprintf(rate, sizeof(rate), "%.0f", (double)p[i].writes / p[i].seconds);
		printf("%-8s %8" PRIu64 " %8.3f %10s %8.3f %9.3f\n", p[i].name, p[i].writes,
		       p[i].seconds, rate, p[i].rx_mpps, p[i].fwd_mpps);
	}
}

int
main(int argc, char **argv)
{
	struct bench b = {.slice = "bench"};
	uint32_t filters = 131072, batch = SP_FILTER_BATCH, singles = 2000;
	struct phase p[5] = {{.name = "idle"}, {.name = "single"}, {.name = "load"},
			     {.name = "rewrite"}, {.name = "steady"}};
	const char *path = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "s:S:n:b:1:h")) != -1) {
		switch (opt) {
		case 's': path = optarg; break;
		case 'S': b.slice = optarg; break;
		case 'n': filters = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'b': batch = (uint32_t)strtoul(optarg, NULL, 0); break;
		case '1': singles = (uint32_t)strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: sp-bench-ctl [-s SOCKET] [-S SLICE] [-n FILTERS] "
					"[-b BATCH] [-1 SINGLES]\n");
			return opt == 'h' ? 0 : 1;
		}
	}
	if (batch == 0 || filters == 0) {
		fprintf(stderr, "sp-bench-ctl: -n and -b must be at least 1\n");
		return 1;
	}
	b.ctl = sp_ctl_open(path);
	if (b.ctl == NULL) {
		fprintf(stderr, "sp-bench-ctl: cannot reach slicectld: %s\n", strerror(errno));
		return 1;
	}
	printf("sp-bench-ctl: slice %s: %u single writes, then %u filters in requests of %u, "
	       "twice\n", b.slice, singles, filters, batch);
	if (phase_start(&b) < 0)
		return fail(&b, "stats");
	sleep(1);
	if (phase_end(&b, &p[0]) < 0 || phase_start(&b) < 0)
		return fail(&b, "stats");
	for (uint32_t i = 0; i < singles; i++)
		if (write_filters(&b, filters + i, filters + i, 1, 1, "10.0.1.2") < 0)
			return fail(&b, "single write");
	p[1].writes = singles;
	if (phase_end(&b, &p[1]) < 0 || phase_start(&b) < 0)
		return fail(&b, "stats");
	if (write_filters(&b, 0, 0, filters, batch, "10.0.1.2") < 0)
		return fail(&b, "load");
	p[2].writes = filters;
	if (phase_end(&b, &p[2]) < 0 || phase_start(&b) < 0)
		return fail(&b, "stats");
	if (write_filters(&b, 0, 0, filters, batch, "10.0.1.3") < 0)
		return fail(&b, "rewrite");
	p[3].writes = filters;
	if (phase_end(&b, &p[3]) < 0 || phase_start(&b) < 0)
		return fail(&b, "stats");
	sleep(1);
	if (phase_end(&b, &p[4]) < 0)
		return fail(&b, "stats");
	report(p, 5);
	printf("load time for %u filters: %.2f s\n", filters, p[2].seconds);
	sp_ctl_close(b.ctl);
	return 0;
}
