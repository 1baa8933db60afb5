/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Endpoints held by a process (endpoint.reserve's "until_exit", the socket
 * shim's): released, with the queues bound to them, once that process is
 * gone, however it ended (a signal it does not handle leaves no time to
 * release anything itself). Checked from the worker, and so also at
 * slicectld's start for what a previous run stored. An endpoint that filters
 * still send through (by it or its queues) is kept, said once, and released
 * when its owner has deleted the last of them: its frames keep their way
 * meanwhile, and nothing the owner wrote is undone behind their back.
 */
#include "holders.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "methods.h"
#include "store.h"

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

/* The filters of s that send through endpoint i or a queue bound to it, as "3 (positions 0, 7)"; 0 if none. */
static int
filters_through(struct ctld *c, const struct ctld_slice *s, unsigned int i, char *list,
		size_t len)
{
	int n = store_filters_naming(c->store, s->id, false, (uint16_t)i, list, len);

	for (unsigned int q = 0; n == 0 && q < SP_MAX_SLICE_QUEUES; q++)
		if (s->q[q].bound && s->q[q].endpoint == i)
			n = store_filters_naming(c->store, s->id, true, (uint16_t)q, list, len);
	return n;
}

/* Release endpoint i of s and every queue bound to it, unless filters still send through them. */
static void
release_held(struct ctld *c, struct ctld_slice *s, unsigned int i)
{
	const struct ctld_endpoint held = s->ep[i]; /* released below */
	struct sp_rpc_error e = {0};
	char positions[256];
	json_t *r;
	int n = filters_through(c, s, i, positions, sizeof(positions));

	if (n != 0) {
		if (!s->ep[i].kept_said)
			ctld_log("process %d holding endpoint %u of slice %s (%s port %u) is gone; "
				 "kept while filters send through it (%s%s): released once the "
				 "owner deletes them", (int)held.holder, i, s->name,
				 held.tcp ? "TCP" : "UDP", held.l4_port,
				 n < 0 ? "the store: " : "positions ",
				 n < 0 ? store_error(c->store) : positions);
		s->ep[i].kept_said = true;
		return;
	}

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
