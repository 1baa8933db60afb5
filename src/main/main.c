/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepathd: the fast-path daemon. Reads the JSON config, starts DPDK,
 * builds the node, launches the forwarding lcores and runs the management
 * thread on the main lcore until SIGINT or SIGTERM.
 *
 *   slicepathd -c FILE [--check-config] [-- EXTRA_EAL_ARGS...]
 *
 * Exit status: 0 after a clean shutdown (or a valid --check-config), 1 for
 * an invalid config, 2 when DPDK or a port cannot start.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_pdump.h>

#include "common/notify.h"
#include "config/config.h"
#include "config/lcore_cpus.h"
#include "mgmt/channel.h"
#include "mgmt/mgmt.h"
#include "node/launch.h"
#include "node/node.h"
#include "lc/lcore.h"
#include "node/steer.h"
#include "stats/stats.h"

enum { EXIT_CONFIG = 1, EXIT_RUNTIME = 2 };

static struct sp_node node;

static void
on_signal(int sig __rte_unused)
{
	node.quit = true;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: slicepathd -c FILE [--check-config] [-- EXTRA_EAL_ARGS...]\n"
		   "  -c, --config FILE   the node's JSON config (docs/config.md)\n"
		   "      --check-config  validate FILE (and its code options), then exit\n"
		   "  -h, --help          this text\n"
		   "  -V, --version       print the version\n"
		   "Arguments after -- are appended to the config's \"eal\" arguments.\n");
}

static int
load_codeopt_libs(const struct sp_launch *l)
{
	for (uint16_t i = 0; i < l->nb_codeopt_libs; i++) {
		unsigned int refused = sp_codeopt_refused();

		/* Registration happens in the object's constructor. */
		if (dlopen(l->codeopt_libs[i], RTLD_NOW | RTLD_GLOBAL) == NULL) {
			fprintf(stderr, "slicepathd: codeopt_libs[%u]: cannot load: %s\n", i,
				dlerror());
			return -EINVAL;
		}
		if (sp_codeopt_refused() != refused) {
			fprintf(stderr, "slicepathd: codeopt_libs[%u]: %s: its code option was "
					"refused (the reason is logged above)\n",
				i, l->codeopt_libs[i]);
			return -EINVAL;
		}
	}
	return 0;
}

static int
check_codeopts(const struct sp_launch *l)
{
	char names[256];

	for (uint16_t i = 0; i < l->nb_slices; i++) {
		if (sp_codeopt_find(l->slice_codeopts[i]) != NULL)
			continue;
		sp_codeopt_names(names, sizeof(names));
		fprintf(stderr, "slicepathd: slices[%u].codeopt: unknown code option \"%s\"; use "
				"one of: %s (or load it with \"codeopt_libs\")\n",
			i, l->slice_codeopts[i], names);
		return -EINVAL;
	}
	return 0;
}

/* EAL options that say which lcores run where. */
static const char *const lcore_opts[] = {"-l", "-c", "--lcores", NULL};

/* Does the config's "eal" or the command line give one of opts (NULL-terminated)? */
static bool
has_option(const struct sp_launch *l, int extra_argc, char **extra_argv,
	   const char *const *opts)
{
	for (unsigned int k = 0; opts[k] != NULL; k++) {
		for (int i = 0; i < l->eal_argc; i++)
			if (strncmp(l->eal_argv[i], opts[k], strlen(opts[k])) == 0)
				return true;
		for (int i = 0; i < extra_argc; i++)
			if (strncmp(extra_argv[i], opts[k], strlen(opts[k])) == 0)
				return true;
	}
	return false;
}

/*
 * Without an lcore option slicepathd runs lcore N on CPU N: each must be a CPU
 * this process may run on, else EAL refuses at start (exit 2, which systemd
 * retries) where a config error (exit 1, also for --check-config) is due.
 */
static int
check_cpus(const struct sp_launch *l, int extra_argc, char **extra_argv)
{
	cpu_set_t cpus;

	if (has_option(l, extra_argc, extra_argv, lcore_opts) ||
	    sched_getaffinity(0, sizeof(cpus), &cpus) != 0)
		return 0;
	for (unsigned int i = 0; i < l->nb_lcores; i++) {
		unsigned int id = l->lcores[i];

		if (id >= CPU_SETSIZE || !CPU_ISSET(id, &cpus)) {
			fprintf(stderr, "slicepathd: lcores[%u].id: this machine has no CPU %u for "
					"lcore %u (it has %d); pick another id, or map lcores to "
					"CPUs with --lcores in \"eal\"\n", i, id, id, CPU_COUNT(&cpus));
			return -EINVAL;
		}
	}
	return 0;
}

/* The value of the last --lcores among argv's, else map. */
static const char *
last_lcores(char *const *argv, int argc, const char *map)
{
	for (int i = 0; i < argc; i++) {
		if (strncmp(argv[i], "--lcores=", 9) == 0)
			map = argv[i] + 9;
		else if (strcmp(argv[i], "--lcores") == 0 && i + 1 < argc)
			map = argv[++i];
	}
	return map;
}

/* The value of the last --lcores in the config's "eal" and the command line's extras, or NULL. */
static const char *
lcores_map(const struct sp_launch *l, int extra_argc, char **extra_argv)
{
	return last_lcores(extra_argv, extra_argc, last_lcores(l->eal_argv, l->eal_argc, NULL));
}

/*
 * Two forwarding lcores pinned to one CPU (--lcores 1@1,2@1) would each
 * poll half the time, waiting out the other's time slices (milliseconds):
 * a plan that cannot forward at the rate of two, explained before a start.
 * Sharing with the main lcore, mostly asleep, is fine (2-CPU machines).
 */
static int
check_cpu_sharing(const struct sp_launch *l, int extra_argc, char **extra_argv)
{
	const char *map = lcores_map(l, extra_argc, extra_argv);
	int cpu[SP_MAX_WORKERS]; /* the one CPU of each forwarding lcore, or -1 */

	if (map == NULL)
		return 0; /* -l, -c or none: lcore N on CPU N */
	for (unsigned int i = 0; i < l->nb_lcores; i++) {
		cpu_set_t set;

		cpu[i] = -1;
		/* EAL explains a map that does not parse; an lcore over several CPUs floats. */
		if (sp_lcore_cpus(map, l->lcores[i], &set) == 1 && CPU_COUNT(&set) == 1)
			for (int c = 0; c < CPU_SETSIZE && cpu[i] < 0; c++)
				cpu[i] = CPU_ISSET(c, &set) ? c : -1;
		for (unsigned int j = 0; j < i && cpu[i] >= 0; j++) {
			if (cpu[j] != cpu[i])
				continue;
			fprintf(stderr, "slicepathd: lcores[%u] (lcore %u) and lcores[%u] (lcore %u) "
					"both run on CPU %d (--lcores %s): two forwarding lcores poll "
					"without rest, so on one CPU each forwards only while the other "
					"waits out its time slice; give each its own CPU, or run both "
					"roles on one lcore (docs/config.md)\n", j, l->lcores[j], i,
				l->lcores[i], cpu[i], map);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * argv for rte_eal_init: the config's "eal", the command line's extras,
 * "-l 0,<workers>" unless an lcore option was given, and 512-bit SIMD
 * unless capped, so that DPDK's code chosen at run time may use AVX-512
 * (rte_acl's classifiers, which serve the filter table's rte_acl forms, are
 * 1.3-1.6x faster with it; the default tree needs only 16-byte vectors:
 * docs/lookup.md).
 */
static int
eal_start(const struct sp_launch *l, const char *argv0, int extra_argc, char **extra_argv)
{
	static const char *const simd_opts[] = {"--force-max-simd-bitwidth", NULL};
	static char lcores[256];
	char *argv[SP_MAX_EAL_ARGS * 2 + 6];
	int argc = 0, off;

	argv[argc++] = (char *)argv0;
	for (int i = 0; i < l->eal_argc; i++)
		argv[argc++] = l->eal_argv[i];
	for (int i = 0; i < extra_argc && argc < (int)RTE_DIM(argv) - 4; i++)
		argv[argc++] = extra_argv[i];
	if (!has_option(l, extra_argc, extra_argv, simd_opts))
		argv[argc++] = "--force-max-simd-bitwidth=512";
	if (!has_option(l, extra_argc, extra_argv, lcore_opts)) {
		off = snprintf(lcores, sizeof(lcores), "0");
		for (unsigned int i = 0; i < l->nb_lcores; i++)
			off += snprintf(lcores + off, sizeof(lcores) - off, ",%u", l->lcores[i]);
		argv[argc++] = "-l";
		argv[argc++] = lcores;
	}
	argv[argc] = NULL;
	/* DPDK logs to stdout and to syslog by default: under systemd each line would reach
	 * the journal twice. stderr alone, like the daemon's own messages. */
	rte_openlog_stream(stderr);
	return rte_eal_init(argc, argv);
}

static int
check_lcores(const struct sp_launch *l)
{
	for (unsigned int i = 0; i < l->nb_lcores; i++) {
		unsigned int id = l->lcores[i];

		if (id == rte_get_main_lcore()) {
			fprintf(stderr, "slicepathd: lcores[%u].id: lcore %u is the main lcore, which "
					"runs the management thread; pick another id\n", i, id);
			return -EINVAL;
		}
		if (!rte_lcore_is_enabled(id)) {
			fprintf(stderr, "slicepathd: lcores[%u].id: lcore %u is not among the EAL's "
					"lcores; add it to -l/--lcores or drop that option\n", i, id);
			return -EINVAL;
		}
	}
	return 0;
}

/* The exception channel of every slice of the config. */
static int
open_channels(const struct sp_launch *l, char *err, size_t errlen)
{
	node.channels = sp_channels_create(&node, l->channel_dir, err, errlen);
	if (node.channels == NULL)
		return -EINVAL;
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++) {
		int rc = node.slices[i] == NULL ? 0 : sp_channel_open(node.channels,
								      node.slices[i], err, errlen);

		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Build the node from cfg, run it until SIGINT or SIGTERM, take it down. */
static int
run(const struct sp_config *cfg, const struct sp_launch *l)
{
	char err[SP_CONFIG_ERR_LEN];
	struct sp_rpc_server *rpc;
	uint16_t slices = 0;

	if (sp_stats_init() < 0) {
		fprintf(stderr, "slicepathd: out of memory for counters\n");
		return EXIT_RUNTIME;
	}
	if (sp_node_init(&node, cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "slicepathd: %s\n", err);
		return EXIT_RUNTIME;
	}
	if (sp_telemetry_init(&node) < 0)
		fprintf(stderr, "slicepathd: telemetry commands unavailable\n");
	/* dpdk-dumpcap and dpdk-pdump (secondary processes) capture on the ports through it. */
	if (rte_pdump_init() < 0)
		fprintf(stderr, "slicepathd: packet capture unavailable: %s\n",
			rte_strerror(rte_errno));
	if (open_channels(l, err, sizeof(err)) < 0) {
		fprintf(stderr, "slicepathd: %s\n", err);
		sp_channels_free(node.channels);
		sp_node_fini(&node);
		return EXIT_RUNTIME;
	}
	rpc = sp_rpc_server_open(l->mgmt_socket, err, sizeof(err));
	if (rpc == NULL) {
		fprintf(stderr, "slicepathd: %s\n", err);
		sp_channels_free(node.channels);
		sp_node_fini(&node);
		return EXIT_RUNTIME;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (unsigned int i = 0; i < l->nb_lcores; i++)
		rte_eal_remote_launch(sp_lcore_main, &node, l->lcores[i]);
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		slices += node.slices[i] != NULL;
	fprintf(stderr, "slicepathd: forwarding on %u port(s) with %u slice(s), %u NPE(s), %u "
			"lcore(s); management socket %s\n", node.nb_ports, slices, node.nb_npes,
		l->nb_lcores, l->mgmt_socket);
	sp_steer_notify(&node, true);
	sp_mgmt_run(&node, rpc);
	sp_notify("STOPPING=1");
	rte_eal_mp_wait_lcore();
	sp_rpc_server_close(rpc);
	sp_channels_free(node.channels);
	sp_node_fini(&node);
	rte_pdump_uninit();
	sp_stats_fini();
	fprintf(stderr, "slicepathd: stopped\n");
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'},
		{"check-config", no_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	static struct sp_config cfg;
	static struct sp_launch launch;
	char err[SP_CONFIG_ERR_LEN];
	const char *path = NULL;
	bool check_only = false;
	int opt, rc;

	/* DPDK prints its usage on stdout: line by line, so that it comes before our
	 * "see the EAL lines above" on stderr when both go to a pipe or the journal. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt_long(argc, argv, "c:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c': path = optarg; break;
		case 'k': check_only = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("slicepathd %s\n", SP_VERSION); return 0;
		default: usage(stderr); return EXIT_CONFIG;
		}
	}
	if (path == NULL) {
		fprintf(stderr, "slicepathd: no config file; give one with -c FILE\n");
		usage(stderr);
		return EXIT_CONFIG;
	}
	if (sp_config_load(path, &cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "slicepathd: %s\n", err);
		return EXIT_CONFIG;
	}
	sp_launch_fill(&launch, &cfg);
	if (load_codeopt_libs(&launch) < 0 || check_codeopts(&launch) < 0 ||
	    check_cpus(&launch, argc - optind, argv + optind) < 0 ||
	    check_cpu_sharing(&launch, argc - optind, argv + optind) < 0) {
		sp_config_free(&cfg);
		return EXIT_CONFIG;
	}
	if (check_only) {
		char names[256];

		sp_codeopt_names(names, sizeof(names));
		printf("slicepathd: %s is valid; code options: %s\n", path, names);
		sp_config_free(&cfg);
		return 0;
	}
	if (eal_start(&launch, argv[0], argc - optind, argv + optind) < 0) {
		/* EAL sets rte_errno on some failures only; its own messages precede. */
		fprintf(stderr, "slicepathd: DPDK's EAL did not start%s%s (see the EAL lines above); "
				"check the \"eal\" arguments, hugepages (or add --no-huge -m 1024) "
				"and that no other DPDK process uses the same --file-prefix\n",
			rte_errno ? ": " : "", rte_errno ? rte_strerror(rte_errno) : "");
		sp_config_free(&cfg);
		return EXIT_RUNTIME;
	}
	rc = check_lcores(&launch) < 0 ? EXIT_CONFIG : run(&cfg, &launch);
	rte_eal_cleanup();
	sp_config_free(&cfg);
	return rc;
}
