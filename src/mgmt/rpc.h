/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepathd's management API (docs/api.md): JSON-RPC 2.0 requests, one per
 * line, handled on the management thread (the lookup tables' and queue
 * managers' one writer). The envelope is common/jsonrpc.c, the methods and
 * their parameters slicepath/methods.h; rpc.c dispatches to the handlers
 * that rpc_*.c register, rpc_server.c is the socket.
 */
#ifndef SP_RPC_H
#define SP_RPC_H

#include <stdbool.h>
#include <stddef.h>

#include "../common/method_list.h"
#include "../node/node.h"

/*
 * A method: the result (a new reference) or NULL with e filled. params is
 * an object (an absent one is passed as an empty object).
 */
typedef json_t *(*sp_rpc_method)(struct sp_node *node, json_t *params, struct sp_rpc_error *e);

/*
 * fn answers method ID (slicepath/methods.h) on slicepathd's socket:
 * written after fn in the file that defines it, SP_RPC_METHOD(SLICE_CREATE,
 * slice_create), registers it before main(). A method the list does not
 * give slicepathd does not compile; two handlers of one do not link; one
 * the list gives it without a handler stops slicepathd at start
 * (sp_rpc_unhandled()).
 */
#define SP_RPC_METHOD(id, fn)                                                                      \
	_Static_assert(SP_METHOD_ON_##id & SP_ON_MGMT, "the method list does not give " #id       \
		       " to slicepathd");                                                          \
	void sp_rpc_method_##id(void) __attribute__((constructor));                                \
	void sp_rpc_method_##id(void)                                                              \
	{                                                                                          \
		sp_rpc_register(SP_METHOD_##id, fn);                                               \
	}
void sp_rpc_register(enum sp_method_id id, sp_rpc_method fn);
/* The first method the list gives slicepathd that has no handler, or NULL. */
const char *sp_rpc_unhandled(void);

/*
 * An answer pending until the filter writes it acknowledges show: a write
 * the lookups do not show yet (sp_lookup_*_nowait() said -EINPROGRESS: a
 * compile is to fold it in). The management thread never waits for a
 * compile: the answer, and its client's next requests, wait instead
 * (rpc_server.c), until sp_rpc_pending_ready() says.
 */
struct sp_rpc_pending {
	struct sp_lookup *table; /* NULL: nothing pending */
	uint16_t slice, npe;
	char name[SP_NAME_LEN];  /* the slice's, for an error */
	uint64_t ticket;
	uint32_t *pos;           /* the positions written (malloc'd) */
	uint32_t n;
	char *answer;            /* the response line for when they show */
};

/*
 * Handle one request line (without its newline). Returns the response
 * line (malloc'd, no newline) or NULL when nothing is to be sent (a
 * notification). If pending->table is set on return, the response is to
 * wait until the writes show (the caller keeps it in pending->answer).
 */
char *sp_rpc_handle(struct sp_node *node, const char *line, size_t len,
		    struct sp_rpc_pending *pending);

/* rpc_pending.c. Where the request being handled may keep its answer pending (rpc.c). */
void sp_rpc_pending_begin(struct sp_rpc_pending *d);
void sp_rpc_pending_end(void);
/*
 * After a filter method's sp_lookup_*_nowait() on slice s said rc (and
 * ticket): if -EINPROGRESS, keep its answer pending until the writes at pos show
 * (0, or -ENOMEM); else rc.
 */
int sp_rpc_answer_when_shown(const struct sp_node *node, const struct sp_slice *s, int rc,
			     uint64_t ticket, const uint32_t *pos, uint32_t n);
/*
 * Once the writes show (or their compile failed): true, *line the pending
 * answer (or an error answer; NULL for a notification), d let go. False
 * while they are to come.
 */
bool sp_rpc_pending_ready(struct sp_rpc_pending *d, char **line);
/* Let go of a pending answer (its client is gone): the writes still show with their compile. */
void sp_rpc_pending_free(struct sp_rpc_pending *d);

/* Node parameter readers: 0, or -1 with e filled (SP_RPC_INVALID_PARAMS or SP_RPC_NOT_FOUND). */
int sp_rpc_slice(const struct sp_node *node, json_t *params, struct sp_slice **s,
		 struct sp_rpc_error *e);
/* "port": a node port's name, as its index. */
int sp_rpc_port(const struct sp_node *node, json_t *params, uint16_t *port,
		struct sp_rpc_error *e);

/* A slice_ops.c error (negative errno, reason) as an RPC error (rpc_slice.c). */
json_t *sp_rpc_node_error(int rc, const char *why, struct sp_rpc_error *e);

/* A slice as slice.list shows it (rpc_slice.c). */
json_t *sp_rpc_slice_json(const struct sp_node *node, const struct sp_slice *s);
/* Endpoint index i of a slice, node->endpoints[slot]: what it reserves (rpc_state.c). */
json_t *sp_rpc_endpoint_json(const struct sp_node *node, uint16_t i, uint16_t slot);
/* An NPE's scheduler on a port, and a slice's bound queue (NULL if not), as state.dump
 * shows them (rpc_queue.c). */
json_t *sp_rpc_sched_json(const struct sp_node *node, uint16_t npe, uint16_t port);
json_t *sp_rpc_queue_json(const struct sp_node *node, const struct sp_slice *s, uint16_t q);
/* A slice's filters as filter.list shows them (rpc_filter.c). */
json_t *sp_rpc_filters_of(const struct sp_node *node, const struct sp_slice *s);

/*
 * A slice's last missed keys (npe/missed.h), newest first, as stats.missed
 * and telemetry show them (rpc_missed.c): how many were written into out.
 */
struct sp_missed_shown {
	char key[2 * SP_KEY_BYTES + 1]; /* hex, as filter.insert takes it */
	int endpoint;      /* slice-relative; -1 released since */
	const char *port;  /* its port's name; NULL likewise */
	bool injected;     /* its slow path injected it */
	uint64_t age_ms;   /* how long ago it missed */
};
unsigned int sp_missed_show(const struct sp_node *node, const struct sp_slice *s,
			    struct sp_missed_shown out[SP_MISSED_KEEP]);

#endif
