/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stats.missed: a slice's last missed keys (npe/missed.h) as filters are
 * written, with the endpoint and port they came in on and how long ago;
 * telemetry's /slicepath/missed shows the same (sp_missed_show()).
 */
#include <rte_cycles.h>

#include "../common/text.h"
#include "../stats/stats.h"
#include "rpc.h"

/* Slice s's endpoint index of node endpoint ep, or -1 (released since: then not its any more). */
static int
endpoint_index(const struct sp_node *node, const struct sp_slice *s, uint16_t ep)
{
	if (ep >= SP_MAX_ENDPOINTS || node->endpoints[ep].slice != s->id)
		return -1;
	for (uint16_t i = 0; i < s->nb_endpoints && i < SP_MAX_SLICE_ENDPOINTS; i++)
		if (s->endpoints[i] == ep)
			return i;
	return -1;
}

unsigned int
sp_missed_show(const struct sp_node *node, const struct sp_slice *s,
	       struct sp_missed_shown out[SP_MISSED_KEEP])
{
	struct sp_missed_key k[SP_MISSED_KEEP];
	unsigned int n = sp_missed_read(&s->missed, k);
	uint64_t now = rte_rdtsc(), per_ms = rte_get_tsc_hz() / 1000;

	for (unsigned int i = 0; i < n; i++) {
		struct sp_missed_shown *o = &out[i];

		sp_format_hex(o->key, k[i].key.b, SP_KEY_BYTES);
		o->endpoint = endpoint_index(node, s, k[i].in_ep);
		o->port = o->endpoint < 0 ? NULL : node->ports[node->endpoints[k[i].in_ep].port].name;
		o->injected = k[i].injected;
		/* An lcore's TSC may be a little ahead of this thread's. */
		o->age_ms = now > k[i].tsc && per_ms > 0 ? (now - k[i].tsc) / per_ms : 0;
	}
	return n;
}

/* {"slice"} -> its last missed keys, newest first, and its misses in all. */
static json_t *
stats_missed(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	struct sp_missed_shown m[SP_MISSED_KEEP];
	uint64_t reasons[SP_REASON_MAX];
	struct sp_slice *s;
	json_t *list;
	unsigned int n;

	if (sp_rpc_slice(node, params, &s, e) < 0)
		return NULL;
	n = sp_missed_show(node, s, m);
	list = json_array();
	for (unsigned int i = 0; i < n; i++) {
		json_t *o = json_pack("{s:s, s:b, s:I}", "key", m[i].key, "injected", m[i].injected,
				      "age_ms", (json_int_t)m[i].age_ms);

		if (m[i].endpoint >= 0) {
			json_object_set_new(o, "endpoint", json_integer(m[i].endpoint));
			json_object_set_new(o, "port", json_string(m[i].port));
		}
		json_array_append_new(list, o);
	}
	sp_stats_slice_reasons(s->id, reasons);
	return json_pack("{s:s, s:s, s:i, s:I, s:o}", "slice", s->name, "codeopt", s->co->name,
			 "keep", SP_MISSED_KEEP, "misses", (json_int_t)reasons[SP_REASON_MISS],
			 "missed", list);
}
SP_RPC_METHOD(STATS_MISSED, stats_missed)
