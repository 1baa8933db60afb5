/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /slicepath/... DPDK telemetry commands, so dpdk-telemetry.py and any
 * telemetry client read the node's counters. Callbacks run in DPDK's
 * telemetry thread and only read: counters are summed over lcores on read.
 * Tables the management thread may change are read as an RCU reader, so
 * nothing is freed under a callback.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "../stats/stats.h"
#include "mgmt.h"
#include "rpc.h"
#include "../node/steer.h"

static const struct sp_node *tnode;
/* DPDK runs a telemetry thread per client; they share one RCU reader id. */
static pthread_mutex_t reader_lock = PTHREAD_MUTEX_INITIALIZER;

/* A reading into a telemetry dictionary (sp_stats_fn). */
static void
tel_field(void *d, const char *name, uint64_t value)
{
	rte_tel_data_add_dict_u64(d, name, value);
}

static void
add_ipv4(struct rte_tel_data *d, const char *name, uint32_t ip_be)
{
	const uint8_t *b = (const uint8_t *)&ip_be;
	char s[16];

	snprintf(s, sizeof(s), "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	rte_tel_data_add_dict_string(d, name, s);
}

static void
add_mac(struct rte_tel_data *d, const char *name, const struct rte_ether_addr *mac)
{
	char s[RTE_ETHER_ADDR_FMT_SIZE];

	rte_ether_format_addr(s, sizeof(s), mac);
	rte_tel_data_add_dict_string(d, name, s);
}

static const struct sp_slice *
find_slice(const char *param)
{
	char *end;
	unsigned long id;

	if (param == NULL || *param == '\0')
		return NULL;
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		if (tnode->slices[i] != NULL && strcmp(tnode->slices[i]->name, param) == 0)
			return tnode->slices[i];
	id = strtoul(param, &end, 10);
	return *end == '\0' && id < SP_MAX_SLICES ? tnode->slices[id] : NULL;
}

static int
cmd_info(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	unsigned int slices = 0;

	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		slices += tnode->slices[i] != NULL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", SP_VERSION);
	rte_tel_data_add_dict_string(d, "state", tnode->quit ? "stopping" : "running");
	rte_tel_data_add_dict_u64(d, "ports", tnode->nb_ports);
	rte_tel_data_add_dict_u64(d, "slices", slices);
	rte_tel_data_add_dict_u64(d, "npes", tnode->nb_npes);
	rte_tel_data_add_dict_u64(d, "endpoints", tnode->nb_endpoints);
	return 0;
}

static int
cmd_ports(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	for (uint16_t p = 0; p < tnode->nb_ports; p++) {
		const struct sp_port *port = &tnode->ports[p];
		struct rte_tel_data *c = rte_tel_data_alloc();

		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "port_id", port->port_id);
		add_ipv4(c, "ipv4", port->ip_be);
		add_mac(c, "mac", &port->mac);
		rte_tel_data_add_dict_u64(c, "rate_bps", port->rate_bps);
		rte_tel_data_add_dict_u64(c, "rx_queues", port->nb_rxq);
		rte_tel_data_add_dict_u64(c, "tx_queues", port->nb_txq);
		rte_tel_data_add_dict_string(c, "steering", sp_steer_name(tnode, p));
		rte_tel_data_add_dict_string(c, "steering_note", sp_steer_note(tnode, p));
		rte_tel_data_add_dict_u64(c, "steering_rules", sp_steer_rules(tnode, p));
		sp_stats_port_read(p, tel_field, c);
		rte_tel_data_add_dict_container(d, port->name, c, 0);
	}
	return 0;
}

static int
cmd_drops(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	uint64_t reasons[SP_REASON_MAX];

	sp_stats_reasons(reasons);
	rte_tel_data_start_dict(d);
	for (unsigned int r = SP_REASON_NONE + 1; r < SP_REASON_MAX; r++)
		rte_tel_data_add_dict_u64(d, sp_reason_name(r), reasons[r]);
	return 0;
}

/* Each forwarding lcore: its roles and its share of the work (SP_LCORE_WORK_COUNTS). */
static int
cmd_lcores(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < tnode->nb_lcores; i++) {
		unsigned int lcore = tnode->lcores[i];
		const struct sp_lcore_work *w = &sp_stats_lcore(lcore)->work;
		struct rte_tel_data *c = rte_tel_data_alloc();
		char name[16], npes[SP_MAX_NPES * 4] = "";
		size_t off = 0;

		if (c == NULL)
			return -ENOMEM;
		/* A list as text: a container in a container's container is more than DPDK takes. */
		for (uint16_t e = 0; e < tnode->nb_npes; e++)
			if (tnode->npes[e].lcore == lcore)
				off += (size_t)snprintf(npes + off, sizeof(npes) - off, "%s%u",
							off > 0 ? "," : "", e);
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_int(c, "lc_index", sp_node_lc_index(tnode, lcore));
		rte_tel_data_add_dict_string(c, "npes", npes);
#define ADD_WORK_COUNT(name, what) rte_tel_data_add_dict_u64(c, #name, w->name);
		SP_LCORE_WORK_COUNTS(ADD_WORK_COUNT)
#undef ADD_WORK_COUNT
		snprintf(name, sizeof(name), "%u", lcore);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	return 0;
}

/* ARP answers the neighbor table took and their MAC changes (ignored ones are a drop reason). */
static int
cmd_arp(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	sp_stats_arp_read(tel_field, d);
	return 0;
}

/* The summary of stats.get's residence_ns (the buckets stay there: telemetry dicts hold 256). */
static int
cmd_residence(const char *cmd __rte_unused, const char *params __rte_unused,
	      struct rte_tel_data *d)
{
	static struct sp_latency l; /* 8 KB; commands run one at a time (reader_lock) */
	struct sp_latency_summary s;

	sp_stats_residence(&l);
	sp_latency_summarize(&l, &s);
	rte_tel_data_start_dict(d);
#define ADD_SUMMARY(name, unit) rte_tel_data_add_dict_u64(d, #name unit, s.name);
	SP_LATENCY_SUMMARY(ADD_SUMMARY)
#undef ADD_SUMMARY
	return 0;
}

static void
add_slice_fields(struct rte_tel_data *d, const struct sp_slice *s)
{
	rte_tel_data_add_dict_u64(d, "id", s->id);
	rte_tel_data_add_dict_string(d, "codeopt", s->co->name);
	rte_tel_data_add_dict_u64(d, "npe", s->npe);
	sp_stats_slice_read(s->id, tel_field, d);
}

static int
cmd_slices(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++) {
		const struct sp_slice *s = tnode->slices[i];
		struct rte_tel_data *c;

		if (s == NULL)
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		add_slice_fields(c, s);
		rte_tel_data_add_dict_container(d, s->name, c, 0);
	}
	return 0;
}

static int
cmd_slice(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct sp_slice *s = find_slice(params);
	struct rte_tel_data *reasons;
	uint64_t by_reason[SP_REASON_MAX];

	if (s == NULL)
		return -EINVAL;
	reasons = rte_tel_data_alloc();
	if (reasons == NULL)
		return -ENOMEM;
	sp_stats_slice_reasons(s->id, by_reason);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", s->name);
	add_slice_fields(d, s);
	rte_tel_data_start_dict(reasons);
	for (unsigned int r = SP_REASON_NONE + 1; r < SP_REASON_MAX; r++)
		rte_tel_data_add_dict_u64(reasons, sp_reason_name(r), by_reason[r]);
	rte_tel_data_add_dict_container(d, "reasons", reasons, 0);
	return 0;
}

static int
cmd_endpoints(const char *cmd __rte_unused, const char *params __rte_unused,
	      struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	for (uint16_t e = 0; e < tnode->nb_endpoints && e < RTE_TEL_MAX_DICT_ENTRIES; e++) {
		const struct sp_endpoint *ep = &tnode->endpoints[e];
		/* A free slot (slice 0), or one whose slice is being deleted. */
		const struct sp_slice *s = __atomic_load_n(&tnode->slices[ep->slice], __ATOMIC_ACQUIRE);
		struct rte_tel_data *c;
		char name[8];

		if (s == NULL)
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_string(c, "slice", s->name);
		rte_tel_data_add_dict_string(c, "port", tnode->ports[ep->port].name);
		add_ipv4(c, "ipv4", ep->ip_be);
		rte_tel_data_add_dict_u64(c, sp_l4_key(ep->l4), rte_be_to_cpu_16(ep->l4_port_be));
		rte_tel_data_add_dict_u64(c, "bandwidth", ep->bandwidth_bps);
		rte_tel_data_add_dict_u64(c, "inbound", ep->inbound_bps);
		sp_stats_endpoint_read(e, tel_field, c);
		snprintf(name, sizeof(name), "%u", e);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	return 0;
}

static int
cmd_filters(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct sp_slice *s = find_slice(params);
	const struct sp_lookup *t;
	unsigned int shown = 0;
	uint32_t pos = 0;

	if (s == NULL)
		return -EINVAL;
	t = tnode->npes[s->npe].lookup;
	rte_tel_data_start_dict(d);
	while (shown < RTE_TEL_MAX_DICT_ENTRIES && sp_lookup_next(t, s->id, &pos) == 0) {
		struct sp_filter f;
		uint64_t hits;
		char name[12];

		if (sp_lookup_read(t, s->id, pos, &f, &hits) == 0) {
			snprintf(name, sizeof(name), "%u", pos);
			rte_tel_data_add_dict_u64(d, name, hits);
			shown++;
		}
		pos++;
	}
	return 0;
}

static int
cmd_lookup(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct sp_slice *s = find_slice(params);
	struct sp_lookup_info info;

	if (s == NULL || sp_lookup_info(tnode->npes[s->npe].lookup, s->id, &info) != 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "quota", info.quota);
	rte_tel_data_add_dict_u64(d, "filters", info.filters);
	rte_tel_data_add_dict_u64(d, "compiled", info.compiled);
	rte_tel_data_add_dict_u64(d, "rules", info.rules);
	rte_tel_data_add_dict_u64(d, "changes", info.changes);
	rte_tel_data_add_dict_u64(d, "copies", info.copies);
	rte_tel_data_add_dict_string(d, "form", info.form);
	rte_tel_data_add_dict_string(d, "classifier", info.classifier);
	rte_tel_data_add_dict_u64(d, "flow_cache_lookups", info.flow_lookups);
	rte_tel_data_add_dict_u64(d, "flow_cache_hits", info.flow_hits);
	rte_tel_data_add_dict_string(d, "flow_cache", info.flow_resting ? "resting" : "in use");
	return 0;
}

/* The slice's last missed keys, newest first ("0" the newest), as stats.missed shows them. */
static int
cmd_missed(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct sp_slice *s = find_slice(params);
	struct sp_missed_shown m[SP_MISSED_KEEP];
	unsigned int n;

	if (s == NULL)
		return -EINVAL;
	n = sp_missed_show(tnode, s, m);
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < n; i++) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		char name[12]; /* an index: room for any unsigned int, as -Wformat-truncation asks */

		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_string(c, "key", m[i].key);
		rte_tel_data_add_dict_int(c, "endpoint", m[i].endpoint);
		rte_tel_data_add_dict_string(c, "port", m[i].port != NULL ? m[i].port : "");
		rte_tel_data_add_dict_u64(c, "injected", m[i].injected);
		rte_tel_data_add_dict_u64(c, "age_ms", m[i].age_ms);
		snprintf(name, sizeof(name), "%u", i);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	return 0;
}

/* A queue's drops in all, and by reason, named as SP_QUEUE_DROP says. */
static void
add_queue_drops(struct rte_tel_data *c, const struct sp_qm_queue_stats *qs)
{
	uint64_t pkts = 0, bytes = 0;
	char key[64];

	for (unsigned int r = 0; r < SP_QM_DROP_MAX; r++) {
		pkts += qs->drop_pkts[r];
		bytes += qs->drop_bytes[r];
	}
	rte_tel_data_add_dict_u64(c, SP_QUEUE_DROP "_pkts", pkts);
	rte_tel_data_add_dict_u64(c, SP_QUEUE_DROP "_bytes", bytes);
	for (unsigned int r = 0; r < SP_QM_DROP_MAX; r++) {
		snprintf(key, sizeof(key), SP_QUEUE_DROP "_%s_pkts", sp_qm_drop_name(r));
		rte_tel_data_add_dict_u64(c, key, qs->drop_pkts[r]);
		snprintf(key, sizeof(key), SP_QUEUE_DROP "_%s_bytes", sp_qm_drop_name(r));
		rte_tel_data_add_dict_u64(c, key, qs->drop_bytes[r]);
	}
}

static int
cmd_queues(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct sp_slice *s = find_slice(params);

	if (s == NULL)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	for (uint16_t q = 0; q < s->queue_quota; q++) {
		struct sp_qm_queue_stats qs;
		struct rte_tel_data *c;
		char name[8];

		if (s->qmap[q] == SP_QUEUE_UNBOUND ||
		    sp_qm_queue_stats(tnode->npes[s->npe].qm, s->qmap[q], &qs) < 0)
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_u64(c, "phys", s->qmap[q]);
		rte_tel_data_add_dict_string(c, "port", tnode->ports[s->qport[q]].name);
#define ADD_QUEUE_PAIR(name, what)                                                                 \
	rte_tel_data_add_dict_u64(c, #name "_pkts", qs.name##_pkts);                               \
	rte_tel_data_add_dict_u64(c, #name "_bytes", qs.name##_bytes);
		SP_QUEUE_COUNTERS(ADD_QUEUE_PAIR)
		add_queue_drops(c, &qs);
		SP_QUEUE_LENGTHS(ADD_QUEUE_PAIR)
#undef ADD_QUEUE_PAIR
		snprintf(name, sizeof(name), "%u", q);
		rte_tel_data_add_dict_container(d, name, c, 0);
	}
	return 0;
}

/* Per port, "a.b.c.d mac kind" strings: telemetry keys cannot hold dotted addresses. */
static int
cmd_neighbors(const char *cmd __rte_unused, const char *params __rte_unused,
	      struct rte_tel_data *d)
{
	struct rte_tel_data *per_port[SP_MAX_PORTS];
	struct rte_ether_addr mac;
	enum sp_neigh_kind kind;
	uint32_t iter = 0, ip;
	uint16_t port;

	for (uint16_t p = 0; p < tnode->nb_ports; p++) {
		per_port[p] = rte_tel_data_alloc();
		if (per_port[p] == NULL) {
			while (p-- > 0)
				rte_tel_data_free(per_port[p]);
			return -ENOMEM;
		}
		rte_tel_data_start_array(per_port[p], RTE_TEL_STRING_VAL);
	}
	while (sp_neigh_next(tnode->neigh, &iter, &port, &ip, &mac, &kind) >= 0) {
		const uint8_t *b = (const uint8_t *)&ip;
		char entry[64], m[RTE_ETHER_ADDR_FMT_SIZE];

		if (port >= tnode->nb_ports)
			continue;
		rte_ether_format_addr(m, sizeof(m), &mac);
		snprintf(entry, sizeof(entry), "%u.%u.%u.%u %s %s", b[0], b[1], b[2], b[3], m,
			 kind == SP_NEIGH_STATIC ? "static" : "learned");
		rte_tel_data_add_array_string(per_port[port], entry);
	}
	rte_tel_data_start_dict(d);
	for (uint16_t p = 0; p < tnode->nb_ports; p++)
		rte_tel_data_add_dict_container(d, tnode->ports[p].name, per_port[p], 0);
	return 0;
}

static const struct {
	const char *cmd;
	telemetry_cb fn;
	const char *help;
} commands[] = {
	{"/slicepath/info", cmd_info, "Node summary. Takes no parameters."},
	{"/slicepath/ports", cmd_ports, "Per-port addresses and counters. Takes no parameters."},
	{"/slicepath/drops", cmd_drops,
	 "Packets that left the fast path, by reason. Takes no parameters."},
	{"/slicepath/residence", cmd_residence,
	 "Sampled times frames spent in the node, rx to tx: count and percentiles since start. "
	 "Takes no parameters."},
	{"/slicepath/slices", cmd_slices, "Per-slice counters. Takes no parameters."},
	{"/slicepath/slice", cmd_slice, "One slice with counters by reason. Parameter: name or id."},
	{"/slicepath/endpoints", cmd_endpoints, "Endpoints and counters. Takes no parameters."},
	{"/slicepath/filters", cmd_filters, "Hit count per filter position. Parameter: slice."},
	{"/slicepath/lookup", cmd_lookup,
	 "A slice's filter table: filters, compiled rules, changes beside. Parameter: slice."},
	{"/slicepath/queues", cmd_queues, "A slice's queues and counters. Parameter: slice."},
	{"/slicepath/missed", cmd_missed,
	 "A slice's last missed keys, newest first: key, endpoint, port, injected, age_ms. "
	 "Parameter: slice."},
	{"/slicepath/neighbors", cmd_neighbors, "Resolved next hops. Takes no parameters."},
	{"/slicepath/lcores", cmd_lcores,
	 "Per forwarding lcore: LC index, NPEs, frames received, crossed to another lcore, "
	 "taken by its NPEs."},
	{"/slicepath/arp", cmd_arp,
	 "ARP answers learned, and learned neighbors whose MAC changed. Takes no parameters."},
};

/* Every command runs here: online as the node's off-lcore RCU reader. */
static int
as_reader(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&reader_lock);
	rte_rcu_qsbr_thread_online(tnode->qsbr, tnode->rcu_reader);
	for (unsigned int i = 0; i < RTE_DIM(commands); i++)
		if (strcmp(cmd, commands[i].cmd) == 0)
			rc = commands[i].fn(cmd, params, d);
	rte_rcu_qsbr_thread_offline(tnode->qsbr, tnode->rcu_reader);
	pthread_mutex_unlock(&reader_lock);
	return rc;
}

int
sp_telemetry_init(const struct sp_node *node)
{
	tnode = node;
	for (unsigned int i = 0; i < RTE_DIM(commands); i++) {
		int rc = rte_telemetry_register_cmd(commands[i].cmd, as_reader, commands[i].help);

		if (rc < 0)
			return rc;
	}
	return 0;
}
