/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepath-gen: send the streams of a spec file through slicepathd and
 * count what comes back (docs/testing.md, "Traffic generator").
 *
 *   slicepath-gen [EAL options] -- -s SPEC [-j JSON] [-c CSV] [-w SECONDS] [-q] [-H]
 *
 * The ports are the EAL's, in order (e.g. --vdev net_memif0,role=client,...
 * for each of slicepathd's memif ports). Exit status: 0 the run happened
 * (the summary says how it went), 1 bad arguments or spec, 2 the ports
 * could not be used.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "gen.h"

#define EXIT_USAGE 1
#define EXIT_PORTS 2
#define NB_MBUFS 16383
#define RING_SIZE 1024
#define DEFAULT_LINK_WAIT 10
#define LINK_SETTLE_MS 200

static struct gen_run run;
static struct gen_spec spec;

static void
on_signal(int sig)
{
	(void)sig;
	run.quit = true;
}

static int
usage(const char *why)
{
	if (why != NULL)
		fprintf(stderr, "slicepath-gen: %s\n", why);
	fprintf(stderr, "usage: slicepath-gen [EAL options] -- -s SPEC [-j JSON] [-c CSV] "
		"[-w SECONDS] [-q] [-H]\n"
		"  -s SPEC     the streams to send (JSON; docs/testing.md)\n"
		"  -j JSON     write the summary as JSON there ('-': stdout)\n"
		"  -c CSV      write each interval's rates there (t,stream,tx_pps,rx_pps,tx_bps,rx_bps)\n"
		"  -w SECONDS  how long to wait for the ports' links (default %d)\n"
		"  -q          no progress lines\n"
		"  -H          after the summary, hold the ports open until stdin ends or a signal,\n"
		"              so that the node can stop first\n", DEFAULT_LINK_WAIT);
	return EXIT_USAGE;
}

/* The port's device name for messages ("?" if unknown). */
static const char *
port_name(uint16_t p, char name[RTE_ETH_NAME_MAX_LEN])
{
	if (rte_eth_dev_get_name_by_port(p, name) != 0)
		strcpy(name, "?");
	return name;
}

static int
setup_port(uint16_t p, char *err, size_t errlen)
{
	struct rte_eth_conf conf = {0};
	int rc;

	rc = rte_eth_dev_configure(p, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(p, 0, RING_SIZE, rte_eth_dev_socket_id(p), NULL, run.pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(p, 0, RING_SIZE, rte_eth_dev_socket_id(p), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(p);
	if (rc != 0) {
		char name[RTE_ETH_NAME_MAX_LEN];

		port_name(p, name);
		snprintf(err, errlen, "port %u (%s) cannot be started: %s%s", p, name,
			 rte_strerror(-rc), strncmp(name, "net_memif", 9) == 0 ?
			 " (a memif client needs its server: is slicepathd running?)" : "");
		return -1;
	}
	rte_eth_promiscuous_enable(p); /* not every device can: then it takes what it takes */
	return 0;
}

/* Every port's link up within seconds (a memif client's comes up once connected). */
static int
wait_links(unsigned int seconds, char *err, size_t errlen)
{
	uint64_t until = rte_get_tsc_cycles() + seconds * rte_get_tsc_hz();

	for (uint16_t p = 0; p < run.nb_ports; p++) {
		struct rte_eth_link link;

		while (rte_eth_link_get_nowait(p, &link) == 0 && link.link_status == 0) {
			if (rte_get_tsc_cycles() > until || run.quit) {
				char name[RTE_ETH_NAME_MAX_LEN];

				snprintf(err, errlen, "port %u (%s) has no link after %u s: is its peer "
					 "(slicepathd) running?", p, port_name(p, name), seconds);
				return -1;
			}
			rte_delay_ms(10);
		}
	}
	/* The peer's end of a memif link comes up a moment after ours: let it, or it drops. */
	rte_delay_ms(LINK_SETTLE_MS);
	return 0;
}

/*
 * Keep the ports connected, not polled, until stdin ends or a signal comes.
 * DPDK 22.11's memif driver unmaps the shared memory when the peer goes
 * away, under a data path that may be polling it: a process whose peer
 * leaves while it polls can crash. So the node stops first, then we do.
 */
static void
hold_ports(void)
{
	char buf[256];

	fflush(stdout);
	while (!run.quit && read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
}

/* The spec's ports exist; the streams' templates built. */
static int
prepare(char *err, size_t errlen)
{
	for (unsigned int p = 0; p < GEN_MAX_PORTS; p++)
		run.unsigned_stream[p] = -1;
	for (unsigned int i = 0; i < spec.nb_streams; i++) {
		const struct gen_stream_spec *s = &spec.streams[i];
		uint16_t need = s->tx_port > s->rx_port ? s->tx_port : s->rx_port;

		if (need >= run.nb_ports) {
			snprintf(err, errlen, "stream %s uses port %u but there %s %u (give one --vdev "
				 "or device per port)", s->name, need, run.nb_ports == 1 ? "is" :
				 "are", run.nb_ports);
			return -1;
		}
		run.streams[i].spec = s;
		run.streams[i].id = (uint16_t)i;
		gen_frame_build(&run.streams[i]);
		if (s->payload < GEN_SIG_LEN)
			run.unsigned_stream[s->rx_port] = (int)i;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *spec_path = NULL, *json_path = NULL, *csv_path = NULL;
	unsigned int link_wait = DEFAULT_LINK_WAIT;
	bool quiet = false, hold = false;
	char err[600];
	int opt, n;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		/* EAL sets rte_errno on some failures only; its own messages precede. */
		fprintf(stderr, "slicepath-gen: DPDK's EAL did not start%s%s (see the EAL lines "
				"above); each DPDK process needs its own --file-prefix, and without "
				"hugepages add --no-huge -m 512\n",
			rte_errno ? ": " : "", rte_errno ? rte_strerror(rte_errno) : "");
		return EXIT_USAGE;
	}
	argc -= n;
	argv += n;
	while ((opt = getopt(argc, argv, "s:j:c:w:qHh")) != -1) {
		switch (opt) {
		case 's': spec_path = optarg; break;
		case 'j': json_path = optarg; break;
		case 'c': csv_path = optarg; break;
		case 'w': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*optarg == '\0' || *end != '\0' || v > 3600)
				return usage("-w takes whole seconds, 0 to 3600");
			link_wait = (unsigned int)v;
			break;
		}
		case 'q': quiet = true; break;
		case 'H': hold = true; break;
		case 'h': usage(NULL); return 0;
		default: return usage(NULL);
		}
	}
	if (spec_path == NULL || optind != argc)
		return usage(spec_path == NULL ? "give the streams with -s SPEC" :
			     "unexpected arguments after the options");
	if (gen_spec_load(spec_path, &spec, err, sizeof(err)) < 0) {
		fprintf(stderr, "slicepath-gen: %s\n", err);
		return EXIT_USAGE;
	}
	run.quiet = quiet;
	if (csv_path != NULL) {
		run.csv = fopen(csv_path, "w");
		if (run.csv == NULL) {
			fprintf(stderr, "slicepath-gen: cannot write %s: %s\n", csv_path, strerror(errno));
			return EXIT_USAGE;
		}
		fprintf(run.csv, "t,stream,tx_pps,rx_pps,tx_bps,rx_bps\n");
	}
	run.spec = &spec;
	run.hz = rte_get_tsc_hz();
	run.nb_ports = rte_eth_dev_count_avail();
	if (run.nb_ports > GEN_MAX_PORTS)
		run.nb_ports = GEN_MAX_PORTS;
	if (prepare(err, sizeof(err)) < 0) {
		fprintf(stderr, "slicepath-gen: %s\n", err);
		return EXIT_USAGE;
	}
	run.pool = rte_pktmbuf_pool_create("gen_pool", NB_MBUFS, 256, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (run.pool == NULL) {
		fprintf(stderr, "slicepath-gen: no packet buffers: %s\n", rte_strerror(rte_errno));
		return EXIT_PORTS;
	}
	/* Without SA_RESTART: a signal also ends the wait of -H. */
	sigaction(SIGINT, &(struct sigaction){.sa_handler = on_signal}, NULL);
	sigaction(SIGTERM, &(struct sigaction){.sa_handler = on_signal}, NULL);
	for (uint16_t p = 0; p < run.nb_ports; p++)
		if (setup_port(p, err, sizeof(err)) < 0) {
			fprintf(stderr, "slicepath-gen: %s\n", err);
			return EXIT_PORTS;
		}
	if (wait_links(link_wait, err, sizeof(err)) < 0) {
		fprintf(stderr, "slicepath-gen: %s\n", err);
		return EXIT_PORTS;
	}
	gen_run(&run);
	n = gen_report(&run, json_path);
	if (run.csv != NULL && fclose(run.csv) != 0) {
		fprintf(stderr, "slicepath-gen: cannot write %s: %s\n", csv_path, strerror(errno));
		n = -1;
	}
	if (hold)
		hold_ports();
	for (uint16_t p = 0; p < run.nb_ports; p++)
		rte_eth_dev_stop(p);
	rte_eal_cleanup();
	return n < 0 ? EXIT_PORTS : 0;
}
