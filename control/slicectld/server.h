/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicectld's public socket (libevent, the main thread): anyone may
 * connect (mode 0666); who they are comes from SO_PEERCRED and
 * SO_PEERGROUPS. Lines go to the worker one request per client at a time,
 * so a client's answers come in order; a client that sends half a line and
 * waits, sends more than SP_RPC_MAX_LINE, or does not read its answers
 * holds only its own buffers. Connections are a shared resource too: a user
 * who is not an operator holds at most per_user of them and never the last
 * operator_slots, and a connection with no request for idle_s seconds is
 * told so (SP_RPC_CLOSING) and closed.
 */
#ifndef CTLD_SERVER_H
#define CTLD_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <event2/event.h>

#include "worker.h"

struct server;

/*
 * Listen on path. Members of operator_gid (has_gid) are operators like
 * root. NULL with the reason in err.
 */
struct server *server_open(struct event_base *base, const char *path,
			   const struct server_limits *limits, bool has_gid, gid_t operator_gid,
			   char *err, size_t errlen);
/* Hand requests to w (before the loop runs). */
void server_set_worker(struct server *srv, struct worker *w);
/* For the worker thread: finished jobs are waiting (worker_start's callback). */
void server_jobs_done(void *srv);
/* Close every connection and remove the socket file; the worker is stopped first. */
void server_close(struct server *srv);

#endif
