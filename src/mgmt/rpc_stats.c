/* SPDX-License-Identifier: BSD-3-Clause */
/* stats.get: the counters of the node, or of one slice with its endpoints and queues. */
#include <inttypes.h>
#include <stdio.h>

#include "../stats/stats.h"
#include "rpc.h"

/* A reading into a JSON object (sp_stats_fn). */
static void
json_field(void *o, const char *name, uint64_t value)
{
	json_object_set_new(o, name, json_integer((json_int_t)value));
}

static json_t *
reasons(const uint64_t *r)
{
	json_t *o = json_object();

	for (unsigned int i = 1; i < SP_REASON_MAX; i++)
		if (r[i] != 0)
			json_object_set_new(o, sp_reason_name(i), json_integer((json_int_t)r[i]));
	return o;
}

/* The sampled residence times (lc/residence.h) since start. */
static json_t *
residence(void)
{
	static struct sp_latency l; /* 8 KB; the management thread is the only caller */

	sp_stats_residence(&l);
	return sp_latency_histogram_json(&l);
}

static json_t *
slice_counters(const struct sp_slice *s)
{
	uint64_t r[SP_REASON_MAX];
	json_t *o = json_object();

	sp_stats_slice_read(s->id, json_field, o);
	sp_stats_slice_reasons(s->id, r);
	json_object_set_new(o, "reasons", reasons(r));
	return o;
}

static json_t *
queue_counters(const struct sp_node *node, const struct sp_slice *s)
{
	json_t *all = json_object();

	for (uint16_t q = 0; q < s->queue_quota; q++) {
		struct sp_qm_queue_stats qs;
		json_t *o, *drops;
		char id[8];

		if (s->qmap[q] == SP_QUEUE_UNBOUND ||
		    sp_qm_queue_stats(node->npes[s->npe].qm, s->qmap[q], &qs) < 0)
			continue;
		drops = json_object();
		for (unsigned int r = 0; r < SP_QM_DROP_MAX; r++)
			json_object_set_new(drops, sp_qm_drop_name(r), json_pack("{s:I, s:I}", "pkts",
					    (json_int_t)qs.drop_pkts[r], "bytes",
					    (json_int_t)qs.drop_bytes[r]));
		/* Its configuration, then its counters. */
		o = sp_rpc_queue_json(node, s, q);
		json_object_set_new(o, "port", json_string(node->ports[s->qport[q]].name));
#define SET_QUEUE_PAIR(name, what)                                                                 \
	json_field(o, #name "_pkts", qs.name##_pkts);                                              \
	json_field(o, #name "_bytes", qs.name##_bytes);
		SP_QUEUE_COUNTERS(SET_QUEUE_PAIR)
		json_object_set_new(o, "drops", drops);
		SP_QUEUE_LENGTHS(SET_QUEUE_PAIR)
#undef SET_QUEUE_PAIR
		snprintf(id, sizeof(id), "%u", q);
		json_object_set_new(all, id, o);
	}
	return all;
}

static json_t *
endpoint_counters(const struct sp_node *node, const struct sp_slice *s)
{
	json_t *list = json_array();

	for (uint16_t i = 0; i < s->nb_endpoints; i++) {
		json_t *o;

		if (s->endpoints[i] == SP_ENDPOINT_NONE)
			continue;
		o = sp_rpc_endpoint_json(node, i, s->endpoints[i]);
		sp_stats_endpoint_read(s->endpoints[i], json_field, o);
		json_array_append_new(list, o);
	}
	return list;
}

/* {} -> ports, drops, slices; {"slice"} -> that slice's counters, endpoints and queues. */
static json_t *
stats_get(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	json_t *ports, *slices, *arp;
	uint64_t r[SP_REASON_MAX];
	struct sp_slice *s;

	if (json_object_get(params, "slice") != NULL) {
		if (sp_rpc_slice(node, params, &s, e) < 0)
			return NULL;
		return json_pack("{s:o, s:o, s:o}", "slice", slice_counters(s), "endpoints",
				 endpoint_counters(node, s), "queues", queue_counters(node, s));
	}
	ports = json_object();
	for (uint16_t p = 0; p < node->nb_ports; p++) {
		json_t *o = json_object();

		sp_stats_port_read(p, json_field, o);
		json_object_set_new(ports, node->ports[p].name, o);
	}
	slices = json_object();
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		if (node->slices[i] != NULL)
			json_object_set_new(slices, node->slices[i]->name,
					    slice_counters(node->slices[i]));
	sp_stats_reasons(r);
	arp = json_object();
	sp_stats_arp_read(json_field, arp);
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "ports", ports, "drops", reasons(r), "slices",
			 slices, SP_STATS_RESIDENCE, residence(), SP_STATS_ARP, arp);
}
SP_RPC_METHOD(STATS_GET, stats_get)
