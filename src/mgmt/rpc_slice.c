/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slice.create, slice.delete, slice.list, endpoint.reserve,
 * endpoint.release, queue.unbind and nat.list: slices and their endpoints
 * on a running node (the node's side is slice_ops.c, a host slice's hostslice/).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>

#include "channel.h"
#include "../common/text.h"
#include "rpc.h"

json_t *
sp_rpc_node_error(int rc, const char *why, struct sp_rpc_error *e)
{
	int code;

	switch (rc) {
	case -EEXIST:
	case -EADDRINUSE: code = SP_RPC_EXISTS; break;
	case -ENOENT: code = SP_RPC_NOT_FOUND; break;
	case -EBUSY: code = SP_RPC_BUSY; break;
	case -ENOSPC: code = SP_RPC_NO_ROOM; break;
	case -EINVAL: code = SP_RPC_INVALID_PARAMS; break;
	default: code = SP_RPC_INTERNAL_ERROR; break;
	}
	return sp_rpc_fail(e, code, "%s", why);
}

static int
check_name(const char *name, struct sp_rpc_error *e)
{
	const char *why = sp_slice_name_problem(name);

	if (why == NULL)
		return 0;
	sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"name\" %s, got \"%.40s\"", why, name);
	return -1;
}

static uint16_t
free_slice_id(const struct sp_node *node)
{
	for (uint16_t id = 1; id < SP_MAX_SLICES; id++)
		if (node->slices[id] == NULL)
			return id;
	return 0;
}

/*
 * A host slice's namespace ("netns", required), NAT range size ("nat_ports")
 * and, for a slice slicectld restores, the range's first number
 * ("nat_first"); none for another code option. 0, or -1 with e filled.
 */
static int
host_params(json_t *params, const char *codeopt, struct sp_hslice_spec *h,
	    struct sp_rpc_error *e)
{
	bool host = strcmp(codeopt, SP_CODEOPT_HOST) == 0;
	uint64_t nat = SP_DEFAULT_NAT_PORTS, first = 0;

	*h = (struct sp_hslice_spec){0};
	if (!host) {
		if (json_object_get(params, "netns") == NULL &&
		    json_object_get(params, "nat_ports") == NULL &&
		    json_object_get(params, "nat_first") == NULL)
			return 0;
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"netns\", \"nat_ports\" and \"nat_first\" "
			    "are for host slices (codeopt \"%s\"), not code option %s",
			    SP_CODEOPT_HOST, codeopt);
		return -1;
	}
	if (json_object_get(params, "netns") == NULL) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "a host slice needs \"netns\": the network "
			    "namespace (under /run/netns) its programs run in");
		return -1;
	}
	if (sp_rpc_string(params, "netns", &h->netns, e) < 0 ||
	    sp_rpc_optional_uint(params, "nat_ports", 0, SP_MAX_NAT_PORTS, &nat, e) < 0 ||
	    sp_rpc_optional_uint(params, "nat_first", 1, UINT16_MAX, &first, e) < 0)
		return -1;
	if (first != 0 && nat == 0) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"nat_first\" needs \"nat_ports\" above 0");
		return -1;
	}
	h->nat_ports = (uint16_t)nat;
	h->nat_first = (uint16_t)first;
	return 0;
}

/*
 * {"name", "codeopt", ["id", "npe", "memory", "filter_quota", "queue_quota",
 * "buffer_quota", "owner", "managed", "netns", "nat_ports", "nat_first"]} -> {"id", "npe",
 * "channel", a host slice's "nat_first" and "nat_last" if it has NAT}
 */
static json_t *
slice_create(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	uint64_t id = free_slice_id(node), npe = SP_NPE_ANY, mem = SP_DEFAULT_MEMORY;
	uint64_t filters = SP_DEFAULT_FILTER_QUOTA, queues = SP_DEFAULT_QUEUE_QUOTA;
	uint64_t buffers = SP_DEFAULT_BUFFER_QUOTA, owner = SP_OWNER_NONE;
	struct sp_slice_spec spec;
	const char *name, *codeopt;
	bool managed = false;
	struct sp_slice *s;
	char why[512];
	json_t *r;
	int rc;

	if (sp_rpc_string(params, "name", &name, e) < 0 || check_name(name, e) < 0 ||
	    sp_rpc_string(params, "codeopt", &codeopt, e) < 0 ||
	    sp_rpc_optional_uint(params, "id", 1, SP_MAX_SLICES - 1, &id, e) < 0 ||
	    sp_rpc_optional_uint(params, "npe", 0, UINT16_MAX, &npe, e) < 0 ||
	    sp_rpc_optional_uint(params, "memory", 0, SP_MAX_MEMORY, &mem, e) < 0 ||
	    sp_rpc_optional_uint(params, "filter_quota", 1, SP_MAX_FILTER_QUOTA, &filters, e) < 0 ||
	    sp_rpc_optional_uint(params, "queue_quota", 1, SP_MAX_SLICE_QUEUES, &queues, e) < 0 ||
	    sp_rpc_optional_uint(params, "buffer_quota", 1, SP_MAX_BUFFER_QUOTA, &buffers, e) < 0 ||
	    sp_rpc_optional_uint(params, "owner", 0, SP_OWNER_NONE - 1, &owner, e) < 0 ||
	    sp_rpc_optional_bool(params, "managed", &managed, e) < 0 ||
	    host_params(params, codeopt, &spec.host, e) < 0)
		return NULL;
	if (id == 0)
		return sp_rpc_fail(e, SP_RPC_NO_ROOM, "the node has %d slices, as many as it takes",
				   SP_MAX_SLICES - 1);
	spec = (struct sp_slice_spec){
		.host = spec.host,
		.id = (uint16_t)id,
		.name = name,
		.codeopt = codeopt,
		.npe = (uint16_t)npe,
		.mem_bytes = (uint32_t)mem,
		.filter_quota = (uint32_t)filters,
		.queue_quota = (uint16_t)queues,
		.buffer_quota = (uint32_t)buffers,
		.owner = (uint32_t)owner,
		.managed = managed,
	};
	rc = sp_node_slice_add(node, &spec, &s, why, sizeof(why));
	if (rc < 0)
		return sp_rpc_node_error(rc, why, e);
	rc = sp_channel_open(node->channels, s, why, sizeof(why));
	if (rc < 0) {
		char ignored[512];

		sp_node_slice_del(node, s, ignored, sizeof(ignored));
		return sp_rpc_node_error(-EINVAL, why, e);
	}
	r = json_pack("{s:i, s:i, s:s}", "id", s->id, "npe", s->npe, "channel",
		      sp_channel_path(node->channels, s));
	if (s->host != NULL && s->host->nat != NULL) {
		struct sp_nat_stats st;

		sp_nat_stats(s->host->nat, &st);
		json_object_set_new(r, "nat_first", json_integer(st.first));
		json_object_set_new(r, "nat_last", json_integer(st.first + st.count - 1));
	}
	return r;
}
SP_RPC_METHOD(SLICE_CREATE, slice_create)

/* {"slice"}: endpoints, queues (their packets dropped), filters and reservations go. */
static json_t *
slice_delete(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	struct sp_slice *s;
	char why[512];
	int rc;

	if (sp_rpc_slice(node, params, &s, e) < 0)
		return NULL;
	sp_channel_close(node->channels, s);
	rc = sp_node_slice_del(node, s, why, sizeof(why));
	/* Its exceptions still waiting go now, before a new slice may take its id. */
	sp_channels_deliver(node->channels);
	return rc < 0 ? sp_rpc_node_error(rc, why, e) : json_pack("{s:i}", "deleted", 1);
}
SP_RPC_METHOD(SLICE_DELETE, slice_delete)

/* {"slice", "npe"} -> {"npe"}: its filters, queues and reservations go with it. */
static json_t *
slice_move(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	struct sp_slice *s;
	uint64_t npe;
	char why[512];
	int rc;

	if (sp_rpc_slice(node, params, &s, e) < 0 ||
	    sp_rpc_uint(params, "npe", UINT16_MAX, &npe, e) < 0)
		return NULL;
	rc = sp_node_slice_move(node, s, (uint16_t)npe, why, sizeof(why));
	return rc < 0 ? sp_rpc_node_error(rc, why, e) : json_pack("{s:i}", "npe", s->npe);
}
SP_RPC_METHOD(SLICE_MOVE, slice_move)

/* A host slice's namespace, interface (up, or gone with its namespace) and NAT range. */
static json_t *
host_json(const struct sp_hslice *hs)
{
	struct sp_nat_stats st = {0};
	json_t *o;

	if (hs->nat != NULL)
		sp_nat_stats(hs->nat, &st);
	o = json_pack("{s:s, s:s, s:s, s:i}", "netns", hs->netns, "interface", hs->ifname, "state",
		      __atomic_load_n(&hs->gone, __ATOMIC_RELAXED) ? "gone" : "up", "nat_ports",
		      st.count);
	if (hs->nat != NULL) {
		json_object_set_new(o, "nat_first", json_integer(st.first));
		json_object_set_new(o, "nat_last", json_integer(st.first + st.count - 1));
	}
	return o;
}

/* What slice.list and state.dump say of every slice. */
json_t *
sp_rpc_slice_json(const struct sp_node *node, const struct sp_slice *s)
{
	json_t *o = json_pack("{s:s, s:i, s:s, s:i, s:I, s:I, s:i, s:I, s:b, s:s}", "name", s->name,
			      "id", s->id, "codeopt", s->co->name, "npe", s->npe, "memory",
			      (json_int_t)s->mem_size, "filter_quota", (json_int_t)s->filter_quota,
			      "queue_quota", s->queue_quota, "buffer_quota",
			      (json_int_t)s->buffer_quota, "managed", s->managed, "channel",
			      sp_channel_path(node->channels, s));

	if (s->owner != SP_OWNER_NONE)
		json_object_set_new(o, "owner", json_integer(s->owner));
	if (s->host != NULL)
		json_object_set_new(o, "host", host_json(s->host));
	return o;
}

static json_t *
slice_list(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	json_t *list = json_array();

	(void)params;
	(void)e;
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		if (node->slices[i] != NULL)
			json_array_append_new(list, sp_rpc_slice_json(node, node->slices[i]));
	return list;
}
SP_RPC_METHOD(SLICE_LIST, slice_list)

/*
 * {"slice", "port" (name), ["udp_port" (0: any free), "bandwidth", "inbound" (0: not
 * policed), "index" (absent: the lowest free)]} -> {"endpoint", "udp_port"}
 */
static json_t *
endpoint_reserve(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	uint64_t udp = 0, tcp = 0, bw = SP_DEFAULT_BANDWIDTH, in = 0, want = SP_ENDPOINT_ANY;
	struct sp_endpoint_req req = {0};
	struct sp_slice *s;
	uint16_t idx;
	char why[512];
	int rc;

	if (sp_rpc_slice(node, params, &s, e) < 0 || sp_rpc_port(node, params, &req.port, e) < 0 ||
	    sp_rpc_optional_uint(params, "udp_port", 0, UINT16_MAX, &udp, e) < 0 ||
	    sp_rpc_optional_uint(params, "tcp_port", 0, UINT16_MAX, &tcp, e) < 0 ||
	    sp_rpc_optional_uint(params, "bandwidth", 0, SP_MAX_RATE, &bw, e) < 0 ||
	    sp_rpc_optional_uint(params, "inbound", 0, SP_MAX_RATE, &in, e) < 0 ||
	    sp_rpc_optional_uint(params, "index", 0, SP_MAX_SLICE_ENDPOINTS - 1, &want, e) < 0)
		return NULL;
	if (json_object_get(params, "udp_port") != NULL && json_object_get(params, "tcp_port") != NULL)
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "an endpoint is a UDP or a TCP port: "
				   "give \"udp_port\" or \"tcp_port\", not both");
	req.l4 = json_object_get(params, "tcp_port") != NULL ? SP_L4_TCP : SP_L4_UDP;
	req.udp_port = (uint16_t)(req.l4 == SP_L4_TCP ? tcp : udp);
	req.bandwidth_bps = bw;
	req.inbound_bps = in;
	idx = (uint16_t)want;
	rc = sp_node_endpoint_add(node, s, &req, &idx, why, sizeof(why));
	if (rc < 0)
		return sp_rpc_node_error(rc, why, e);
	return json_pack("{s:i, s:i}", "endpoint", idx, sp_l4_key(req.l4),
			 rte_be_to_cpu_16(node->endpoints[s->endpoints[idx]].l4_port_be));
}
SP_RPC_METHOD(ENDPOINT_RESERVE, endpoint_reserve)

/* {"slice", key}: remove the slice's item of that index with fn, answered {done: 1}. */
static json_t *
remove_item(struct sp_node *node, json_t *params, const char *key, const char *done,
	    int (*fn)(struct sp_node *, struct sp_slice *, uint16_t, char *, size_t),
	    struct sp_rpc_error *e)
{
	struct sp_slice *s;
	uint64_t index;
	char why[512];
	int rc;

	if (sp_rpc_slice(node, params, &s, e) < 0 || sp_rpc_uint(params, key, UINT16_MAX, &index,
								    e) < 0)
		return NULL;
	rc = fn(node, s, (uint16_t)index, why, sizeof(why));
	return rc < 0 ? sp_rpc_node_error(rc, why, e) : json_pack("{s:i}", done, 1);
}

/* {"slice", "endpoint"} */
static json_t *
endpoint_release(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	return remove_item(node, params, "endpoint", "released", sp_node_endpoint_del, e);
}
SP_RPC_METHOD(ENDPOINT_RELEASE, endpoint_release)

/* {"slice", "queue"}: what the queue holds is dropped (counted). */
static json_t *
queue_unbind(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	return remove_item(node, params, "queue", "unbound", sp_node_queue_unbind, e);
}
SP_RPC_METHOD(QUEUE_UNBIND, queue_unbind)

/* {"slice"}: a host slice's NAT range, its counts and its entries now. */
static json_t *
nat_list(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	uint64_t now = rte_rdtsc();
	struct sp_nat_stats st;
	struct sp_nat_view v;
	struct sp_slice *s;
	uint32_t pos = 0;
	json_t *entries;

	if (sp_rpc_slice(node, params, &s, e) < 0)
		return NULL;
	if (s->host == NULL || s->host->nat == NULL)
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "slice %s has no NAT: only host slices "
				   "(codeopt \"%s\") created with nat_ports above 0 do", s->name,
				   SP_CODEOPT_HOST);
	sp_nat_stats(s->host->nat, &st);
	entries = json_array();
	while (sp_nat_next(s->host->nat, &pos, now, &v)) {
		char remote[32];
		struct in_addr a = {.s_addr = v.rem_ip_be};

		snprintf(remote, sizeof(remote), "%s:%u", inet_ntoa(a), v.rem_port);
		json_array_append_new(entries, json_pack("{s:s, s:i, s:i, s:s, s:i, s:s}", "proto",
							 sp_nat_proto_name(v.proto), "port", v.ext,
							 "inner", v.inner, "remote", remote,
							 "idle", v.idle_s, "state", v.state));
	}
	return json_pack("{s:i, s:i, s:{s:i, s:i, s:i}, s:I, s:I, s:I, s:o}", "first", st.first,
			 "last", st.first + st.count - 1, "in_use", "tcp", st.in_use[SP_NAT_TCP],
			 "udp", st.in_use[SP_NAT_UDP], "icmp", st.in_use[SP_NAT_ICMP], "created",
			 (json_int_t)st.created, "expired", (json_int_t)st.expired, "full",
			 (json_int_t)st.full, "entries", entries);
}
SP_RPC_METHOD(NAT_LIST, nat_list)
