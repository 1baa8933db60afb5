/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicectld's methods (docs/api.md, "slicectld"): m_node.c, m_slice.c,
 * m_endpoint.c, m_filter.c, m_codeopt.c, metrics.c, each registering its
 * handlers (CTLD_METHOD); the dispatcher and their common helpers in
 * dispatch.c.
 *
 * A method that changes the node follows one pattern: check who asks and
 * what the quotas allow, txn_begin(), apply the change to slicepathd (which
 * checks the rest), store what slicepathd answered, txn_commit(), update
 * the model, answer. Nothing is acknowledged before it is stored; a change
 * slicepathd refused leaves nothing stored. What a replay must be able to
 * write again (a filter's endpoint and queue, a queue's endpoint) is checked
 * against the stored model first, not only against slicepathd's live state:
 * the two may differ (a change on slicepathd's own socket), and only the
 * model is replayed.
 */
#ifndef CTLD_METHODS_H
#define CTLD_METHODS_H

#include "backend.h"
#include "ctld.h"
#include "store.h"

typedef json_t *(*ctld_method)(struct ctld *c, const struct caller *who, json_t *params,
			       struct sp_rpc_error *e);

/* Who may call a method: anyone (a method on a slice checks its owner itself), operators. */
enum ctld_who_may { CTLD_ANYONE, CTLD_OPERATORS };

/*
 * fn answers method ID (slicepath/methods.h) on slicectld's socket, for
 * who_may: written after fn in the file that defines it,
 * CTLD_METHOD(SLICE_CREATE, m_slice_create, CTLD_OPERATORS), registers it
 * before main(). A method the list does not give slicectld does not
 * compile; two handlers of one do not link; one the list gives it without
 * a handler stops slicectld at start (ctld_unhandled()).
 */
#define CTLD_METHOD(id, fn, who_may)                                                               \
	_Static_assert(SP_METHOD_ON_##id & SP_ON_CTLD, "the method list does not give " #id       \
		       " to slicectld");                                                           \
	void ctld_method_##id(void) __attribute__((constructor));                                  \
	void ctld_method_##id(void)                                                                \
	{                                                                                          \
		ctld_register(SP_METHOD_##id, fn, who_may);                                        \
	}
void ctld_register(enum sp_method_id id, ctld_method fn, enum ctld_who_may who_may);
/* The first method the list gives slicectld that has no handler, or NULL. */
const char *ctld_unhandled(void);

/*
 * The managed slice "slice" (a name or id) names, if who may change it (its
 * owner or an operator); NULL with e filled otherwise.
 */
struct ctld_slice *ctld_slice_to_change(struct ctld *c, const struct caller *who, json_t *params,
					struct sp_rpc_error *e);
/*
 * The name to ask slicepathd about for reading: a managed slice of who's
 * (any, for an operator), or for an operator any slice slicepathd has.
 */
json_t *ctld_slice_to_read(struct ctld *c, const struct caller *who, json_t *params,
			   struct sp_rpc_error *e);
/* A copy of params for slicepathd, with "slice" set to name (a new reference, stolen). */
json_t *ctld_params_for(json_t *params, json_t *slice);
/* A read of a slice's (its owner's, operators'), passed on to slicepathd as method. */
json_t *ctld_read_slice(struct ctld *c, const struct caller *who, json_t *params,
			const char *method, struct sp_rpc_error *e);

/*
 * A filter result's endpoint and queue as the model has them: the endpoint
 * reserved, the queue bound and feeding the endpoint's port. where prefixes
 * the message ("filters[3]."). false with e filled.
 */
bool model_check_target(const struct ctld_slice *s, uint16_t endpoint, uint16_t queue,
			const char *where, struct sp_rpc_error *e);

/* A transaction around a change: false with e filled if the database refuses. */
bool txn_begin(struct ctld *c, struct sp_rpc_error *e);
/*
 * Commit what was stored (stored: the writes succeeded). If they failed or
 * the commit does, roll back and make slicepathd's copy of slice (0: the
 * schedulers) the stored one again; false with e filled.
 */
bool txn_commit(struct ctld *c, bool stored, uint16_t slice, struct sp_rpc_error *e);
/* Roll back after slicepathd refused the change: nothing was applied. */
void txn_abort(struct ctld *c);

/*
 * The stored slices who may see, counted by state ("in_force", "degraded",
 * "absent"), those not in force with why ("not_in_force"), and how many
 * slices slicepathd was found holding other than stored ("divergences").
 */
json_t *model_replay_status(const struct ctld *c, const struct caller *who);
/* endpoint.release and queue.unbind, which holders.c calls too. */
json_t *m_endpoint_release(struct ctld *c, const struct caller *who, json_t *params,
			   struct sp_rpc_error *e);
json_t *m_queue_unbind(struct ctld *c, const struct caller *who, json_t *params,
		       struct sp_rpc_error *e);

#endif
