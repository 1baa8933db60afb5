/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: slicectld's public API, ctld_handle(), on one request line
 * from one of three callers, in front of the in-memory node of fuzz_node.h,
 * which a thread serves on a Unix socket as slicepathd serves its
 * management socket. Input: the first byte picks the caller (root, uid 1000
 * or uid 1001, neither of them an operator), the rest is the line. The
 * database is a file in /tmp (WAL, synchronous normal); state carries over
 * between inputs like between clients' requests.
 *
 * Invariants: every answer is a JSON-RPC 2.0 response (fuzz_node.h); the
 * database holds exactly slicectld's model of slices, endpoints, queues and
 * schedulers (nothing acknowledged lost, nothing refused kept); a replay
 * then finds nothing to change in slicepathd (it holds what is stored,
 * filters included); slicepathd's own invariants (fuzz_node.h).
 */
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "fuzz_node.h"
#include "fuzz_pkt.h"
#include "mgmt/rpc_server.h"
#include "reconcile.h"
#include "store.h"

static const struct caller callers[] = {
	{.uid = 0, .operator = true},
	{.uid = 1000, .operator = false},
	{.uid = 1001, .operator = false},
};

static struct ctld ctld;
static struct model stored;
static char db_path[64], sock_path[64];
/* ctld_log while a replay is checked: the first line it logged. */
static bool watching;
static char replay_line[1024];

void
ctld_log(const char *fmt, ...)
{
	va_list ap;

	if (!watching || replay_line[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(replay_line, sizeof(replay_line), fmt, ap);
	va_end(ap);
	if (strncmp(replay_line, "replay done", 11) == 0)
		replay_line[0] = '\0';
}

/* slicepathd's management socket, served on its own thread. */
static void *
serve_node(void *arg)
{
	struct sp_rpc_server *srv = arg;
	struct pollfd fds[SP_RPC_MAX_CLIENTS + 1];
	struct sp_node *node = sp_fuzz_node();

	for (;;) {
		unsigned int n = sp_rpc_server_pollfds(srv, fds);

		if (poll(fds, n, -1) > 0)
			sp_rpc_server_serve(srv, node, fds, n);
	}
	return NULL;
}

static void
remove_files(void)
{
	char wal[80];

	unlink(sock_path);
	unlink(db_path);
	snprintf(wal, sizeof(wal), "%s-wal", db_path);
	unlink(wal);
	snprintf(wal, sizeof(wal), "%s-shm", db_path);
	unlink(wal);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sp_rpc_server *srv;
	pthread_t t;
	char err[600];

	(void)argc;
	(void)argv;
	/* A host slice's create_netns runs ip netns add: no namespace of the machine's is
	 * the fuzzer's to make, so it finds no ip (and the request fails as without one). */
	setenv("PATH", "/nonexistent", 1);
	sp_fuzz_node();
	snprintf(sock_path, sizeof(sock_path), "/tmp/fuzz_ctld.%d.sock", (int)getpid());
	snprintf(db_path, sizeof(db_path), "/tmp/fuzz_ctld.%d.db", (int)getpid());
	remove_files();
	atexit(remove_files);
	srv = sp_rpc_server_open(sock_path, err, sizeof(err));
	SP_TEST_CHECK(srv != NULL, "management socket: %s", err);
	SP_TEST_CHECK(pthread_create(&t, NULL, serve_node, srv) == 0, "no server thread");
	ctld.cfg.memory_budget = 1 << 20;
	ctld.cfg.buffer_budget = 100000; /* the node has no packet pool to count */
	SP_TEST_CHECK(store_open(&ctld.store, db_path, false, err, sizeof(err)) == 0,
		      "database: %s", err);
	SP_TEST_CHECK(store_load(ctld.store, &ctld.model) == 0, "empty database unreadable");
	ctld.backend = backend_create(sock_path);
	SP_TEST_CHECK(ctld.backend != NULL && backend_connect(ctld.backend),
		      "cannot reach the node: %s", backend_down(ctld.backend));
	return 0;
}

static bool
same_slice(const struct ctld_slice *a, const struct ctld_slice *b)
{
	if (a->used != b->used)
		return false;
	if (!a->used)
		return true;
	if (a->id != b->id || strcmp(a->name, b->name) != 0 || a->owner != b->owner ||
	    strcmp(a->codeopt, b->codeopt) != 0 || a->npe != b->npe || a->memory != b->memory ||
	    a->filter_quota != b->filter_quota || a->queue_quota != b->queue_quota ||
	    a->buffer_quota != b->buffer_quota || a->bandwidth != b->bandwidth ||
	    strcmp(a->netns, b->netns) != 0 || a->nat_ports != b->nat_ports ||
	    a->netns_made != b->netns_made)
		return false;
	for (unsigned int i = 0; i < SP_MAX_SLICE_ENDPOINTS; i++) {
		const struct ctld_endpoint *x = &a->ep[i], *y = &b->ep[i];

		if (x->used != y->used ||
		    (x->used && (strcmp(x->port, y->port) != 0 || x->l4_port != y->l4_port ||
				 x->tcp != y->tcp || x->bandwidth != y->bandwidth ||
				 x->inbound != y->inbound)))
			return false;
	}
	for (unsigned int q = 0; q < SP_MAX_SLICE_QUEUES; q++) {
		const struct ctld_queue *x = &a->q[q], *y = &b->q[q];

		if (x->bound != y->bound ||
		    (x->bound && (x->endpoint != y->endpoint || x->threshold != y->threshold ||
				  x->threshold_packets != y->threshold_packets ||
				  x->share != y->share)))
			return false;
	}
	return true;
}

/* The database holds what the model says, no more, no less. */
static void
check_stored(void)
{
	SP_TEST_CHECK(store_load(ctld.store, &stored) == 0, "database unreadable: %s",
		      store_error(ctld.store));
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		SP_TEST_CHECK(same_slice(&ctld.model.slices[i], &stored.slices[i]),
			      "slice %u in the database differs from slicectld's model", i);
	SP_TEST_CHECK(ctld.model.nb_scheds == stored.nb_scheds, "%u schedulers stored, %u in the "
		      "model", stored.nb_scheds, ctld.model.nb_scheds);
	for (unsigned int i = 0; i < ctld.model.nb_scheds; i++) {
		const struct ctld_sched *x = &ctld.model.scheds[i];
		bool found = false;

		for (unsigned int k = 0; k < stored.nb_scheds && !found; k++) {
			const struct ctld_sched *y = &stored.scheds[k];

			found = x->npe == y->npe && strcmp(x->port, y->port) == 0 &&
				x->rate == y->rate && x->overhead == y->overhead;
		}
		SP_TEST_CHECK(found, "NPE %u's scheduler on %s is not in the database as in the "
			      "model", x->npe, x->port);
	}
}

/* slicepathd holds what is stored: a replay logs no change. */
static void
check_in_force(void)
{
	replay_line[0] = '\0';
	watching = true;
	reconcile_all(&ctld);
	watching = false;
	SP_TEST_CHECK(replay_line[0] == '\0', "slicepathd did not hold the stored state: the "
		      "replay said \"%s\"", replay_line);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *answer;

	if (size == 0)
		return 0;
	answer = ctld_handle(&ctld, &callers[data[0] % 3], (const char *)data + 1, size - 1);
	if (answer != NULL) {
		sp_fuzz_check_answer(answer);
		free(answer);
	}
	check_stored();
	check_in_force();
	sp_fuzz_check_slices(sp_fuzz_node());
	return 0;
}
