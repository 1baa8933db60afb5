/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * filter.insert, filter.delete, filter.list: a slice's filters, in the
 * config's format (docs/config.md, docs/api.md), written to its NPE's
 * lookup table while traffic flows (the table publishes with RCU).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "../common/filter_json.h"
#include "rpc.h"

/* A filter as filter.list and state.dump show it. */
static json_t *
filter_json(uint32_t pos, const struct sp_filter *f, uint64_t hits)
{
	json_t *o = sp_filter_json(pos, &f->key, &f->mask, &f->result);

	json_object_set_new(o, SP_FILTER_HITS, json_integer((json_int_t)hits));
	return o;
}

json_t *
sp_rpc_filters_of(const struct sp_node *node, const struct sp_slice *s)
{
	const struct sp_lookup *t = node->npes[s->npe].lookup;
	json_t *list = json_array();
	struct sp_filter f;
	uint64_t hits;

	for (uint32_t pos = 0; sp_lookup_next(t, s->id, &pos) == 0; pos++)
		if (sp_lookup_read(t, s->id, pos, &f, &hits) == 0)
			json_array_append_new(list, filter_json(pos, &f, hits));
	return list;
}

/* The result's endpoint and queue: the slice's, the queue bound and feeding the endpoint's port. */
static int
check_target(const struct sp_node *node, const struct sp_slice *s, const struct sp_result *r,
	     const char *where, struct sp_rpc_error *e)
{
	uint16_t port;

	if (r->endpoint >= s->nb_endpoints || s->endpoints[r->endpoint] == SP_ENDPOINT_NONE) {
		sp_rpc_fail(e, SP_RPC_NOT_FOUND, "%s" SP_FILTER_RESULT "." SP_RESULT_ENDPOINT
			    " %u: slice %s has no endpoint %u", where, r->endpoint, s->name,
			    r->endpoint);
		return -1;
	}
	if (r->queue >= s->queue_quota || s->qmap[r->queue] == SP_QUEUE_UNBOUND) {
		sp_rpc_fail(e, SP_RPC_NOT_FOUND, "%s" SP_FILTER_RESULT "." SP_RESULT_QUEUE
			    " %u: slice %s has no queue %u bound", where, r->queue, s->name,
			    r->queue);
		return -1;
	}
	port = node->endpoints[s->endpoints[r->endpoint]].port;
	if (s->qport[r->queue] != port) {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "%s" SP_FILTER_RESULT "." SP_RESULT_QUEUE
			    " %u feeds port %s but endpoint %u is on %s; use a queue of that port",
			    where, r->queue, node->ports[s->qport[r->queue]].name, r->endpoint,
			    node->ports[port].name);
		return -1;
	}
	return 0;
}

/* One filter object: position, key, mask, result. where prefixes messages ("filters[3]."). */
static int
parse_filter(const struct sp_node *node, const struct sp_slice *s, json_t *o, const char *where,
	     uint32_t *pos, struct sp_filter *f, struct sp_rpc_error *e)
{
	if (sp_filter_from_json(o, where, true, pos, &f->key, &f->mask, &f->result, e) < 0 ||
	    check_target(node, s, &f->result, where, e) < 0)
		return -1;
	if (*pos >= s->filter_quota) {
		sp_rpc_fail(e, SP_RPC_QUOTA, "%s" SP_FILTER_POSITION " %u is beyond slice %s's "
			    "filter quota of %u (positions 0 to %u)", where, *pos, s->name,
			    s->filter_quota, s->filter_quota - 1);
		return -1;
	}
	return 0;
}

/* What a lookup table error means to the caller. */
static json_t *
table_error(const struct sp_slice *s, int rc, struct sp_rpc_error *e)
{
	if (rc == -ENOMEM)
		return sp_rpc_fail(e, SP_RPC_NO_ROOM, "NPE %u has no memory to compile slice %s's "
				   "filters; the write is kept and shows once a compile succeeds",
				   s->npe, s->name);
	return sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "slice %s's filter table: %s", s->name,
			   strerror(-rc));
}

/* One filter's keys or "filters": [...], never both (which would one mean?). */
static int
one_form(json_t *params, struct sp_rpc_error *e)
{
	static const char *const single[] = {SP_FILTER_FIELDS(SP_FIELD_ELEMENT)};

	if (json_object_get(params, "filters") == NULL)
		return 0;
	for (size_t i = 0; i < RTE_DIM(single); i++)
		if (json_object_get(params, single[i]) != NULL) {
			sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"%s\" beside \"filters\": give one "
				    "filter (%s) or \"filters\": [...], not both", single[i],
				    SP_FILTER_FIELD_NAMES);
			return -1;
		}
	return 0;
}

/* A position twice in one batch: which filter would it hold? Refused, naming both. */
static int
twice(const struct sp_slice *s, const uint32_t *pos, size_t n, struct sp_rpc_error *e)
{
	/* Positions are below the slice's filter quota (parse_filter() checked). */
	uint32_t *first = malloc(s->filter_quota * sizeof(*first));
	int rc = 0;

	if (first == NULL) {
		sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "out of memory");
		return -1;
	}
	memset(first, 0xff, s->filter_quota * sizeof(*first));
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (first[pos[i]] != UINT32_MAX) {
			sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "filters[%zu]." SP_FILTER_POSITION
				    " %u is also filters[%u]'s; a batch writes each position once",
				    i, pos[i], first[pos[i]]);
			rc = -1;
		}
		first[pos[i]] = (uint32_t)i;
	}
	free(first);
	return rc;
}

/*
 * {"slice", "position", "key", "mask", "result"}: one filter; or
 * {"slice", "filters": [...]}: many, checked first and written together
 * (one compile). Either all are written or none.
 */
static json_t *
filter_insert(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	json_t *list = json_object_get(params, "filters"), *o;
	struct sp_filter *f = NULL;
	uint32_t *pos = NULL;
	struct sp_slice *s;
	uint64_t ticket = 0;
	size_t n, i;
	bool ok;
	int rc;

	if (sp_rpc_slice(node, params, &s, e) < 0 || one_form(params, e) < 0)
		return NULL;
	if (list == NULL) {
		struct sp_filter one;
		uint32_t p;

		if (parse_filter(node, s, params, "", &p, &one, e) < 0)
			return NULL;
		rc = sp_lookup_write_bulk_nowait(node->npes[s->npe].lookup, s->id, &p, &one, 1,
						 &ticket);
		rc = sp_rpc_answer_when_shown(node, s, rc, ticket, &p, 1);
		return rc < 0 ? table_error(s, rc, e) : json_pack("{s:i}", "written", 1);
	}
	n = json_array_size(list);
	if (!json_is_array(list) || n == 0 || n > SP_MAX_FILTER_BATCH)
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"filters\" must be an array of 1 to %d "
				   "filter objects", SP_MAX_FILTER_BATCH);
	pos = malloc(n * sizeof(*pos));
	f = malloc(n * sizeof(*f));
	if (pos == NULL || f == NULL) {
		free(pos);
		free(f);
		return sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "out of memory for %zu filters", n);
	}
	json_array_foreach(list, i, o) {
		char where[32];

		snprintf(where, sizeof(where), "filters[%zu].", i);
		if (parse_filter(node, s, o, where, &pos[i], &f[i], e) < 0)
			break;
	}
	ok = i == n && twice(s, pos, n, e) == 0;
	rc = ok ? sp_lookup_write_bulk_nowait(node->npes[s->npe].lookup, s->id, pos, f,
					      (uint32_t)n, &ticket) : 0;
	if (ok)
		rc = sp_rpc_answer_when_shown(node, s, rc, ticket, pos, (uint32_t)n);
	free(pos);
	free(f);
	if (!ok)
		return NULL;
	return rc < 0 ? table_error(s, rc, e) : json_pack("{s:I}", "written", (json_int_t)n);
}
SP_RPC_METHOD(FILTER_INSERT, filter_insert)

/* {"slice", "position"}: delete the filter there. */
static json_t *
filter_delete(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	struct sp_slice *s;
	uint64_t p, ticket = 0;
	uint32_t at;
	int rc;

	if (sp_rpc_slice(node, params, &s, e) < 0 ||
	    sp_rpc_uint(params, SP_FILTER_POSITION, UINT32_MAX, &p, e) < 0)
		return NULL;
	if (p >= s->filter_quota)
		return sp_rpc_fail(e, SP_RPC_QUOTA, SP_FILTER_POSITION " %" PRIu64 " is beyond "
				   "slice %s's filter quota of %u", p, s->name, s->filter_quota);
	at = (uint32_t)p;
	rc = sp_lookup_delete_nowait(node->npes[s->npe].lookup, s->id, at, &ticket);
	rc = sp_rpc_answer_when_shown(node, s, rc, ticket, &at, 1);
	if (rc == -ENOENT)
		return sp_rpc_fail(e, SP_RPC_NOT_FOUND, "slice %s has no filter at position %" PRIu64,
				   s->name, p);
	return rc < 0 ? table_error(s, rc, e) : json_pack("{s:i}", "deleted", 1);
}
SP_RPC_METHOD(FILTER_DELETE, filter_delete)

/* {"slice"}: every filter, in position order, with its hit count. */
static json_t *
filter_list(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	struct sp_slice *s;

	if (sp_rpc_slice(node, params, &s, e) < 0)
		return NULL;
	return sp_rpc_filters_of(node, s);
}
SP_RPC_METHOD(FILTER_LIST, filter_list)
