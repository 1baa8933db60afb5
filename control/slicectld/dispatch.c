/* SPDX-License-Identifier: BSD-3-Clause */
/* The dispatcher with who may call what, and the helpers the methods share. */
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "common/method_list.h"
#include "common/text.h"
#include "methods.h"
#include "reconcile.h"

/* Each method's handler and who may call it, registered by its file (CTLD_METHOD). */
static struct {
	ctld_method fn;
	enum ctld_who_may may;
} handlers[SP_METHOD_COUNT];

void
ctld_register(enum sp_method_id id, ctld_method fn, enum ctld_who_may who_may)
{
	handlers[id].fn = fn;
	handlers[id].may = who_may;
}

const char *
ctld_unhandled(void)
{
	for (int id = 0; id < SP_METHOD_COUNT; id++)
		if (sp_method_served(SP_ON_CTLD, id) && handlers[id].fn == NULL)
			return sp_method_name(id);
	return NULL;
}

struct request {
	struct ctld *ctld;
	const struct caller *who;
};

static json_t *
dispatch(void *ctx, const char *method, json_t *params, struct sp_rpc_error *e)
{
	const struct request *r = ctx;
	int id = sp_method_find(SP_ON_CTLD, method, e);

	if (id < 0)
		return NULL;
	if (handlers[id].may == CTLD_OPERATORS && !r->who->operator)
		return sp_rpc_fail(e, SP_RPC_DENIED, "%s is for the node's operators (root or the %s "
				   "group); uid %u is neither", method, r->ctld->cfg.operator_group,
				   (unsigned int)r->who->uid);
	if (sp_method_check_params(SP_ON_CTLD, id, params, e) < 0)
		return NULL;
	return handlers[id].fn(r->ctld, r->who, params, e);
}

char *
ctld_handle(struct ctld *c, const struct caller *who, const char *line, size_t len)
{
	struct request r = {.ctld = c, .who = who};

	return sp_rpc_handle_line(line, len, dispatch, &r);
}

struct ctld_slice *
model_find(struct model *m, const char *name)
{
	for (unsigned int i = 1; i < SP_MAX_SLICES; i++)
		if (m->slices[i].used && strcmp(m->slices[i].name, name) == 0)
			return &m->slices[i];
	return NULL;
}

uint64_t
model_reserved(const struct ctld_slice *s, bool inbound)
{
	uint64_t sum = 0;

	for (unsigned int i = 0; i < SP_MAX_SLICE_ENDPOINTS; i++)
		if (s->ep[i].used)
			sum += inbound ? s->ep[i].inbound : s->ep[i].bandwidth;
	return sum;
}

const char *
model_state_name(enum ctld_slice_state state)
{
	static const char *const names[] = {
		[CTLD_IN_FORCE] = "in_force",
		[CTLD_DEGRADED] = "degraded",
		[CTLD_ABSENT] = "absent",
	};

	return names[state];
}

bool
model_check_target(const struct ctld_slice *s, uint16_t endpoint, uint16_t queue,
		   const char *where, struct sp_rpc_error *e)
{
	const struct ctld_queue *q = queue < SP_MAX_SLICE_QUEUES ? &s->q[queue] : NULL;

	if (endpoint >= SP_MAX_SLICE_ENDPOINTS || !s->ep[endpoint].used) {
		sp_rpc_fail(e, SP_RPC_NOT_FOUND, "%sresult.endpoint %u: slice %s has no endpoint %u",
			    where, endpoint, s->name, endpoint);
		return false;
	}
	if (q == NULL || !q->bound) {
		sp_rpc_fail(e, SP_RPC_NOT_FOUND, "%sresult.queue %u: slice %s has no queue %u bound",
			    where, queue, s->name, queue);
		return false;
	}
	if (strcmp(s->ep[q->endpoint].port, s->ep[endpoint].port) != 0) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%sresult.queue %u feeds port %s but endpoint "
			    "%u is on %s; use a queue of that port", where, queue,
			    s->ep[q->endpoint].port, endpoint, s->ep[endpoint].port);
		return false;
	}
	return true;
}

json_t *
model_create_params(const struct ctld_slice *s)
{
	json_t *p = json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:i, s:I, s:I, s:b}", "name", s->name,
			      "codeopt", s->codeopt, "id", s->id, "npe", s->npe, "memory",
			      (json_int_t)s->memory, "filter_quota", (json_int_t)s->filter_quota,
			      "queue_quota", s->queue_quota, "buffer_quota",
			      (json_int_t)s->buffer_quota, "owner", (json_int_t)s->owner, "managed",
			      1);

	if (s->netns[0] != '\0') {
		json_object_set_new(p, "netns", json_string(s->netns));
		json_object_set_new(p, "nat_ports", json_integer(s->nat_ports));
		if (s->nat_first != 0)
			json_object_set_new(p, "nat_first", json_integer(s->nat_first));
	}
	return p;
}

json_t *
model_endpoint_params(const struct ctld_slice *s, unsigned int i)
{
	const struct ctld_endpoint *e = &s->ep[i];

	return json_pack("{s:s, s:s, s:i, s:I, s:I, s:i}", "slice", s->name, "port", e->port,
			 e->tcp ? "tcp_port" : "udp_port", e->l4_port, "bandwidth",
			 (json_int_t)e->bandwidth, "inbound", (json_int_t)e->inbound, "index", i);
}

/* The managed slice "slice" names (a name or an id), or NULL; false if it is neither. */
static bool
find_managed(struct ctld *c, json_t *params, struct ctld_slice **s, struct sp_rpc_error *e)
{
	const char *name;
	int64_t id;

	*s = NULL;
	if (sp_rpc_slice_ref(params, &name, &id, e) < 0)
		return false;
	if (name != NULL)
		*s = model_find(&c->model, name);
	else if (id > 0 && id < SP_MAX_SLICES && c->model.slices[id].used)
		*s = &c->model.slices[id];
	return true;
}

/*
 * "no slice is named ..." (where: said after it), with the name of the
 * caller's slices it was most likely meant for.
 */
static json_t *
not_found(const struct ctld *c, const struct caller *who, json_t *slice, const char *where,
	  struct sp_rpc_error *e)
{
	const char *names[SP_MAX_SLICES], *close;
	size_t n = 0;

	if (!json_is_string(slice))
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "no slice has id %" JSON_INTEGER_FORMAT
				   "%s", json_integer_value(slice), where);
	for (unsigned int i = 1; i < SP_MAX_SLICES; i++)
		if (c->model.slices[i].used &&
		    (who->operator || c->model.slices[i].owner == who->uid))
			names[n++] = c->model.slices[i].name;
	close = sp_closest(json_string_value(slice), names, n);
	return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "no slice is named \"%s\"%s%s%s%s",
			   json_string_value(slice), where, close != NULL ? "; did you mean \"" : "",
			   close != NULL ? close : "", close != NULL ? "\"?" : "");
}

/* " (name)" of uid, where this machine knows it; "" otherwise. */
static void
user_name(uid_t uid, char *out, size_t len)
{
	struct passwd pw, *found = NULL;
	char buf[1024];

	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &found) == 0 && found != NULL)
		snprintf(out, len, " (%.64s)", found->pw_name);
	else
		out[0] = '\0';
}

static bool
may_use(const struct caller *who, const struct ctld_slice *s, struct sp_rpc_error *e)
{
	char owner[80], caller[80];

	if (who->operator || who->uid == s->owner)
		return true;
	user_name(s->owner, owner, sizeof(owner));
	user_name(who->uid, caller, sizeof(caller));
	sp_rpc_fail(e, SP_RPC_DENIED, "slice %s is not yours: it belongs to uid %u%s and you are "
		    "uid %u%s", s->name, s->owner, owner, (unsigned int)who->uid, caller);
	return false;
}

struct ctld_slice *
ctld_slice_to_change(struct ctld *c, const struct caller *who, json_t *params,
		     struct sp_rpc_error *e)
{
	json_t *j = json_object_get(params, "slice");
	struct ctld_slice *s;

	if (!find_managed(c, params, &s, e))
		return NULL;
	if (s == NULL) {
		not_found(c, who, j, who->operator ? " among slicectld's slices (a slice of "
			  "slicepathd's config is changed in the config)" : "", e);
		return NULL;
	}
	return may_use(who, s, e) ? s : NULL;
}

json_t *
ctld_slice_to_read(struct ctld *c, const struct caller *who, json_t *params,
		   struct sp_rpc_error *e)
{
	json_t *j = json_object_get(params, "slice");
	struct ctld_slice *s;

	if (!find_managed(c, params, &s, e))
		return NULL;
	if (s != NULL)
		return may_use(who, s, e) ? json_string(s->name) : NULL;
	/* Operators see the slices of slicepathd's config too; slicepathd says if it has none. */
	return who->operator ? json_incref(j) : not_found(c, who, j, "", e);
}

json_t *
ctld_params_for(json_t *params, json_t *slice)
{
	json_t *p = json_deep_copy(params);

	json_object_set_new(p, "slice", slice);
	return p;
}

json_t *
ctld_read_slice(struct ctld *c, const struct caller *who, json_t *params, const char *method,
		struct sp_rpc_error *e)
{
	json_t *slice = ctld_slice_to_read(c, who, params, e);

	return slice == NULL ? NULL : backend_call(c->backend, method,
						   ctld_params_for(params, slice), e);
}

bool
txn_begin(struct ctld *c, struct sp_rpc_error *e)
{
	if (store_begin(c->store) == 0)
		return true;
	sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "slicectld's database cannot take a change (%s); "
		    "nothing was changed", store_error(c->store));
	return false;
}

bool
txn_commit(struct ctld *c, bool stored, uint16_t slice, struct sp_rpc_error *e)
{
	if (stored && store_commit(c->store) == 0)
		return true;
	sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "slicectld could not store the change (%s), so it "
		    "undid it", store_error(c->store));
	store_rollback(c->store);
	if (slice != 0)
		reconcile_slice(c, slice);
	else
		reconcile_schedulers(c);
	return false;
}

void
txn_abort(struct ctld *c)
{
	store_rollback(c->store);
}
