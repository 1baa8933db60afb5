/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sp-bench-fleet: the fleet's registry under load (docs/fleet.md, "Benchmark").
 *
 *   sp-bench-fleet --cluster URLS [--prefix P] (--model N | --nodes A,B,...)
 *                  [--writes W] [--samples S]
 *
 * On nodes that have joined (--nodes: real slicectlds in cluster mode) or
 * on N model nodes run here (--model: the cluster applier's real etcd side,
 * a model in memory for the node behind it, tools/bench-fleet/model.c):
 *  1. anchor: W puts of a filter-sized value straight to etcd, one after
 *     another from one client: etcd's own write rate on this machine;
 *  2. a slice on every node, with an endpoint and a queue;
 *  3. latency: S filter writes one at a time, each timed until every node's
 *     status/NODE/SLICE has its revision: p50, p99, max;
 *  4. burst: W filter writes back to back: writes/s, and the time until the
 *     last is in force on every node.
 * Ratios are against the anchor measured in the same run.
 */
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slicepath/methods.h>

#include "cluster.h"
#include "common/clock.h"
#include "fleet.h"
#include "model.h"

#define MAX_NODES 1000
#define SLICE "benchfleet"

static bool verbose;

/* cluster.c logs through this (slicectld's is in its main.c). */
void
ctld_log(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	fputs("sp-bench-fleet: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("sp-bench-fleet: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

/* ------------------------------------------------------------- status watcher */

/* The revision each node's status of the slice has reached, from a watch of status/. */
static struct {
	struct fleet *f;
	char names[MAX_NODES][64];
	int64_t rev[MAX_NODES];
	unsigned int n;
	pthread_mutex_t lock;
	pthread_cond_t moved;
	atomic_bool stop;
	int64_t from;
} seen = {.lock = PTHREAD_MUTEX_INITIALIZER, .moved = PTHREAD_COND_INITIALIZER};

static int
on_status(void *arg, const struct etcd_event *ev, size_t n, int64_t revision)
{
	(void)arg;
	pthread_mutex_lock(&seen.lock);
	for (size_t i = 0; i < n; i++) {
		char node[64], name[64];
		json_t *st;
		const char *rest = strstr(ev[i].kv.key, "/status/");

		if (ev[i].deleted || rest == NULL ||
		    sscanf(rest, "/status/%63[^/]/%63s", node, name) != 2 || strcmp(name, SLICE) != 0)
			continue;
		st = json_loads(ev[i].kv.value, 0, NULL);
		for (unsigned int k = 0; k < seen.n; k++)
			if (strcmp(seen.names[k], node) == 0 && st != NULL &&
			    strcmp(json_string_value(json_object_get(st, "state")) ?: "", "in_force") == 0)
				seen.rev[k] = json_integer_value(json_object_get(st, "revision"));
		json_decref(st);
	}
	seen.from = revision + 1;
	pthread_cond_broadcast(&seen.moved);
	pthread_mutex_unlock(&seen.lock);
	return 0;
}

static bool
watch_stopped(void *arg)
{
	(void)arg;
	return atomic_load(&seen.stop);
}

static void *
status_watcher(void *arg)
{
	char key[FLEET_KEY_LEN];
	int64_t compacted;

	(void)arg;
	fleet_key(seen.f, key, "status/");
	while (!atomic_load(&seen.stop))
		if (etcd_watch(seen.f->etcd, key, seen.from, on_status, watch_stopped, NULL,
			       &compacted) != 0 && !atomic_load(&seen.stop))
			usleep(100000);
	return NULL;
}

/* Until every node's status has reached rev: the seconds waited, or -1 after 60 s. */
static double
wait_in_force(int64_t rev, double since)
{
	struct timespec until;
	bool all = false;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 60;
	pthread_mutex_lock(&seen.lock);
	while (!all) {
		all = true;
		for (unsigned int k = 0; k < seen.n; k++)
			all &= seen.rev[k] >= rev;
		if (!all && pthread_cond_timedwait(&seen.moved, &seen.lock, &until) != 0)
			break;
	}
	pthread_mutex_unlock(&seen.lock);
	return all ? sp_mono_seconds() - since : -1;
}

/* ------------------------------------------------------------- the phases */

static json_t *
call(struct fleet *f, const char *method, json_t *params)
{
	struct sp_rpc_error e = {0};
	json_t *r = fleet_call(f, method, params, &e);

	json_decref(params);
	if (r == NULL)
		die("%s: %s", method, e.message);
	return r;
}

static json_t *
a_filter(unsigned int pos)
{
	return json_pack("{s:s, s:i, s:s, s:s, s:{s:i, s:i, s:s}}", "slice", SLICE, "position", pos,
			 "key", "0a020000" "00000000" "00000000" "0000", "mask",
			 "ffff0000" "00000000" "00000000" "0000", "result", "endpoint", 0, "queue", 0,
			 "next_hop", "10.1.0.2:7001");
}

static int
by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
anchor(struct fleet *f, unsigned int writes)
{
	json_t *flt = a_filter(0);
	char key[FLEET_KEY_LEN], *value = json_dumps(flt, JSON_COMPACT);
	double t0 = sp_mono_seconds();

	json_decref(flt);
	for (unsigned int i = 0; i < writes; i++) {
		fleet_key(f, key, "anchor/%u", i);
		if (etcd_put(f->etcd, key, value, 0, NULL) < 0)
			die("etcd: %s", etcd_error(f->etcd));
	}
	t0 = sp_mono_seconds() - t0;
	fleet_key(f, key, "anchor/");
	etcd_delete(f->etcd, key, true);
	free(value);
	return writes / t0;
}

static int64_t
write_filter(struct fleet *f, unsigned int pos)
{
	json_t *r = call(f, SP_M_FILTER_INSERT, a_filter(pos));
	int64_t rev = json_integer_value(json_object_get(r, "revision"));

	json_decref(r);
	return rev;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"cluster", required_argument, NULL, 'c'}, {"prefix", required_argument, NULL, 'p'},
		{"model", required_argument, NULL, 'm'},   {"nodes", required_argument, NULL, 'n'},
		{"writes", required_argument, NULL, 'w'},  {"samples", required_argument, NULL, 's'},
		{"verbose", no_argument, NULL, 'v'},       {NULL, 0, NULL, 0},
	};
	struct etcd_opts eo = {0};
	const char *prefix = NULL, *names = NULL;
	char own_prefix[FLEET_PREFIX_LEN];
	unsigned int models = 0, writes = 2000, samples = 200;
	struct cluster *clusters[MAX_NODES];
	struct model *model[MAX_NODES];
	char err[600], *tok, *list;
	struct fleet *f;
	pthread_t watcher;
	double *lat, t0, burst, drain, puts;
	json_t *nodes;
	int opt;

	while ((opt = getopt_long(argc, argv, "c:p:m:n:w:s:v", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': snprintf(eo.urls, sizeof(eo.urls), "%s", optarg); break;
		case 'p': prefix = optarg; break;
		case 'm': models = (unsigned int)atoi(optarg); break;
		case 'n': names = optarg; break;
		case 'w': writes = (unsigned int)atoi(optarg); break;
		case 's': samples = (unsigned int)atoi(optarg); break;
		case 'v': verbose = true; break;
		default:
			die("usage: sp-bench-fleet --cluster URLS [--prefix P] (--model N | --nodes "
			    "A,B,...) [--writes W] [--samples S] [-v]");
		}
	}
	if (eo.urls[0] == '\0' || (models == 0) == (names == NULL) || models > MAX_NODES ||
	    writes == 0 || samples == 0)
		die("give --cluster, and either --model N (1 to %d) or --nodes A,B,...", MAX_NODES);
	if (models > 0) {
		/* A fleet of its own, removed at the end: never a real one's keys. */
		snprintf(own_prefix, sizeof(own_prefix), "%s-bench-%d",
			 prefix != NULL ? prefix : FLEET_DEFAULT_PREFIX, (int)getpid());
		prefix = own_prefix;
	}
	f = fleet_open(&eo, prefix, err, sizeof(err));
	if (f == NULL)
		die("%s", err);
	nodes = json_array();
	if (models > 0) {
		for (unsigned int i = 0; i < models; i++) {
			struct cluster_config cfg = {.etcd = eo, .prefix = prefix, .ttl = 10,
						     .apply = model_apply};

			model[i] = model_new();
			cfg.apply_ctx = model[i];
			snprintf(cfg.node, sizeof(cfg.node), "model%03u", i);
			clusters[i] = cluster_start(&cfg, err, sizeof(err));
			if (clusters[i] == NULL)
				die("%s", err);
			json_array_append_new(nodes, json_string(cfg.node));
		}
	} else {
		list = strdup(names);
		for (tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ","))
			json_array_append_new(nodes, json_string(tok));
		free(list);
	}
	seen.n = (unsigned int)json_array_size(nodes);
	for (unsigned int k = 0; k < seen.n; k++)
		snprintf(seen.names[k], sizeof(seen.names[k]), "%s",
			 json_string_value(json_array_get(nodes, k)));
	/* Every node live before the slice is placed. */
	for (t0 = sp_mono_seconds();; usleep(100000)) {
		json_t *nl = call(f, SP_M_NODE_LIST, json_object()), *o;
		unsigned int live = 0;
		size_t i;

		json_array_foreach(nl, i, o)
			live += json_is_true(json_object_get(o, "live"));
		json_decref(nl);
		if (live >= seen.n)
			break;
		if (sp_mono_seconds() - t0 > 60)
			die("only %u of %u nodes joined in 60 s", live, seen.n);
	}
	printf("nodes: %u %s, etcd %s, %u writes, %u samples\n", seen.n,
	       models > 0 ? "model nodes (the applier's etcd side, a model of the node)"
			  : "real slicectlds", eo.urls, writes, samples);

	puts = anchor(f, writes);
	printf("etcd put (anchor, one client, one at a time): %.0f writes/s\n", puts);

	json_decref(call(f, SP_M_SLICE_CREATE, json_pack("{s:s, s:s, s:O, s:i}", "name", SLICE,
						      "codeopt", "ipv4", "nodes", nodes,
						      "filter_quota", samples + writes)));
	json_decref(call(f, SP_M_ENDPOINT_RESERVE, json_pack("{s:s, s:s, s:i}", "slice", SLICE,
							  "port", "p0", "udp_port", 5999)));
	json_decref(call(f, SP_M_QUEUE_BIND, json_pack("{s:s, s:i, s:i}", "slice", SLICE, "queue",
						    0, "endpoint", 0)));
	seen.f = fleet_open(&eo, prefix, err, sizeof(err));
	{
		struct etcd_kv *kvs;
		char key[FLEET_KEY_LEN];
		long n;

		fleet_key(f, key, "status/");
		n = etcd_get(f->etcd, key, true, &kvs, &seen.from);
		etcd_kvs_free(kvs, n > 0 ? (size_t)n : 0);
		seen.from++;
	}
	pthread_create(&watcher, NULL, status_watcher, NULL);

	lat = calloc(samples, sizeof(*lat));
	for (unsigned int i = 0; i < samples; i++) {
		double t = sp_mono_seconds();

		lat[i] = wait_in_force(write_filter(f, i), t);
		if (lat[i] < 0)
			die("filter write %u was not in force on every node within 60 s", i);
	}
	qsort(lat, samples, sizeof(*lat), by_value);
	printf("write -> in force on all %u nodes: p50 %.1f ms, p99 %.1f ms, max %.1f ms (%u "
	       "writes, one at a time)\n", seen.n, lat[samples / 2] * 1e3,
	       lat[(size_t)(samples * 0.99)] * 1e3, lat[samples - 1] * 1e3, samples);

	t0 = sp_mono_seconds();
	{
		int64_t last = 0;

		for (unsigned int i = 0; i < writes; i++)
			last = write_filter(f, samples + i);
		burst = sp_mono_seconds() - t0;
		drain = wait_in_force(last, t0);
		if (drain < 0)
			die("the %u writes were not in force on every node within 60 s of the "
			    "last (slicectl --cluster slice status %s says why)", writes, SLICE);
	}
	printf("fleet filter writes: %.0f writes/s (%.2f of etcd's puts), each to %u nodes; all "
	       "%u in force everywhere %.2f s after the first\n", writes / burst,
	       writes / burst / puts, seen.n, writes, drain);

	json_decref(call(f, SP_M_SLICE_DELETE, json_pack("{s:s}", "slice", SLICE)));
	atomic_store(&seen.stop, true);
	pthread_join(watcher, NULL);
	for (unsigned int i = 0; i < models; i++) {
		cluster_stop(clusters[i]);
		model_free(model[i]);
	}
	if (models > 0) {
		char key[FLEET_KEY_LEN];

		fleet_key(f, key, "%s", ""); /* the model fleet's own prefix, all of it */
		etcd_delete(f->etcd, key, true);
	}
	fleet_close(seen.f);
	fleet_close(f);
	free(lat);
	json_decref(nodes);
	return 0;
}
