/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slice.create, slice.delete, slice.list, exception.channel and nat.list: slices,
 * admitted against the node's memory, packet buffers and NPE room and
 * placed on the NPE with the most room (SPP's LRM).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/wait.h>

#include "common/text.h"
#include "methods.h"

/* "owner": a uid, or a user's name; absent: the caller. */
static bool
parse_owner(const struct caller *who, json_t *params, uint32_t *owner, struct sp_rpc_error *e)
{
	json_t *j = json_object_get(params, "owner");
	char buf[4096];
	struct passwd pw, *found = NULL;

	*owner = (uint32_t)who->uid;
	if (j == NULL)
		return true;
	if (json_is_integer(j) && json_integer_value(j) >= 0 && json_integer_value(j) < UINT32_MAX) {
		*owner = (uint32_t)json_integer_value(j);
		return true;
	}
	if (!json_is_string(j)) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"owner\" must be a uid or a user's name, got "
			    "%s", sp_json_type_name(j));
		return false;
	}
	if (getpwnam_r(json_string_value(j), &pw, buf, sizeof(buf), &found) != 0 || found == NULL) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"owner\": no user is named \"%s\"",
			    json_string_value(j));
		return false;
	}
	*owner = (uint32_t)pw.pw_uid;
	return true;
}

/*
 * A host slice's "netns" (required), "nat_ports" and "create_netns" (make
 * the namespace if it is missing; it then goes with the slice); none of
 * them for another code option.
 */
static bool
parse_host(json_t *params, struct ctld_slice *s, bool *create, struct sp_rpc_error *e)
{
	uint64_t nat = SP_DEFAULT_NAT_PORTS;
	const char *netns;

	*create = false;
	if (strcmp(s->codeopt, SP_CODEOPT_HOST) != 0) {
		if (json_object_get(params, "netns") == NULL &&
		    json_object_get(params, "nat_ports") == NULL &&
		    json_object_get(params, "create_netns") == NULL)
			return true;
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"netns\", \"nat_ports\" and "
			    "\"create_netns\" are for host slices (codeopt \"%s\")",
			    SP_CODEOPT_HOST);
		return false;
	}
	if (json_object_get(params, "netns") == NULL) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "a host slice needs \"netns\": the network "
			    "namespace (under /run/netns) its programs run in");
		return false;
	}
	if (sp_rpc_string(params, "netns", &netns, e) < 0 ||
	    sp_rpc_optional_uint(params, "nat_ports", 0, SP_MAX_NAT_PORTS, &nat, e) < 0 ||
	    sp_rpc_optional_bool(params, "create_netns", create, e) < 0)
		return false;
	if (sp_netns_name_problem(netns) != NULL) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"netns\" %s, got \"%.80s\"",
			    sp_netns_name_problem(netns), netns);
		return false;
	}
	snprintf(s->netns, sizeof(s->netns), "%s", netns);
	s->nat_ports = (uint16_t)nat;
	return true;
}

/*
 * iproute2's ip netns add|del NAME (no shell): true on exit 0, else false
 * with what it said in e.
 */
static bool
run_ip(const char *what, const char *netns, struct sp_rpc_error *e)
{
	char *argv[] = {"ip", "netns", (char *)what, (char *)netns, NULL}, out[512] = "";
	posix_spawn_file_actions_t fa;
	int pipefd[2], status = -1, rc;
	ssize_t n = 0;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "ip netns %s: %s", what, strerror(errno));
		return false;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
	rc = posix_spawnp(&pid, "ip", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (rc == 0) {
		n = read(pipefd[0], out, sizeof(out) - 1);
		waitpid(pid, &status, 0);
	}
	close(pipefd[0]);
	out[n > 0 ? n : 0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	if (rc == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "ip netns %s %s failed: %s", what, netns,
		    rc != 0 ? strerror(rc) : out[0] != '\0' ? out : "no message");
	return false;
}

/* The slice's namespace made if asked and missing (remembered: it goes with the slice). */
static bool
make_netns(struct ctld_slice *s, bool create, struct sp_rpc_error *e)
{
	char path[SP_NETNS_NAME_LEN + 16];

	snprintf(path, sizeof(path), "/run/netns/%s", s->netns);
	if (!create || access(path, F_OK) == 0)
		return true;
	if (!run_ip("add", s->netns, e))
		return false;
	s->netns_made = true;
	return true;
}

static bool
parse_slice(const struct caller *who, json_t *params, struct ctld_slice *s, uint64_t *npe,
	    struct sp_rpc_error *e)
{
	uint64_t memory = SP_DEFAULT_MEMORY, filters = SP_DEFAULT_FILTER_QUOTA;
	uint64_t queues = SP_DEFAULT_QUEUE_QUOTA, buffers = SP_DEFAULT_BUFFER_QUOTA;
	uint64_t bandwidth = SP_DEFAULT_SLICE_BANDWIDTH, inbound = SP_DEFAULT_SLICE_BANDWIDTH;
	const char *name, *codeopt, *why;

	if (sp_rpc_string(params, "name", &name, e) < 0 ||
	    sp_rpc_string(params, "codeopt", &codeopt, e) < 0 ||
	    sp_rpc_optional_uint(params, "npe", 0, UINT16_MAX, npe, e) < 0 ||
	    sp_rpc_optional_uint(params, "memory", 0, SP_MAX_MEMORY, &memory, e) < 0 ||
	    sp_rpc_optional_uint(params, "filter_quota", 1, SP_MAX_FILTER_QUOTA, &filters, e) < 0 ||
	    sp_rpc_optional_uint(params, "queue_quota", 1, SP_MAX_SLICE_QUEUES, &queues, e) < 0 ||
	    sp_rpc_optional_uint(params, "buffer_quota", 1, SP_MAX_BUFFER_QUOTA, &buffers, e) < 0 ||
	    sp_rpc_optional_uint(params, "bandwidth", 0, SP_MAX_RATE, &bandwidth, e) < 0 ||
	    sp_rpc_optional_uint(params, "inbound", 0, SP_MAX_RATE, &inbound, e) < 0 ||
	    !parse_owner(who, params, &s->owner, e))
		return false;
	why = sp_slice_name_problem(name);
	if (why != NULL) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"name\" %s, got \"%.40s\"", why, name);
		return false;
	}
	if (strlen(codeopt) >= SP_NAME_LEN) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"codeopt\" has at most %d characters",
			    SP_NAME_LEN - 1);
		return false;
	}
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->codeopt, sizeof(s->codeopt), "%s", codeopt);
	s->memory = (uint32_t)memory;
	s->filter_quota = (uint32_t)filters;
	s->queue_quota = (uint16_t)queues;
	s->buffer_quota = (uint32_t)buffers;
	s->bandwidth = bandwidth;
	s->inbound = inbound;
	return true;
}

static uint64_t
u64(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

/* The node's slice memory left. */
static bool
admit_memory(struct ctld *c, const struct ctld_slice *s, struct sp_rpc_error *e)
{
	uint64_t used = 0;

	for (unsigned int i = 1; i < SP_MAX_SLICES; i++)
		if (c->model.slices[i].used)
			used += c->model.slices[i].memory;
	if (used + s->memory <= c->cfg.memory_budget)
		return true;
	sp_rpc_fail(e, SP_RPC_NO_ROOM, "the node's slices may hold %" PRIu64 " bytes of memory "
		    "together and hold %" PRIu64 ", so at most %" PRIu64 " is left; %u asked",
		    c->cfg.memory_budget, used, c->cfg.memory_budget - used, s->memory);
	return false;
}

/*
 * A slice that names no buffer_quota gets SP_DEFAULT_BUFFER_QUOTA, or what
 * is left if less, but not fewer than this: a queue of fewer would drop a
 * small burst, and a node this full is better told than quietly used up.
 */
#define MIN_DEFAULT_BUFFERS 256

/*
 * Packet buffers left for the slices' queues: the budget (by default what
 * slicepathd has beyond its ports' receive rings) minus every slice's
 * buffer quota, those of its config included. fit: the quota is the
 * default, cut to what is left. A refusal says which key to change.
 */
static bool
admit_buffers(struct ctld *c, json_t *info, json_t *slices, struct ctld_slice *s, bool fit,
	      struct sp_rpc_error *e)
{
	uint64_t budget = c->cfg.buffer_budget, used = 0, left;
	char hint[160], dflt[64] = "";
	json_t *o;
	size_t i;

	if (budget == 0) {
		uint64_t rx = 0;

		json_array_foreach(json_object_get(info, "ports"), i, o)
			rx += u64(o, "rx_desc");
		budget = u64(info, "mbufs") > rx ? u64(info, "mbufs") - rx : 0;
	}
	json_array_foreach(slices, i, o)
		used += u64(o, "buffer_quota");
	left = used < budget ? budget - used : 0;
	if (fit && s->buffer_quota > left && left >= MIN_DEFAULT_BUFFERS)
		s->buffer_quota = (uint32_t)left;
	if (s->buffer_quota <= left)
		return true;
	if (fit)
		snprintf(dflt, sizeof(dflt), " (the default, or what is left if at least %d)",
			 MIN_DEFAULT_BUFFERS);
	if (left == 0)
		snprintf(hint, sizeof(hint), "delete a slice or give slicectld a larger --buffers");
	else
		snprintf(hint, sizeof(hint), "%s \"buffers N\" / \"buffer_quota\": N (at most "
			 "%" PRIu64 " left)", fit ? "add" : "give", left);
	sp_rpc_fail(e, SP_RPC_NO_ROOM, "the node has %" PRIu64 " packet buffers for the slices' "
		    "queues and their buffer quotas take %" PRIu64 ", so at most %" PRIu64 " is "
		    "left; %u asked%s: %s", budget, used, left, s->buffer_quota, dflt, hint);
	return false;
}

/*
 * What the request asks for that the node does not have, whatever its room:
 * a code option it lacks, an NPE past its last. Checked before any room, so
 * that a request with a mistake is told of the mistake.
 */
static bool
check_request(json_t *info, const struct ctld_slice *s, uint64_t npe, struct sp_rpc_error *e)
{
	json_t *names = json_object_get(info, "codeopts"), *o;
	char list[400] = "";
	size_t i;

	if (npe != UINT64_MAX && npe >= json_array_size(json_object_get(info, "npes"))) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "no NPE %" PRIu64 ": the node has %zu", npe,
			    json_array_size(json_object_get(info, "npes")));
		return false;
	}
	json_array_foreach(names, i, o) {
		if (strcmp(json_string_value(o) ?: "", s->codeopt) == 0)
			return true;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i > 0 ? ", " : "",
			 json_string_value(o) ?: "?");
	}
	sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "unknown code option \"%s\"; the node has %s",
		    s->codeopt, list);
	return false;
}

/*
 * The NPE for s: the one asked for if it has room for its filter and queue
 * quotas, else the one with the most filter positions left among those with
 * room for both.
 */
static bool
place(json_t *info, struct ctld_slice *s, uint64_t asked, struct sp_rpc_error *e)
{
	char room[400] = "";
	json_t *npes = json_object_get(info, "npes"), *o;
	uint64_t best = 0;
	bool found = false;
	size_t i;

	json_array_foreach(npes, i, o) {
		uint64_t filters = u64(o, "filters") - u64(o, "filter_quotas");
		uint64_t queues = u64(o, "queues") - u64(o, "queue_quotas");

		snprintf(room + strlen(room), sizeof(room) - strlen(room), "%sNPE %zu has %" PRIu64
			 " and %" PRIu64, i > 0 ? ", " : "", i, filters, queues);
		if ((asked != UINT64_MAX && asked != i) || filters < s->filter_quota ||
		    queues < s->queue_quota || (found && filters <= best))
			continue;
		found = true;
		best = filters;
		s->npe = (uint16_t)i;
	}
	if (!found)
		sp_rpc_fail(e, SP_RPC_NO_ROOM, "no NPE%s has room for %u filter positions and %u "
			    "queues (%s left)", asked != UINT64_MAX ? " asked for" : "",
			    s->filter_quota, s->queue_quota, room);
	return found;
}

/* The lowest slice id neither slicepathd nor the database uses. */
static uint16_t
free_id(struct ctld *c, json_t *slices)
{
	bool taken[SP_MAX_SLICES] = {[0] = true}; /* id 0 is no slice's */
	json_t *o;
	size_t i;

	json_array_foreach(slices, i, o)
		if (u64(o, "id") < SP_MAX_SLICES)
			taken[u64(o, "id")] = true;
	for (uint16_t id = 1; id < SP_MAX_SLICES; id++)
		if (!taken[id] && !c->model.slices[id].used)
			return id;
	return 0;
}

/*
 * What slice.create checks against the node: false with e filled if the
 * node lacks what it names or it does not fit. fit: no buffer_quota asked.
 */
static bool
admit(struct ctld *c, struct ctld_slice *s, uint64_t npe, bool fit, struct sp_rpc_error *e)
{
	json_t *info = backend_call(c->backend, SP_M_NODE_INFO, NULL, e);
	json_t *slices = info != NULL ? backend_call(c->backend, SP_M_SLICE_LIST, NULL, e) : NULL;
	bool ok = slices != NULL && check_request(info, s, npe, e) && admit_memory(c, s, e) &&
		  admit_buffers(c, info, slices, s, fit, e) && place(info, s, npe, e);

	if (ok) {
		s->id = free_id(c, slices);
		ok = s->id != 0;
		if (!ok)
			sp_rpc_fail(e, SP_RPC_NO_ROOM, "the node has %d slices, as many as it takes",
				    SP_MAX_SLICES - 1);
	}
	json_decref(info);
	json_decref(slices);
	return ok;
}

/* The namespace slicectld made for the slice, removed (its programs, if any, keep running). */
static void
drop_netns(const struct ctld_slice *s)
{
	struct sp_rpc_error ignored = {0};

	if (s->netns_made && !run_ip("del", s->netns, &ignored))
		ctld_log("slice %s: %s", s->name, ignored.message);
}

/*
 * {"name", "codeopt", ["owner" (uid or user name; the caller), "npe", "memory",
 * "filter_quota", "queue_quota", "buffer_quota", "bandwidth", "inbound", a host
 * slice's "netns", "nat_ports", "create_netns"]} -> {"id", "npe", "channel", "buffer_quota"}
 */
static json_t *
m_slice_create(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	struct ctld_slice s = {.used = true};
	uint64_t npe = UINT64_MAX;
	bool stored, create;
	json_t *r;

	if (!parse_slice(who, params, &s, &npe, e) || !parse_host(params, &s, &create, e))
		return NULL;
	if (model_find(&c->model, s.name) != NULL)
		return sp_rpc_fail(e, SP_RPC_EXISTS, "a slice is already named %s", s.name);
	if (!admit(c, &s, npe, json_object_get(params, "buffer_quota") == NULL, e) ||
	    !make_netns(&s, create, e))
		return NULL;
	if (!txn_begin(c, e)) {
		drop_netns(&s);
		return NULL;
	}
	r = backend_call(c->backend, SP_M_SLICE_CREATE, model_create_params(&s), e);
	if (r == NULL) {
		txn_abort(c);
		drop_netns(&s);
		return NULL;
	}
	/* The range slicepathd chose is the slice's for good: asked for again at each restore. */
	s.nat_first = (uint16_t)json_integer_value(json_object_get(r, "nat_first"));
	stored = store_put_slice(c->store, &s) == 0;
	if (!txn_commit(c, stored, s.id, e)) {
		json_decref(r);
		return NULL;
	}
	c->model.slices[s.id] = s;
	/* Said back: a slice that asked for none may have got fewer than the default. */
	json_object_set_new(r, "buffer_quota", json_integer(s.buffer_quota));
	ctld_log("slice %s (id %u, NPE %u) created for uid %u by uid %u", s.name, s.id, s.npe,
		 s.owner, (unsigned int)who->uid);
	return r;
}
CTLD_METHOD(SLICE_CREATE, m_slice_create, CTLD_OPERATORS)

/* {"slice"}: the slice and everything it holds go (operators). */
static json_t *
m_slice_delete(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	struct ctld_slice *s = ctld_slice_to_change(c, who, params, e);
	json_t *r;
	bool stored;

	if (s == NULL || !txn_begin(c, e))
		return NULL;
	r = backend_call(c->backend, SP_M_SLICE_DELETE, json_pack("{s:s}", "slice", s->name), e);
	/* A slice slicepathd lost (it could not be restored) is deleted all the same. */
	if (r == NULL && e->code != SP_RPC_NOT_FOUND) {
		txn_abort(c);
		return NULL;
	}
	json_decref(r);
	stored = store_del_slice(c->store, s->id) == 0;
	if (!txn_commit(c, stored, s->id, e))
		return NULL;
	ctld_log("slice %s (id %u) deleted by uid %u", s->name, s->id, (unsigned int)who->uid);
	drop_netns(s);
	memset(s, 0, sizeof(*s));
	return json_pack("{s:i}", "deleted", 1);
}
CTLD_METHOD(SLICE_DELETE, m_slice_delete, CTLD_OPERATORS)

/* {"slice", "npe"} -> {"npe"}: the slice and what it holds to another NPE (operators). */
static json_t *
m_slice_move(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	struct ctld_slice *s = ctld_slice_to_change(c, who, params, e), moved;
	uint64_t npe;
	json_t *r;
	bool stored;

	if (s == NULL || sp_rpc_uint(params, "npe", UINT16_MAX, &npe, e) < 0 || !txn_begin(c, e))
		return NULL;
	r = backend_call(c->backend, SP_M_SLICE_MOVE,
			 json_pack("{s:s, s:I}", "slice", s->name, "npe", (json_int_t)npe), e);
	if (r == NULL) {
		txn_abort(c);
		return NULL;
	}
	moved = *s;
	moved.npe = (uint16_t)npe;
	stored = store_put_slice(c->store, &moved) == 0;
	/* Not stored: the model still says the old NPE, and reconciling puts it back there. */
	if (!txn_commit(c, stored, s->id, e)) {
		json_decref(r);
		return NULL;
	}
	ctld_log("slice %s (id %u) moved from NPE %u to NPE %u by uid %u", s->name, s->id, s->npe,
		 moved.npe, (unsigned int)who->uid);
	s->npe = moved.npe;
	return r;
}
CTLD_METHOD(SLICE_MOVE, m_slice_move, CTLD_OPERATORS)

/* A stored slice as slice.list shows it, beside what slicepathd says of it. */
static void
add_stored(json_t *o, const struct ctld_slice *s)
{
	json_object_set_new(o, "owner", json_integer(s->owner));
	json_object_set_new(o, "bandwidth", json_integer((json_int_t)s->bandwidth));
	json_object_set_new(o, "reserved", json_integer((json_int_t)model_reserved(s, false)));
	json_object_set_new(o, "inbound", json_integer((json_int_t)s->inbound));
	json_object_set_new(o, "inbound_reserved", json_integer((json_int_t)model_reserved(s, true)));
	json_object_set_new(o, "in_force", json_boolean(s->trouble[0] == '\0'));
	json_object_set_new(o, "state", json_string(model_state_name(s->state)));
	if (s->trouble[0] != '\0')
		json_object_set_new(o, "trouble", json_string(s->trouble));
}

/*
 * {} -> the caller's slices (an operator's: all, those of slicepathd's
 * config too), as slicepathd has them, with owner, bandwidth quota and what
 * the endpoints reserve; "in_force" false for a stored slice slicepathd
 * does not have as stored (unreachable, or it could not be restored), its
 * "state" ("in_force", "degraded", "absent") and "trouble" saying why.
 */
static json_t *
m_slice_list(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	json_t *live = backend_call(c->backend, SP_M_SLICE_LIST, NULL, e), *list = json_array(), *o;
	bool listed[SP_MAX_SLICES] = {false};
	size_t i;

	(void)params;
	json_array_foreach(live, i, o) {
		const struct ctld_slice *s =
			json_is_true(json_object_get(o, "managed"))
				? model_find(&c->model, json_string_value(json_object_get(o, "name")))
				: NULL;

		if (s != NULL && (who->operator || s->owner == who->uid)) {
			listed[s->id] = true;
			add_stored(o, s);
			json_array_append(list, o);
		} else if (s == NULL && who->operator) {
			json_array_append(list, o);
		}
	}
	json_decref(live);
	for (unsigned int id = 1; id < SP_MAX_SLICES; id++) {
		const struct ctld_slice *s = &c->model.slices[id];
		char trouble[sizeof(s->trouble)];

		if (!s->used || listed[id] || !(who->operator || s->owner == who->uid))
			continue;
		snprintf(trouble, sizeof(trouble), "%s", s->trouble[0] != '\0' ? s->trouble
							: backend_down(c->backend));
		o = json_pack("{s:s, s:i, s:s, s:i, s:I, s:I, s:i, s:I, s:b}", "name", s->name, "id",
			      s->id, "codeopt", s->codeopt, "npe", s->npe, "memory",
			      (json_int_t)s->memory, "filter_quota", (json_int_t)s->filter_quota,
			      "queue_quota", s->queue_quota, "buffer_quota",
			      (json_int_t)s->buffer_quota, "managed", 1);
		add_stored(o, s);
		json_object_set_new(o, "in_force", json_false());
		json_object_set_new(o, "state", json_string(model_state_name(CTLD_ABSENT)));
		json_object_set_new(o, "trouble", json_string(trouble));
		json_array_append_new(list, o);
	}
	return list;
}
CTLD_METHOD(SLICE_LIST, m_slice_list, CTLD_ANYONE)

/* {"slice"} -> {"path"}: where the slice's slow path connects (its owner, operators). */
static json_t *
m_exception_channel(struct ctld *c, const struct caller *who, json_t *params,
		    struct sp_rpc_error *e)
{
	struct ctld_slice *s = ctld_slice_to_change(c, who, params, e);
	json_t *info = s != NULL ? backend_call(c->backend, SP_M_NODE_INFO, NULL, e) : NULL;
	const char *dir = json_string_value(json_object_get(info, "channel_dir"));
	char path[SP_SOCKET_PATH_LEN + SP_NAME_LEN + 8];

	if (info == NULL)
		return NULL;
	if (dir == NULL || dir[0] == '\0') {
		json_decref(info);
		return sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "slicepathd has no exception channels");
	}
	/* dir is info's: used before info goes. */
	snprintf(path, sizeof(path), "%s/%s.sock", dir, s->name);
	json_decref(info);
	return json_pack("{s:s}", "path", path);
}
CTLD_METHOD(EXCEPTION_CHANNEL, m_exception_channel, CTLD_ANYONE)

/* {"slice"} -> a host slice's NAT range and entries (its owner's, operators'). */
static json_t *
m_nat_list(struct ctld *c, const struct caller *who, json_t *params, struct sp_rpc_error *e)
{
	return ctld_read_slice(c, who, params, SP_M_NAT_LIST, e);
}
CTLD_METHOD(NAT_LIST, m_nat_list, CTLD_ANYONE)
