/* SPDX-License-Identifier: BSD-3-Clause */
/* mem.read, mem.write, stats.get and state.dump. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>

#include "../stats/stats.h"
#include "channel.h"
#include "../common/text.h"
#include "rpc.h"

#define MAX_MEM_IO 65536 /* bytes in one mem.read or mem.write */

/* "slice" and "offset" of mem.read and mem.write: a slice that has memory at all. */
static int
mem_slice(struct sp_node *node, json_t *params, struct sp_slice **s, uint64_t *off,
	  struct sp_rpc_error *e)
{
	if (sp_rpc_slice(node, params, s, e) < 0)
		return -1;
	if ((*s)->mem_size == 0) {
		sp_rpc_fail(e, SP_RPC_QUOTA, "slice %s has no memory: it was created with memory 0 "
			    "(slice.create's \"memory\")", (*s)->name);
		return -1;
	}
	return sp_rpc_uint(params, "offset", UINT32_MAX, off, e);
}

/* {"slice", "offset", "length"} -> {"data": hex} */
json_t *
sp_rpc_mem_read(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	uint64_t off, len;
	struct sp_slice *s;
	json_t *r;
	char *hex;

	if (mem_slice(node, params, &s, &off, e) < 0 ||
	    sp_rpc_uint(params, "length", MAX_MEM_IO, &len, e) < 0)
		return NULL;
	if (off + len > s->mem_size)
		return sp_rpc_fail(e, SP_RPC_QUOTA, "bytes %" PRIu64 " to %" PRIu64 " are beyond slice "
				   "%s's memory of %zu bytes", off, off + len, s->name, s->mem_size);
	hex = malloc(2 * len + 1);
	if (hex == NULL)
		return sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "out of memory");
	hex[0] = '\0';
	for (uint64_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", s->mem[off + i]);
	r = json_pack("{s:s}", "data", hex);
	free(hex);
	return r;
}

/* {"slice", "offset", "data": hex}: the code option sees the bytes as they land. */
json_t *
sp_rpc_mem_write(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	const char *hex;
	uint8_t *bytes;
	struct sp_slice *s;
	uint64_t off;
	size_t n;

	if (mem_slice(node, params, &s, &off, e) < 0 || sp_rpc_string(params, "data", &hex, e) < 0)
		return NULL;
	bytes = malloc(MAX_MEM_IO);
	if (bytes == NULL)
		return sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "out of memory");
	if (sp_parse_hex_bytes(hex, bytes, MAX_MEM_IO, &n) < 0) {
		free(bytes);
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"data\" must be hex digits, two per "
				   "byte, at most %d bytes", MAX_MEM_IO);
	}
	if (off + n > s->mem_size) {
		free(bytes);
		return sp_rpc_fail(e, SP_RPC_QUOTA, "bytes %" PRIu64 " to %" PRIu64 " are beyond "
				   "slice %s's memory of %zu bytes", off, off + n, s->name,
				   s->mem_size);
	}
	memcpy(s->mem + off, bytes, n);
	free(bytes);
	return json_pack("{s:I}", "written", (json_int_t)n);
}

/* {"slice", "data": hex}: to the slice's code option (an eBPF object, patterns...). */
json_t *
sp_rpc_codeopt_load(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	char why[sizeof(e->message)];
	const char *hex;
	uint8_t *bytes;
	struct sp_slice *s;
	size_t n;
	int rc;

	if (sp_rpc_slice(node, params, &s, e) < 0 || sp_rpc_string(params, "data", &hex, e) < 0)
		return NULL;
	bytes = malloc(SP_MAX_CODEOPT_DATA);
	if (bytes == NULL)
		return sp_rpc_fail(e, SP_RPC_INTERNAL_ERROR, "out of memory");
	if (sp_parse_hex_bytes(hex, bytes, SP_MAX_CODEOPT_DATA, &n) < 0) {
		free(bytes);
		return sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"data\" must be hex digits, two per "
				   "byte, at most %u bytes", SP_MAX_CODEOPT_DATA);
	}
	rc = sp_node_codeopt_load(node, s, bytes, n, why, sizeof(why));
	free(bytes);
	if (rc < 0)
		return sp_rpc_fail(e, rc == -ENOMEM ? SP_RPC_INTERNAL_ERROR : SP_RPC_INVALID_PARAMS,
				   "%s", why);
	return json_pack("{s:I}", "loaded", (json_int_t)n);
}

static json_t *
counter(json_t *o, const char *name, const struct sp_counter *c)
{
	char key[64];

	snprintf(key, sizeof(key), "%s_pkts", name);
	json_object_set_new(o, key, json_integer((json_int_t)c->pkts));
	snprintf(key, sizeof(key), "%s_bytes", name);
	json_object_set_new(o, key, json_integer((json_int_t)c->bytes));
	return o;
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

/*
 * The sampled residence times (lc/residence.h) since start: the
 * summary, and the buckets that hold any by their largest value, from which
 * a reader that keeps two readings works out a window's percentiles.
 */
static json_t *
residence(void)
{
	static struct sp_latency l; /* 8 KB; the management thread is the only caller */
	json_t *buckets = json_object(), *r;
	char top[24];

	sp_stats_residence(&l);
	for (unsigned int b = 0; b < SP_LAT_BUCKETS; b++) {
		if (l.bucket[b] == 0)
			continue;
		snprintf(top, sizeof(top), "%" PRIu64, sp_latency_bucket_top(b));
		json_object_set_new(buckets, top, json_integer((json_int_t)l.bucket[b]));
	}
	r = sp_latency_json(&l);
	json_object_set_new(r, "sum", json_integer((json_int_t)l.sum_ns));
	json_object_set_new(r, "buckets", buckets);
	return r;
}

static json_t *
slice_counters(const struct sp_slice *s)
{
	struct sp_slice_stats st;
	json_t *o = json_object();

	sp_stats_slice(s->id, &st);
	counter(o, "rx", &st.rx);
	counter(o, "fwd", &st.fwd);
	counter(o, "exception", &st.exception);
	counter(o, "drop", &st.drop);
	counter(o, "to_slow_path", &st.to_slow_path);
	counter(o, "injected", &st.injected);
	json_object_set_new(o, "inject_dropped", json_integer((json_int_t)st.inject_dropped));
	json_object_set_new(o, "reasons", reasons(st.reason));
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
		json_object_update_new(o, json_pack("{s:s, s:I, s:I, s:I, s:I, s:o, s:i, s:i}",
						    "port", node->ports[s->qport[q]].name,
						    "enq_pkts", (json_int_t)qs.enq_pkts,
						    "enq_bytes", (json_int_t)qs.enq_bytes,
						    "sent_pkts", (json_int_t)qs.sent_pkts,
						    "sent_bytes", (json_int_t)qs.sent_bytes,
						    "drops", drops, "len_pkts", (int)qs.len_pkts,
						    "len_bytes", (int)qs.len_bytes));
		snprintf(id, sizeof(id), "%u", q);
		json_object_set_new(all, id, o);
	}
	return all;
}

/* Endpoint index i of a slice, which is in node->endpoints[slot]: what it reserves. */
static json_t *
endpoint_json(const struct sp_node *node, uint16_t i, uint16_t slot)
{
	const struct sp_endpoint *ep = &node->endpoints[slot];

	return json_pack("{s:i, s:s, s:i, s:I, s:I}", "index", i, "port",
			 node->ports[ep->port].name, "udp_port", ntohs(ep->udp_port_be),
			 "bandwidth", (json_int_t)ep->bandwidth_bps, "inbound",
			 (json_int_t)ep->inbound_bps);
}

static json_t *
endpoint_counters(const struct sp_node *node, const struct sp_slice *s)
{
	json_t *list = json_array();

	for (uint16_t i = 0; i < s->nb_endpoints; i++) {
		struct sp_endpoint_stats st;
		json_t *o;

		if (s->endpoints[i] == SP_ENDPOINT_NONE)
			continue;
		sp_stats_endpoint(s->endpoints[i], &st);
		o = endpoint_json(node, i, s->endpoints[i]);
		counter(o, "rx", &st.rx);
		json_array_append_new(list, counter(o, "tx", &st.tx));
	}
	return list;
}

/* {} -> ports, drops, slices; {"slice"} -> that slice's counters, endpoints and queues. */
json_t *
sp_rpc_stats_get(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	json_t *ports, *slices;
	uint64_t r[SP_REASON_MAX], learned, changed;
	struct sp_slice *s;

	if (json_object_get(params, "slice") != NULL) {
		if (sp_rpc_slice(node, params, &s, e) < 0)
			return NULL;
		return json_pack("{s:o, s:o, s:o}", "slice", slice_counters(s), "endpoints",
				 endpoint_counters(node, s), "queues", queue_counters(node, s));
	}
	ports = json_object();
	for (uint16_t p = 0; p < node->nb_ports; p++) {
		struct sp_port_stats st;
		json_t *o = json_object();

		sp_stats_port(p, &st);
		counter(o, "rx", &st.rx);
		counter(o, "tx", &st.tx);
		json_object_set_new(ports, node->ports[p].name, counter(o, "tx_drop", &st.tx_drop));
	}
	slices = json_object();
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		if (node->slices[i] != NULL)
			json_object_set_new(slices, node->slices[i]->name,
					    slice_counters(node->slices[i]));
	sp_stats_reasons(r);
	sp_stats_arp(&learned, &changed);
	return json_pack("{s:o, s:o, s:o, s:o, s:{s:I, s:I}}", "ports", ports, "drops", reasons(r),
			 "slices", slices, "residence_ns", residence(), "arp", "learned",
			 (json_int_t)learned, "changed", (json_int_t)changed);
}

static json_t *
slice_state(const struct sp_node *node, const struct sp_slice *s)
{
	json_t *eps = json_array(), *queues = json_array();

	for (uint16_t i = 0; i < s->nb_endpoints; i++)
		if (s->endpoints[i] != SP_ENDPOINT_NONE)
			json_array_append_new(eps, endpoint_json(node, i, s->endpoints[i]));
	for (uint16_t q = 0; q < s->queue_quota; q++) {
		json_t *o = sp_rpc_queue_json(node, s, q);

		if (o != NULL)
			json_array_append_new(queues, o);
	}
	json_t *o = sp_rpc_slice_json(node, s);

	json_object_set_new(o, "endpoints", eps);
	json_object_set_new(o, "queues", queues);
	json_object_set_new(o, "filters", sp_rpc_filters_of(node, s));
	return o;
}

/* Every NPE's scheduler on every port: rate, overhead, bandwidth reserved. */
static json_t *
schedulers(const struct sp_node *node)
{
	json_t *list = json_array();

	for (uint16_t n = 0; n < node->nb_npes; n++)
		for (uint16_t p = 0; p < node->nb_ports; p++)
			json_array_append_new(list, sp_rpc_sched_json(node, n, p));
	return list;
}

/*
 * The schedulers (rate, overhead, bandwidth reserved) and every slice as
 * they are in force now, in the config's format (filters with their hits).
 */
json_t *
sp_rpc_state_dump(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	json_t *slices = json_array();

	(void)params;
	(void)e;
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		if (node->slices[i] != NULL)
			json_array_append_new(slices, slice_state(node, node->slices[i]));
	return json_pack("{s:o, s:o}", "schedulers", schedulers(node), "slices", slices);
}

static json_t *
port_info(const struct sp_node *node, uint16_t p)
{
	const struct sp_port *port = &node->ports[p];
	char ip[INET_ADDRSTRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];
	struct in_addr a = {.s_addr = port->ip_be};

	inet_ntop(AF_INET, &a, ip, sizeof(ip));
	rte_ether_format_addr(mac, sizeof(mac), &port->mac);
	return json_pack("{s:s, s:i, s:s, s:s, s:I, s:I, s:i, s:i, s:i}", "name", port->name,
			 "index", p, "ipv4", ip, "mac", mac, "rate", (json_int_t)port->rate_bps,
			 "inbound_reserved", (json_int_t)sp_node_inbound_reserved(node, p),
			 "overhead", port->overhead, "rx_desc", port->rx_desc, "tx_desc",
			 port->tx_desc);
}

/*
 * What does not change while the daemon runs, and the NPEs' room: ports,
 * NPEs (capacity and what their slices' quotas take), schedulers, packet
 * buffers, the exception channels' directory. slicectld plans admission
 * with it.
 */
json_t *
sp_rpc_node_info(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	json_t *ports = json_array(), *npes = json_array();

	(void)params;
	(void)e;
	for (uint16_t p = 0; p < node->nb_ports; p++)
		json_array_append_new(ports, port_info(node, p));
	for (uint16_t n = 0; n < node->nb_npes; n++) {
		const struct sp_npe *npe = &node->npes[n];

		json_array_append_new(npes, json_pack("{s:i, s:i, s:I, s:I, s:I, s:I}", "id", n,
						      "lcore", npe->lcore, "filters",
						      (json_int_t)npe->filter_capacity,
						      "queues", (json_int_t)npe->queue_capacity,
						      "filter_quotas", (json_int_t)npe->filter_quotas,
						      "queue_quotas", (json_int_t)npe->queue_quotas));
	}
	return json_pack("{s:s, s:o, s:o, s:o, s:I, s:s, s:i}", "version", SP_VERSION, "ports",
			 ports, "npes", npes, "schedulers", schedulers(node), "mbufs",
			 (json_int_t)node->nb_mbufs, "channel_dir",
			 sp_channels_dir(node->channels), "max_slices",
			 SP_MAX_SLICES - 1);
}
