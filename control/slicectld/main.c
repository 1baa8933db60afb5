/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicectld: the control daemon (docs/api.md, "slicectld"; man slicectld).
 *
 *   slicectld [-s SOCKET] [-b SLICEPATHD_SOCKET] [-d DATABASE] [-g GROUP]
 *             [--memory BYTES] [--buffers N] [--sync full|normal] [--max-clients N]
 *             [--max-clients-per-user N] [--operator-slots N] [--idle-timeout SECONDS]
 *             [--cluster etcd://HOST:PORT,... [--node NAME] [--ttl SECONDS] [--prefix P]
 *              [--cacert FILE] [--cert FILE] [--key FILE] [--user USER:PASSWORD]]
 *
 * Exit status: 0 after SIGTERM or SIGINT, 1 for bad arguments, 2 when the
 * database or the socket cannot be opened.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "backend.h"
#include "cluster.h"
#include "fleet.h"
#include "http.h"
#include "common/limits.h"
#include "methods.h"
#include "common/notify.h"
#include "common/text.h"
#include "server.h"
#include "store.h"

enum { EXIT_USAGE = 1, EXIT_RUNTIME = 2 };

#define DEFAULT_DATABASE "/var/lib/slicepath/slicectld.db"
#define DEFAULT_GROUP "slicepath"
#define DEFAULT_MEMORY_BUDGET (256u << 20)
#define DEFAULT_MAX_CLIENTS 4096
#define DEFAULT_PER_USER 64
#define DEFAULT_OPERATOR_SLOTS 64
#define DEFAULT_IDLE_S 300
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define DEFAULT_METRICS "127.0.0.1:9464" /* Prometheus' port registry has slicepath none */
#define FDS_BESIDE_CLIENTS 64 /* the database, the listener, slicepathd, logs */

void
ctld_log(const char *fmt, ...)
{
	va_list ap;

	fputs("slicectld: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: slicectld [OPTIONS]\n"
		   "  -s, --socket PATH          the public socket (default %s)\n"
		   "  -b, --slicepathd PATH      slicepathd's management socket (default %s)\n"
		   "  -d, --database PATH        the desired state (default %s)\n"
		   "  -g, --group NAME           members are operators, like root (default %s)\n"
		   "      --memory BYTES         slice memory all slices may hold (default 256M)\n"
		   "      --buffers N            packet buffers the slices' queues may hold "
		   "(default: slicepathd's\n"
		   "                             beyond its receive rings)\n"
		   "      --sync full|normal     full: each change is on disk when acknowledged "
		   "(default);\n"
		   "                             normal: it survives a crash of slicectld, not "
		   "of the machine\n"
		   "      --max-clients N        connections served at once (default %d)\n"
		   "      --max-clients-per-user N\n"
		   "                             of them, one user's who is not an operator "
		   "(default %d)\n"
		   "      --operator-slots N     of them, those only operators may take (default "
		   "%d,\n"
		   "                             at most a quarter of --max-clients)\n"
		   "      --idle-timeout SECONDS close a connection with no request for that long "
		   "(default %d;\n"
		   "                             0: never)\n"
		   "      --metrics ADDR:PORT    serve Prometheus metrics at http://ADDR:PORT/metrics "
		   "(default\n"
		   "                             %s; port 0 picks one; off: none)\n"
		   "      --cluster URLS         join a fleet: its registry in etcd (etcd://HOST:PORT,"
		   "...;\n"
		   "                             etcds:// for TLS) says this node's slices\n"
		   "      --node NAME            this node's name in the fleet (default: the host "
		   "name)\n"
		   "      --ttl SECONDS          a dead node leaves the live set after that (default "
		   "%d)\n"
		   "      --prefix P             the registry's keys' prefix (default "
		   FLEET_DEFAULT_PREFIX ")\n"
		   "      --cacert FILE, --cert FILE, --key FILE, --user USER:PASSWORD\n"
		   "                             TLS files and etcd's login\n"
		   "  -h, --help                 this text\n"
		   "  -V, --version              print the version\n",
		SP_CTL_DEFAULT_SOCKET, SP_DEFAULT_MGMT_SOCKET, DEFAULT_DATABASE, DEFAULT_GROUP,
		DEFAULT_MAX_CLIENTS, DEFAULT_PER_USER, DEFAULT_OPERATOR_SLOTS, DEFAULT_IDLE_S,
		DEFAULT_METRICS, CLUSTER_DEFAULT_TTL);
}

/* "256M", "1G", "4096": sizes in bytes with the rate parser's suffixes (powers of ten). */
static int
parse_count(const char *opt, const char *s, uint64_t *v)
{
	if (sp_parse_rate(s, v) == 0)
		return 0;
	fprintf(stderr, "slicectld: %s: \"%s\" is not a number (suffixes k, M, G allowed)\n", opt,
		s);
	return -1;
}

static int
copy_path(const char *opt, const char *s, char *dst, size_t len)
{
	if (strlen(s) >= len || s[0] != '/') {
		fprintf(stderr, "slicectld: %s: \"%s\" must be an absolute path of fewer than %zu "
				"characters\n", opt, s, len);
		return -1;
	}
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

/* A count option from min to max. */
static int
parse_limit(const char *opt, const char *s, uint64_t min, uint64_t max, unsigned int *v)
{
	uint64_t got;

	if (parse_count(opt, s, &got) < 0)
		return -1;
	if (got < min || got > max) {
		fprintf(stderr, "slicectld: %s: %" PRIu64 " to %" PRIu64 "\n", opt, min, max);
		return -1;
	}
	*v = (unsigned int)got;
	return 0;
}

/* --metrics: off, or an address that parses (whether it can be bound is seen at start). */
static int
metrics_checked(const char *addr, size_t len)
{
	char host[METRICS_HOST_LEN], port[METRICS_PORT_LEN], err[160];

	if (strlen(addr) >= len)
		snprintf(err, sizeof(err), "--metrics: an address of fewer than %zu characters", len);
	else if (strcmp(addr, "off") == 0 || metrics_addr_parse(addr, host, port, err,
								sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "slicectld: %s\n", err);
	return -1;
}

static int
parse_args(int argc, char **argv, struct ctld_config *cfg, struct cluster_config *cl)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},
		{"slicepathd", required_argument, NULL, 'b'},
		{"database", required_argument, NULL, 'd'},
		{"group", required_argument, NULL, 'g'},
		{"memory", required_argument, NULL, 'm'},
		{"buffers", required_argument, NULL, 'u'},
		{"sync", required_argument, NULL, 'y'},
		{"max-clients", required_argument, NULL, 'c'},
		{"max-clients-per-user", required_argument, NULL, 'U'},
		{"operator-slots", required_argument, NULL, 'O'},
		{"idle-timeout", required_argument, NULL, 'I'},
		{"metrics", required_argument, NULL, 'M'},
		{"cluster", required_argument, NULL, 'C'},
		{"node", required_argument, NULL, 'N'},
		{"ttl", required_argument, NULL, 'T'},
		{"prefix", required_argument, NULL, 'P'},
		{"cacert", required_argument, NULL, 'A'},
		{"cert", required_argument, NULL, 'E'},
		{"key", required_argument, NULL, 'K'},
		{"user", required_argument, NULL, 'W'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "s:b:d:g:hV", opts, NULL)) != -1) {
		int rc = 0;

		switch (opt) {
		case 's': rc = copy_path("--socket", optarg, cfg->socket, sizeof(cfg->socket)); break;
		case 'b':
			rc = copy_path("--slicepathd", optarg, cfg->backend, sizeof(cfg->backend));
			break;
		case 'd':
			rc = copy_path("--database", optarg, cfg->database, sizeof(cfg->database));
			break;
		case 'g': snprintf(cfg->operator_group, sizeof(cfg->operator_group), "%s", optarg);
			break;
		case 'm': rc = parse_count("--memory", optarg, &cfg->memory_budget); break;
		case 'u': rc = parse_count("--buffers", optarg, &cfg->buffer_budget); break;
		case 'y':
			if (strcmp(optarg, "full") != 0 && strcmp(optarg, "normal") != 0) {
				fprintf(stderr, "slicectld: --sync: \"%s\": write full or normal\n",
					optarg);
				return -1;
			}
			cfg->sync_full = strcmp(optarg, "full") == 0;
			break;
		case 'c':
			rc = parse_limit("--max-clients", optarg, 1, 1000000,
					 &cfg->clients.max_clients);
			break;
		case 'U':
			rc = parse_limit("--max-clients-per-user", optarg, 1, 1000000,
					 &cfg->clients.per_user);
			break;
		case 'O':
			rc = parse_limit("--operator-slots", optarg, 0, 1000000,
					 &cfg->clients.operator_slots);
			break;
		case 'I':
			rc = parse_limit("--idle-timeout", optarg, 0, 86400 * 365, &cfg->clients.idle_s);
			break;
		case 'M':
			rc = metrics_checked(optarg, sizeof(cfg->metrics));
			if (rc == 0)
				memcpy(cfg->metrics, optarg, strlen(optarg) + 1);
			break;
		case 'C':
			if (strlen(optarg) >= sizeof(cl->etcd.urls)) {
				fprintf(stderr, "slicectld: --cluster: at most %zu characters\n",
					sizeof(cl->etcd.urls) - 1);
				return -1;
			}
			memcpy(cl->etcd.urls, optarg, strlen(optarg) + 1);
			break;
		case 'N':
			if (*optarg == '\0' || strlen(optarg) >= sizeof(cl->node) ||
			    strchr(optarg, '/') != NULL) {
				fprintf(stderr, "slicectld: --node: 1 to %zu characters, no '/'\n",
					sizeof(cl->node) - 1);
				return -1;
			}
			memcpy(cl->node, optarg, strlen(optarg) + 1);
			break;
		case 'T': rc = parse_limit("--ttl", optarg, 2, 3600, &cl->ttl); break;
		case 'P': cl->prefix = optarg; break;
		case 'A': cl->etcd.cacert = optarg; break;
		case 'E': cl->etcd.cert = optarg; break;
		case 'K': cl->etcd.key = optarg; break;
		case 'W': fleet_split_user(optarg, &cl->etcd); break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("slicectld %s\n", SP_VERSION); exit(0);
		default: usage(stderr); return -1;
		}
		if (rc < 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "slicectld: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return -1;
	}
	/* Not given: a quarter of the slots at most. */
	if (cfg->clients.operator_slots == UINT_MAX)
		cfg->clients.operator_slots = MIN(DEFAULT_OPERATOR_SLOTS,
						  cfg->clients.max_clients / 4);
	if (cfg->clients.operator_slots >= cfg->clients.max_clients) {
		fprintf(stderr, "slicectld: --operator-slots %u leaves no connection of the %u "
				"(--max-clients) to other users\n", cfg->clients.operator_slots,
			cfg->clients.max_clients);
		return -1;
	}
	return 0;
}

/* Room for max_clients connections: the soft limit of open files up to the hard one. */
static void
raise_file_limit(struct ctld_config *cfg)
{
	struct rlimit r;
	struct server_limits *l = &cfg->clients;
	rlim_t want = (rlim_t)l->max_clients + FDS_BESIDE_CLIENTS;

	if (getrlimit(RLIMIT_NOFILE, &r) < 0)
		return;
	if (r.rlim_cur < want) {
		r.rlim_cur = r.rlim_max == RLIM_INFINITY || r.rlim_max > want ? want : r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
	if (r.rlim_cur < want) {
		l->max_clients = r.rlim_cur > FDS_BESIDE_CLIENTS * 2
					 ? (unsigned int)(r.rlim_cur - FDS_BESIDE_CLIENTS) : 16;
		/* Fewer slots in all: the operators keep their share of them. */
		l->operator_slots = l->operator_slots * l->max_clients / (unsigned int)(want -
				    FDS_BESIDE_CLIENTS);
		ctld_log("the open files limit is %llu: serving at most %u connections, %u of them "
			 "for operators only", (unsigned long long)r.rlim_cur, l->max_clients,
			 l->operator_slots);
	}
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
	(void)what;
	ctld_log("%s: stopping", strsignal(sig));
	event_base_loopbreak(arg);
}

static int
serve(struct ctld *c, const struct cluster_config *cl)
{
	struct cluster *cluster = NULL;
	int rc = 0;
	struct event_base *base;
	struct event *sigterm, *sigint;
	struct metrics_http *metrics = NULL;
	struct server *srv;
	struct worker *w;
	struct group *g = getgrnam(c->cfg.operator_group);
	char err[600];

	evthread_use_pthreads();
	base = event_base_new();
	if (base == NULL) {
		ctld_log("cannot start the event loop");
		return EXIT_RUNTIME;
	}
	if (g == NULL)
		ctld_log("no group %s: only root is an operator", c->cfg.operator_group);
	srv = server_open(base, c->cfg.socket, &c->cfg.clients, g != NULL,
			  g != NULL ? g->gr_gid : 0, err, sizeof(err));
	if (srv == NULL) {
		ctld_log("%s", err);
		event_base_free(base);
		return EXIT_RUNTIME;
	}
	w = worker_start(c, server_jobs_done, srv);
	if (w == NULL) {
		ctld_log("cannot start the worker thread");
		server_close(srv);
		event_base_free(base);
		return EXIT_RUNTIME;
	}
	server_set_worker(srv, w);
	if (strcmp(c->cfg.metrics, "off") != 0) {
		char bound[80];

		metrics = metrics_http_open(base, c->cfg.metrics, w, bound, sizeof(bound), err,
					    sizeof(err));
		if (metrics == NULL) {
			ctld_log("%s", err);
			worker_stop(w);
			server_close(srv);
			event_base_free(base);
			return EXIT_RUNTIME;
		}
		ctld_log("metrics at http://%s/metrics", bound);
	}
	signal(SIGPIPE, SIG_IGN);
	sigterm = evsignal_new(base, SIGTERM, on_signal, base);
	sigint = evsignal_new(base, SIGINT, on_signal, base);
	event_add(sigterm, NULL);
	event_add(sigint, NULL);
	ctld_log("serving %s (slicepathd %s, database %s)", c->cfg.socket, c->cfg.backend,
		 c->cfg.database);
	if (cl->etcd.urls[0] != '\0') {
		cluster = cluster_start(cl, err, sizeof(err));
		if (cluster == NULL) {
			ctld_log("--cluster: %s", err);
			rc = EXIT_USAGE;
		} else {
			ctld_log("cluster: node %s of the fleet at %s", cl->node, cl->etcd.urls);
		}
	}
	if (rc == 0) {
		sp_notify("READY=1\nSTATUS=serving");
		event_base_dispatch(base);
		sp_notify("STOPPING=1");
		cluster_stop(cluster);
	}
	metrics_http_close(metrics);
	worker_stop(w);
	server_close(srv);
	event_free(sigterm);
	event_free(sigint);
	event_base_free(base);
	return rc;
}

int
main(int argc, char **argv)
{
	static struct ctld c = {
		.cfg = {
			.socket = SP_CTL_DEFAULT_SOCKET,
			.backend = SP_DEFAULT_MGMT_SOCKET,
			.database = DEFAULT_DATABASE,
			.operator_group = DEFAULT_GROUP,
			.memory_budget = DEFAULT_MEMORY_BUDGET,
			.sync_full = true,
			.clients = {
				.max_clients = DEFAULT_MAX_CLIENTS,
				.per_user = DEFAULT_PER_USER,
				.operator_slots = UINT_MAX, /* DEFAULT_OPERATOR_SLOTS or fewer */
				.idle_s = DEFAULT_IDLE_S,
			},
			.metrics = DEFAULT_METRICS,
		},
	};
	char err[600];
	int rc;

	static struct cluster_config cl = {.ttl = CLUSTER_DEFAULT_TTL};

	if (parse_args(argc, argv, &c.cfg, &cl) < 0)
		return EXIT_USAGE;
	if (cl.node[0] == '\0' && gethostname(cl.node, sizeof(cl.node) - 1) < 0)
		snprintf(cl.node, sizeof(cl.node), "node");
	memcpy(cl.socket, c.cfg.socket, sizeof(cl.socket));
	raise_file_limit(&c.cfg);
	if (ctld_unhandled() != NULL) { /* a build without one of the list's m_*.c */
		ctld_log("the public socket has no handler for %s", ctld_unhandled());
		return EXIT_RUNTIME;
	}
	if (store_open(&c.store, c.cfg.database, c.cfg.sync_full, err, sizeof(err)) < 0) {
		ctld_log("%s", err);
		return EXIT_RUNTIME;
	}
	if (store_load(c.store, &c.model) < 0) {
		ctld_log("cannot read the database %s: %s", c.cfg.database, store_error(c.store));
		store_close(c.store);
		return EXIT_RUNTIME;
	}
	c.backend = backend_create(c.cfg.backend);
	if (c.backend == NULL) {
		store_close(c.store);
		return EXIT_RUNTIME;
	}
	rc = serve(&c, &cl);
	backend_free(c.backend);
	store_close(c.store);
	ctld_log("stopped");
	return rc;
}
