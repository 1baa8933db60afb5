/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The config's "slices": each slice with its endpoints (bandwidth reserved
 * out of its NPE's schedulers), queues (shares within those reservations)
 * and filters (results naming its endpoints and queues).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/filter_json.h"
#include "config_read.h"

static const struct uint_spec SLICE_ID = REQ("id", 1, SP_MAX_SLICES - 1);
static const struct uint_spec SLICE_NPE = OPT("npe", 0, UINT16_MAX, 0);
static const struct uint_spec SLICE_MEMORY = OPT("memory", 0, SP_MAX_MEMORY, SP_DEFAULT_MEMORY);
static const struct uint_spec FILTER_QUOTA =
	OPT("filter_quota", 1, SP_MAX_FILTER_QUOTA, SP_DEFAULT_FILTER_QUOTA);
static const struct uint_spec QUEUE_QUOTA =
	OPT("queue_quota", 1, SP_MAX_SLICE_QUEUES, SP_DEFAULT_QUEUE_QUOTA);
static const struct uint_spec UDP_PORT = REQ("udp_port", 1, UINT16_MAX);
static const struct uint_spec QUEUE_ID = REQ("id", 0, UINT16_MAX);
static const struct uint_spec QUEUE_ENDPOINT = REQ("endpoint", 0, UINT16_MAX);
static const struct uint_spec THRESHOLD =
	OPT("threshold", SP_MIN_THRESHOLD, UINT32_MAX, SP_DEFAULT_THRESHOLD);
static const struct uint_spec THRESHOLD_PKTS =
	OPT("threshold_packets", 1, SP_MAX_THRESHOLD_PKTS, SP_DEFAULT_THRESHOLD_PKTS);
static const struct uint_spec BUFFER_QUOTA =
	OPT("buffer_quota", 1, SP_MAX_BUFFER_QUOTA, SP_DEFAULT_BUFFER_QUOTA);
static const struct uint_spec POSITION = REQ(SP_FILTER_POSITION, 0, UINT32_MAX);
static const struct uint_spec RESULT_ENDPOINT = REQ(SP_RESULT_ENDPOINT, 0, UINT16_MAX);
static const struct uint_spec RESULT_QUEUE = REQ(SP_RESULT_QUEUE, 0, UINT16_MAX);
/* ---- slices ---- */

static const char *const SLICE_KEYS[] = {
	"name", "id", "codeopt", "codeopt_data", "npe", "memory", "filter_quota", "queue_quota",
	"buffer_quota", "endpoints", "queues", "filters", NULL,
};
static const char *const ENDPOINT_KEYS[] = { "port", "udp_port", "bandwidth", "inbound", NULL };
static const char *const QUEUE_KEYS[] = {
	"id", "endpoint", "threshold", "threshold_packets", "share", NULL,
};
static const char *const FILTER_KEYS[] = { SP_FILTER_FIELDS(SP_FIELD_ELEMENT) NULL };
static const char *const RESULT_KEYS[] = { SP_RESULT_FIELDS(SP_FIELD_ELEMENT) NULL };

/* v as an index below a slice's quota (named for the message). */
static int
within_quota(struct parser *p, const char *path, const char *key, uint64_t v, uint32_t quota,
	     const char *quota_name)
{
	if (v < quota)
		return 0;
	return cfg_fail(p, path, key, "%" PRIu64 " is out of range: %s is %u, so use 0 to %u or "
			"raise %s", v, quota_name, quota, quota - 1, quota_name);
}

/* What the slices on an NPE take of it. */
struct npe_use {
	uint64_t filters;
	uint64_t queues;
	uint64_t reserved_bps[SP_MAX_PORTS]; /* the slices' endpoints' bandwidth */
};

/* Slice si's endpoint ei against every endpoint before it, in all slices. */
static int
check_endpoint_unique(struct parser *p, const char *path, uint16_t si, uint16_t ei)
{
	const struct sp_config *cfg = p->cfg;
	const struct sp_cfg_endpoint *e = &cfg->slices[si].endpoints[ei];

	for (uint16_t s = 0; s <= si; s++) {
		uint16_t n = s < si ? cfg->slices[s].nb_endpoints : ei;

		for (uint16_t k = 0; k < n; k++) {
			const struct sp_cfg_endpoint *o = &cfg->slices[s].endpoints[k];

			if (o->port == e->port && o->udp_port == e->udp_port)
				return cfg_fail(p, path, "udp_port", "%s:%u is already reserved by "
					        "slices[%u].endpoints[%u]; pick another udp_port",
					        cfg->ports[e->port].name, e->udp_port, s, k);
		}
	}
	return 0;
}

/* Endpoint e of slice s reserves its bandwidth on its NPE's scheduler for its port. */
static int
reserve_bandwidth(struct parser *p, const char *path, const struct sp_cfg_slice *s,
		  const struct sp_cfg_endpoint *e, struct npe_use *use)
{
	uint64_t rate = p->cfg->npes[s->npe].rate_bps[e->port];
	const char *pname = p->cfg->ports[e->port].name;
	char a[32], b[32];

	use->reserved_bps[e->port] += e->bandwidth_bps;
	if (use->reserved_bps[e->port] > rate)
		return cfg_fail(p, path, "bandwidth", "the endpoints of NPE %u's slices on %s would "
			        "reserve %s in all but its scheduler there sends %s; lower their "
			        "bandwidth or raise npes[%u].rates.%s", s->npe, pname,
			        cfg_rate_text(use->reserved_bps[e->port], a), cfg_rate_text(rate, b), s->npe,
			        pname);
	return 0;
}

/* Slice si's endpoint ei reserves its inbound bandwidth, with every endpoint before it, out of its link. */
static int
reserve_inbound(struct parser *p, const char *path, uint16_t si, uint16_t ei)
{
	const struct sp_config *cfg = p->cfg;
	const struct sp_cfg_endpoint *e = &cfg->slices[si].endpoints[ei];
	uint64_t link = cfg->ports[e->port].rate_bps, sum = 0;
	char a[32], b[32];

	for (uint16_t s = 0; s <= si; s++) {
		uint16_t n = s < si ? cfg->slices[s].nb_endpoints : ei + 1;

		for (uint16_t k = 0; k < n; k++)
			if (cfg->slices[s].endpoints[k].port == e->port)
				sum += cfg->slices[s].endpoints[k].inbound_bps;
	}
	if (sum > link)
		return cfg_fail(p, path, "inbound", "the endpoints on %s would reserve %s inbound in "
			        "all but its link takes in %s; lower their inbound or raise the port's "
			        "rate", cfg->ports[e->port].name, cfg_rate_text(sum, a),
			        cfg_rate_text(link, b));
	return 0;
}

static int
parse_endpoints(struct parser *p, json_t *so, const char *spath, uint16_t si,
		struct npe_use use[])
{
	struct sp_cfg_slice *s = &p->cfg->slices[si];
	char path[PATH_LEN];
	json_t *arr, *o;
	uint64_t v;
	size_t i;

	TRY(cfg_get_array(p, so, spath, "endpoints", false, 0, SP_MAX_SLICE_ENDPOINTS, &arr));
	json_array_foreach(arr, i, o) {
		struct sp_cfg_endpoint *e = &s->endpoints[i];

		cfg_item_path(path, spath, "endpoints", i);
		TRY(cfg_check_object(p, o, path, ENDPOINT_KEYS));
		TRY(cfg_get_port_ref(p, o, path, "port", &e->port));
		TRY(cfg_get_uint(p, o, path, &UDP_PORT, &v));
		e->udp_port = (uint16_t)v;
		TRY(check_endpoint_unique(p, path, si, (uint16_t)i));
		TRY(cfg_get_sched_rate(p, o, path, "bandwidth", SP_DEFAULT_BANDWIDTH, &e->bandwidth_bps));
		TRY(reserve_bandwidth(p, path, s, e, &use[s->npe]));
		TRY(cfg_get_sched_rate(p, o, path, "inbound", 0, &e->inbound_bps));
		TRY(reserve_inbound(p, path, si, (uint16_t)i));
		s->nb_endpoints = (uint16_t)(i + 1);
	}
	return 0;
}

/* Queue i's share, with the shares of the slice's queues before it on the same port. */
static int
check_share(struct parser *p, const char *path, const struct sp_cfg_slice *s, size_t i)
{
	uint16_t port = s->endpoints[s->queues[i].endpoint].port;
	uint64_t shares = 0, reserved = 0;
	char a[32], b[32];

	for (uint16_t e = 0; e < s->nb_endpoints; e++)
		if (s->endpoints[e].port == port)
			reserved += s->endpoints[e].bandwidth_bps;
	for (size_t k = 0; k <= i; k++)
		if (s->endpoints[s->queues[k].endpoint].port == port)
			shares += s->queues[k].share_bps;
	if (shares > reserved)
		return cfg_fail(p, path, "share", "the slice's queues on %s would share %s but its "
			        "endpoints there reserve %s; lower the queues' shares or raise the "
			        "endpoints' bandwidth", p->cfg->ports[port].name, cfg_rate_text(shares, a),
			        cfg_rate_text(reserved, b));
	return 0;
}

static int
parse_queues(struct parser *p, json_t *so, const char *spath, struct sp_cfg_slice *s)
{
	char path[PATH_LEN], list[PATH_LEN];
	json_t *arr, *o;
	uint64_t v;
	size_t i;

	cfg_field_path(list, spath, "endpoints");
	TRY(cfg_get_array(p, so, spath, "queues", false, 0, SP_MAX_SLICE_QUEUES, &arr));
	json_array_foreach(arr, i, o) {
		struct sp_cfg_queue *q = &s->queues[i];

		cfg_item_path(path, spath, "queues", i);
		TRY(cfg_check_object(p, o, path, QUEUE_KEYS));
		TRY(cfg_get_uint(p, o, path, &QUEUE_ID, &v));
		TRY(within_quota(p, path, "id", v, s->queue_quota, "queue_quota"));
		q->id = (uint16_t)v;
		for (size_t k = 0; k < i; k++)
			if (s->queues[k].id == q->id)
				return cfg_fail(p, path, "id", "queue %u is already defined by "
					        "%s.queues[%zu]; give each queue its own id", q->id,
					        spath, k);
		TRY(cfg_get_index(p, o, path, &QUEUE_ENDPOINT, s->nb_endpoints, "endpoint", list,
			          &q->endpoint));
		TRY(cfg_get_uint(p, o, path, &THRESHOLD, &v));
		q->threshold = (uint32_t)v;
		TRY(cfg_get_uint(p, o, path, &THRESHOLD_PKTS, &v));
		q->threshold_pkts = (uint32_t)v;
		TRY(cfg_get_sched_rate(p, o, path, "share", SP_DEFAULT_SHARE, &q->share_bps));
		TRY(check_share(p, path, s, i));
		s->nb_queues = (uint16_t)(i + 1);
	}
	return 0;
}

static const struct sp_cfg_queue *
find_queue(const struct sp_cfg_slice *s, uint64_t id)
{
	for (uint16_t i = 0; i < s->nb_queues; i++)
		if (s->queues[i].id == id)
			return &s->queues[i];
	return NULL;
}

/* "queue" of a result: a queue the slice defines, feeding the result's port. */
static int
get_result_queue(struct parser *p, json_t *o, const char *path, const char *spath,
		 const struct sp_cfg_slice *s, struct sp_result *r)
{
	const struct sp_cfg_port *ports = p->cfg->ports;
	const struct sp_cfg_queue *q;
	char ids[SP_MAX_SLICE_QUEUES * 4] = "";
	uint16_t want, have;
	uint64_t v;

	TRY(cfg_get_uint(p, o, path, &RESULT_QUEUE, &v));
	q = find_queue(s, v);
	if (q == NULL && s->nb_queues == 0)
		return cfg_fail(p, path, SP_RESULT_QUEUE,
			        "queue %" PRIu64 " is not defined: %s.queues is "
			        "empty; define it there", v, spath);
	if (q == NULL) {
		for (uint16_t i = 0; i < s->nb_queues; i++)
			cfg_append(ids, sizeof(ids), "%s%u", i > 0 ? ", " : "", s->queues[i].id);
		return cfg_fail(p, path, SP_RESULT_QUEUE,
			        "queue %" PRIu64 " is not defined in %s.queues; "
			        "define it or use one of %s", v, spath, ids);
	}
	want = s->endpoints[r->endpoint].port;
	have = s->endpoints[q->endpoint].port;
	if (want != have)
		return cfg_fail(p, path, SP_RESULT_QUEUE,
			        "queue %u feeds endpoint %u on port %s but the "
			        "result sends from endpoint %u on port %s; use a queue of an endpoint "
			        "on %s",
			        q->id, q->endpoint, ports[have].name, r->endpoint, ports[want].name,
			        ports[want].name);
	r->queue = q->id;
	return 0;
}

static int
parse_result(struct parser *p, json_t *fo, const char *fpath, const char *spath,
	     const struct sp_cfg_slice *s, struct sp_result *r)
{
	char path[PATH_LEN], list[PATH_LEN];
	json_t *o = json_object_get(fo, SP_FILTER_RESULT);
	const char *str, *why;
	size_t n;
	int rc;

	if (o == NULL)
		return cfg_missing(p, fpath, SP_FILTER_RESULT);
	cfg_field_path(path, fpath, SP_FILTER_RESULT);
	cfg_field_path(list, spath, "endpoints");
	TRY(cfg_check_object(p, o, path, RESULT_KEYS));
	TRY(cfg_get_index(p, o, path, &RESULT_ENDPOINT, s->nb_endpoints, "endpoint", list,
			  &r->endpoint));
	TRY(get_result_queue(p, o, path, spath, s, r));
	TRY(cfg_get_string(p, o, path, SP_RESULT_NEXT_HOP, true, SIZE_MAX, &str));
	if (sp_parse_next_hop(str, r) < 0)
		return cfg_fail(p, path, SP_RESULT_NEXT_HOP,
			        "\"%s\" is not a next hop; write it as a.b.c.d:port or "
			        "[2001:db8::1]:port with a UDP port from 1 to 65535", str);
	why = sp_unusable_next_hop(r);
	if (why != NULL)
		return cfg_fail(p, path, SP_RESULT_NEXT_HOP,
			        "the address of %s %s; use the next node's "
			        "unicast address", str, why);
	rc = cfg_get_string(p, o, path, SP_RESULT_DATA, false, SIZE_MAX, &str);
	if (rc > 0 && sp_parse_hex_bytes(str, r->data, SP_RESULT_DATA_BYTES, &n) < 0)
		return cfg_fail(p, path, SP_RESULT_DATA,
			        "\"%s\" is not result data; write up to %d hex "
			        "digits, two per byte", str, 2 * SP_RESULT_DATA_BYTES);
	return rc < 0 ? rc : 0;
}

static int
get_key(struct parser *p, json_t *o, const char *path, const char *key, struct sp_key *k)
{
	const char *s;

	TRY(cfg_get_string(p, o, path, key, true, SIZE_MAX, &s));
	if (sp_parse_hex_key(s, k) < 0)
		return cfg_fail(p, path, key, "\"%s\" is not a 112-bit value; write exactly %d hex "
			        "digits, optionally after 0x", s, 2 * SP_KEY_BYTES);
	return 0;
}

/* used[pos] is 1 + the index of the filter at pos, 0 if none yet. */
static int
parse_filter(struct parser *p, json_t *o, const char *path, const char *spath,
	     const struct sp_cfg_slice *s, uint32_t i, uint32_t *used, struct sp_cfg_filter *f)
{
	uint64_t v;

	TRY(cfg_check_object(p, o, path, FILTER_KEYS));
	TRY(cfg_get_uint(p, o, path, &POSITION, &v));
	TRY(within_quota(p, path, SP_FILTER_POSITION, v, s->filter_quota, "filter_quota"));
	if (used[v] != 0)
		return cfg_fail(p, path, SP_FILTER_POSITION,
			        "%" PRIu64 " is already taken by %s.filters[%u]; "
			        "give each filter its own position", v, spath, used[v] - 1);
	used[v] = i + 1;
	f->position = (uint32_t)v;
	TRY(get_key(p, o, path, SP_FILTER_KEY, &f->key));
	TRY(get_key(p, o, path, SP_FILTER_MASK, &f->mask));
	return parse_result(p, o, path, spath, s, &f->result);
}

static int
parse_filters(struct parser *p, json_t *so, const char *spath, struct sp_cfg_slice *s)
{
	char path[PATH_LEN];
	uint32_t *used;
	json_t *arr, *o;
	size_t i;
	int rc = 0;

	TRY(cfg_get_array(p, so, spath, "filters", false, 0, s->filter_quota, &arr));
	if (arr == NULL || json_array_size(arr) == 0)
		return 0;
	s->filters = calloc(json_array_size(arr), sizeof(*s->filters));
	used = calloc(s->filter_quota, sizeof(*used));
	if (s->filters == NULL || used == NULL) {
		free(used);
		return cfg_out_of_memory(p, spath);
	}
	json_array_foreach(arr, i, o) {
		cfg_item_path(path, spath, "filters", i);
		rc = parse_filter(p, o, path, spath, s, (uint32_t)i, used, &s->filters[i]);
		if (rc < 0)
			break;
		s->nb_filters = (uint32_t)(i + 1);
	}
	free(used);
	return rc;
}

/* Quotas of all slices on one NPE must fit the NPE's tables. */
static int
parse_slice_head(struct parser *p, json_t *o, const char *path, uint16_t si,
		 struct npe_use use[])
{
	struct sp_config *cfg = p->cfg;
	struct sp_cfg_slice *s = &cfg->slices[si];
	uint64_t v;

	TRY(cfg_check_object(p, o, path, SLICE_KEYS));
	TRY(cfg_get_name(p, o, path, "name", s->name));
	if (sp_slice_name_problem(s->name) != NULL)
		return cfg_fail(p, path, "name", "\"%s\" %s", s->name,
				sp_slice_name_problem(s->name));
	TRY(cfg_get_uint(p, o, path, &SLICE_ID, &v));
	s->id = (uint16_t)v;
	for (uint16_t k = 0; k < si; k++) {
		if (strcmp(cfg->slices[k].name, s->name) == 0)
			return cfg_fail(p, path, "name", "\"%s\" is already the name of slices[%u]; "
				        "give each slice its own name", s->name, k);
		if (cfg->slices[k].id == s->id)
			return cfg_fail(p, path, "id", "%u is already the id of slices[%u] (%s); give "
				        "each slice its own id", s->id, k, cfg->slices[k].name);
	}
	TRY(cfg_get_text(p, o, path, "codeopt", s->codeopt, sizeof(s->codeopt)));
	if (strcmp(s->codeopt, SP_CODEOPT_HOST) == 0)
		return cfg_fail(p, path, "codeopt", "host slices are made at run time, in a network "
			        "namespace (slicectl slice create NAME codeopt host netns NS)");
	if (json_object_get(o, "codeopt_data") != NULL)
		TRY(cfg_get_text(p, o, path, "codeopt_data", s->codeopt_data,
				 sizeof(s->codeopt_data)));
	TRY(cfg_get_index(p, o, path, &SLICE_NPE, cfg->nb_npes, "NPE", "npes", &s->npe));
	TRY(cfg_get_uint(p, o, path, &SLICE_MEMORY, &v));
	s->mem_bytes = (uint32_t)v;
	TRY(cfg_get_uint(p, o, path, &FILTER_QUOTA, &v));
	s->filter_quota = (uint32_t)v;
	TRY(cfg_get_uint(p, o, path, &QUEUE_QUOTA, &v));
	s->queue_quota = (uint16_t)v;
	TRY(cfg_get_uint(p, o, path, &BUFFER_QUOTA, &v));
	s->buffer_quota = (uint32_t)v;

	use[s->npe].filters += s->filter_quota;
	if (use[s->npe].filters > cfg->npes[s->npe].filters)
		return cfg_fail(p, path, "filter_quota", "the slices on NPE %u need %" PRIu64
			        " filters in all but npes[%u].filters is %u; lower the slices' "
			        "filter_quota or raise npes[%u].filters", s->npe, use[s->npe].filters,
			        s->npe, cfg->npes[s->npe].filters, s->npe);
	use[s->npe].queues += s->queue_quota;
	if (use[s->npe].queues > cfg->npes[s->npe].queues)
		return cfg_fail(p, path, "queue_quota", "the slices on NPE %u need %" PRIu64 " queues "
			        "in all but npes[%u].queues is %u; lower the slices' queue_quota or "
			        "raise npes[%u].queues", s->npe, use[s->npe].queues, s->npe,
			        cfg->npes[s->npe].queues, s->npe);
	return 0;
}

int
cfg_parse_slices(struct parser *p, json_t *root)
{
	struct sp_config *cfg = p->cfg;
	struct npe_use use[SP_MAX_NPES] = { { 0 } };
	char path[PATH_LEN];
	json_t *arr, *o;
	size_t i;

	TRY(cfg_get_array(p, root, "", "slices", false, 0, SP_MAX_SLICES - 1, &arr));
	json_array_foreach(arr, i, o) {
		struct sp_cfg_slice *s = &cfg->slices[i];

		/* Count it first, so sp_config_free() sees its filters on error. */
		cfg->nb_slices = (uint16_t)(i + 1);
		cfg_item_path(path, "", "slices", i);
		TRY(parse_slice_head(p, o, path, (uint16_t)i, use));
		TRY(parse_endpoints(p, o, path, (uint16_t)i, use));
		TRY(parse_queues(p, o, path, s));
		TRY(parse_filters(p, o, path, s));
	}
	return 0;
}

