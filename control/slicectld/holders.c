/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints held by a process (endpoint.reserve's "until_exit", the socket
 * shim's): released, with the queues bound to them, once that process is
 * gone, however it ended (a signal it does not handle leaves no time to
 * release anything itself). Checked from the worker, and so also at
 * slicectld's start for what a previous run stored.
 */
#include "holders.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "methods.h"

uint64_t
holder_start_time(pid_t pid)
{
	char path[64], line[1024], *close_paren;
	unsigned long long start = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	n = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[n] = '\0';
	/* The name in parentheses may hold anything: fields count from its last ')'. Start
	 * time is field 22; after ')' come field 3 (state) onwards. */
	close_paren = strrchr(line, ')');
	if (close_paren == NULL || sscanf(close_paren + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u "
					   "%*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
					   &start) != 1)
		return 0;
	return start;
}

/* method on {"slice": s, key: value}, as an operator: its result (NULL with e filled). */
static json_t *
as_operator(struct ctld *c, ctld_method method, const struct ctld_slice *s, const char *key,
	    unsigned int value, struct sp_rpc_error *e)
{
	static const struct caller root = {.uid = 0, .operator = true};
	json_t *p = json_pack("{s:s, s:i}", "slice", s->name, key, value), *r;

	r = method(c, &root, p, e);
	json_decref(p);
	return r;
}

/* Release endpoint i of s and every queue bound to it. */
static void
release_held(struct ctld *c, struct ctld_slice *s, unsigned int i)
{
	const struct ctld_endpoint held = s->ep[i]; /* released below */
	struct sp_rpc_error e = {0};
	json_t *r;

	for (unsigned int q = 0; q < SP_MAX_SLICE_QUEUES; q++) {
		if (!s->q[q].bound || s->q[q].endpoint != i)
			continue;
		r = as_operator(c, m_queue_unbind, s, "queue", q, &e);
		if (r == NULL)
			ctld_log("process %d holding endpoint %u of slice %s is gone; its queue %u "
				 "stays bound: %s", (int)s->ep[i].holder, i, s->name, q, e.message);
		json_decref(r);
	}
	r = as_operator(c, m_endpoint_release, s, "endpoint", i, &e);
	if (r != NULL)
		ctld_log("process %d holding endpoint %u of slice %s (%s port %u) is gone: released",
			 (int)held.holder, i, s->name, held.tcp ? "TCP" : "UDP", held.l4_port);
	else
		ctld_log("process %d holding endpoint %u of slice %s is gone; releasing it failed "
			 "(tried again later): %s", (int)s->ep[i].holder, i, s->name, e.message);
	json_decref(r);
}

void
holders_reap(struct ctld *c)
{
	for (unsigned int id = 1; id < SP_MAX_SLICES; id++) {
		struct ctld_slice *s = &c->model.slices[id];

		for (unsigned int i = 0; s->used && i < SP_MAX_SLICE_ENDPOINTS; i++)
			if (s->ep[i].used && s->ep[i].holder != 0 &&
			    holder_start_time(s->ep[i].holder) != s->ep[i].holder_start)
				release_held(c, s, i);
	}
}
