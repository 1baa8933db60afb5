/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker thread: takes requests in the order they come, one at a time,
 * and owns the model, the database and the connection to slicepathd. When
 * idle it watches that connection: when slicepathd comes (back), it replays
 * the stored state before it takes the next request.
 */
#ifndef CTLD_WORKER_H
#define CTLD_WORKER_H

#include <stddef.h>

#include "ctld.h"

struct job {
	struct job *next;
	void *client;      /* the server's */
	struct caller who;
	char *line;        /* the request, without its newline (malloc'd) */
	size_t len;
	char *reply;       /* the answer line, set by the worker (NULL: none) */
	/* Set for jobs that are not a client's line (the metrics endpoint): called with
	 * the answer on the event loop's thread, instead of sending it to client. */
	void (*complete)(struct job *j);
	void *complete_arg;
};

struct worker;

/* Start the worker; finished() (from the worker thread) says jobs are done. */
struct worker *worker_start(struct ctld *c, void (*finished)(void *arg), void *arg);
void worker_submit(struct worker *w, struct job *j);
/* The next finished job, or NULL. */
struct job *worker_take_done(struct worker *w);
/* Stop after the job at hand; jobs not taken are dropped. */
void worker_stop(struct worker *w);

#endif
