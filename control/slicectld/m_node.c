/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * whoami, iface.list, replay.status, codeopt.list, sched.set, state.dump,
 * stats.get and stats.missed: the node as a whole, and a slice's counters.
 */
#include <string.h>

#include "methods.h"

/* {} -> {"uid", "operator", "slices": [the caller's slices]} */
static json_t *
m_whoami(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	json_t *mine = json_array();

	(void)params;
	(void)e;
	for (unsigned int i = 1; i < SP_MAX_SLICES; i++)
		if (c->model.slices[i].used && c->model.slices[i].owner == who->uid)
			json_array_append_new(mine, json_string(c->model.slices[i].name));
	return json_pack("{s:I, s:b, s:o}", "uid", (json_int_t)who->uid, "operator",
			 who->operator, "slices", mine);
}
CTLD_METHOD(WHOAMI, m_whoami, CTLD_ANYONE)

json_t *
model_replay_status(const struct ctld *c, const struct caller *who)
{
	json_t *r = json_pack("{s:I}", "divergences", (json_int_t)c->divergences);
	json_t *list = json_array();
	unsigned int count[CTLD_ABSENT + 1] = {0};

	for (unsigned int i = 1; i < SP_MAX_SLICES; i++) {
		const struct ctld_slice *s = &c->model.slices[i];

		if (!s->used || !(who->operator || s->owner == who->uid))
			continue;
		count[s->state]++;
		if (s->state != CTLD_IN_FORCE)
			json_array_append_new(list, json_pack("{s:s, s:s, s:s}", "slice", s->name,
							      "state", model_state_name(s->state),
							      "trouble", s->trouble));
	}
	for (unsigned int k = CTLD_IN_FORCE; k <= CTLD_ABSENT; k++)
		json_object_set_new(r, model_state_name(k), json_integer(count[k]));
	json_object_set_new(r, "not_in_force", list);
	return r;
}

/* {} -> {"codeopts": [the code options a slice may name]}: slicepathd's node.info has them. */
static json_t *
m_codeopt_list(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	json_t *info = backend_call(c->backend, SP_M_NODE_INFO, NULL, e), *r;

	(void)who;
	(void)params;
	if (info == NULL)
		return NULL;
	r = json_pack("{s:O}", "codeopts", json_object_get(info, "codeopts"));
	json_decref(info);
	return r;
}
CTLD_METHOD(CODEOPT_LIST, m_codeopt_list, CTLD_ANYONE)

/* {} -> model_replay_status() for the caller's slices (an operator's: all). */
static json_t *
m_replay_status(struct ctld *c, const struct caller *who, json_t *params,
		struct sp_rpc_error *e)
{
	(void)params;
	(void)e;
	return model_replay_status(c, who);
}
CTLD_METHOD(REPLAY_STATUS, m_replay_status, CTLD_ANYONE)

/* What the NPEs' slices reserve on the port, from node.info's schedulers. */
static uint64_t
reserved_on(json_t *info, const char *port)
{
	json_t *sched;
	uint64_t sum = 0;
	size_t i;

	json_array_foreach(json_object_get(info, "schedulers"), i, sched)
		if (strcmp(json_string_value(json_object_get(sched, "port")), port) == 0)
			sum += (uint64_t)json_integer_value(json_object_get(sched, "reserved"));
	return sum;
}

/*
 * {} -> [{"name", "index", "ipv4", "ipv6", "mac", "rate", "reserved", "available",
 * "inbound_reserved", "inbound_available", "rx_queues", "tx_queues",
 * "steering", "steering_note", "steering_rules"}]: SPP's get_ifaces, what
 * an endpoint may still reserve on each interface, outbound and inbound,
 * and how the interface's frames reach the lcores (slicectl node).
 */
/* node.info's keys of a port that iface.list passes on as they are. */
static const char *const AS_REPORTED[] = {
	"index", "ipv4", "ipv6", "mac", "rx_queues", "tx_queues", "steering", "steering_note",
	"steering_rules", NULL,
};

static json_t *
m_iface_list(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	json_t *info = backend_call(c->backend, SP_M_NODE_INFO, NULL, e), *list, *port;
	size_t i;

	(void)who;
	(void)params;
	if (info == NULL)
		return NULL;
	list = json_array();
	json_array_foreach(json_object_get(info, "ports"), i, port) {
		const char *name = json_string_value(json_object_get(port, "name"));
		uint64_t rate = (uint64_t)json_integer_value(json_object_get(port, "rate"));
		uint64_t reserved = reserved_on(info, name);
		uint64_t in = (uint64_t)json_integer_value(json_object_get(port, "inbound_reserved"));

		json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "name", name, "rate",
				      (json_int_t)rate, "reserved", (json_int_t)reserved,
				      "available", (json_int_t)(rate > reserved ? rate - reserved : 0),
				      "inbound_reserved", (json_int_t)in, "inbound_available",
				      (json_int_t)(rate > in ? rate - in : 0));

		for (const char *const *k = AS_REPORTED; *k != NULL; k++)
			json_object_set(o, *k, json_object_get(port, *k));
		json_array_append_new(list, o);
	}
	json_decref(info);
	return list;
}
CTLD_METHOD(IFACE_LIST, m_iface_list, CTLD_ANYONE)

/* Remember a scheduler's rate in the model, replacing what it had. */
static void
model_put_sched(struct model *m, const struct ctld_sched *s)
{
	unsigned int i;

	for (i = 0; i < m->nb_scheds; i++)
		if (m->scheds[i].npe == s->npe && strcmp(m->scheds[i].port, s->port) == 0)
			break;
	if (i < SP_MAX_SCHEDS) {
		m->scheds[i] = *s;
		if (i == m->nb_scheds)
			m->nb_scheds++;
	}
}

/* {"npe", "port", "rate", ["overhead"]}: an NPE's scheduler on a port (operators). */
static json_t *
m_sched_set(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	json_t *r, *sched;
	struct ctld_sched s = {0};
	bool stored;

	(void)who;
	if (!txn_begin(c, e))
		return NULL;
	r = backend_call(c->backend, SP_M_SCHED_SET, json_deep_copy(params), e);
	if (r == NULL) {
		txn_abort(c);
		return NULL;
	}
	sched = json_object_get(r, "scheduler");
	s.npe = (uint16_t)json_integer_value(json_object_get(sched, "npe"));
	snprintf(s.port, sizeof(s.port), "%s", json_string_value(json_object_get(sched, "port")));
	s.rate = (uint64_t)json_integer_value(json_object_get(sched, "rate"));
	s.overhead = (uint16_t)json_integer_value(json_object_get(sched, "overhead"));
	stored = store_put_sched(c->store, &s) == 0;
	if (!txn_commit(c, stored, 0, e)) {
		json_decref(r);
		return NULL;
	}
	model_put_sched(&c->model, &s);
	return r;
}
CTLD_METHOD(SCHED_SET, m_sched_set, CTLD_OPERATORS)

/* {} -> slicepathd's state.dump (operators). */
static json_t *
m_state_dump(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	(void)who;
	return backend_call(c->backend, SP_M_STATE_DUMP, json_deep_copy(params), e);
}
CTLD_METHOD(STATE_DUMP, m_state_dump, CTLD_OPERATORS)

/* {"slice"} -> the slice's counters (its owner, operators); {} -> the node's (operators). */
static json_t *
m_stats_get(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	json_t *slice;

	if (json_object_get(params, "slice") == NULL) {
		if (!who->operator)
			return sp_rpc_fail(e, SP_RPC_DENIED, "the node's counters are for its "
					   "operators; give \"slice\" for one of yours");
		return backend_call(c->backend, SP_M_STATS_GET, NULL, e);
	}
	slice = ctld_slice_to_read(c, who, params, e);
	return slice == NULL ? NULL : backend_call(c->backend, SP_M_STATS_GET,
						   json_pack("{s:o}", "slice", slice), e);
}
CTLD_METHOD(STATS_GET, m_stats_get, CTLD_ANYONE)

/* {"slice"} -> the slice's last missed keys (its owner, operators: as its counters). */
static json_t *
m_stats_missed(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	return ctld_read_slice(c, who, params, SP_M_STATS_MISSED, e);
}
CTLD_METHOD(STATS_MISSED, m_stats_missed, CTLD_ANYONE)
