/* SPDX-License-Identifier: BSD-3-Clause */
/* The node's own telemetry commands: summary, ports, drops, lcores, residence, ARP, neighbors. */
#include <stdio.h>
#include <string.h>

#include "telemetry_int.h"
#include "../common/text.h"
#include "../node/steer.h"

static int
cmd_info(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	unsigned int slices = 0;

	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		slices += sp_tel_node->slices[i] != NULL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", SP_VERSION);
	rte_tel_data_add_dict_string(d, "state", sp_tel_node->quit ? "stopping" : "running");
	rte_tel_data_add_dict_u64(d, "ports", sp_tel_node->nb_ports);
	rte_tel_data_add_dict_u64(d, "slices", slices);
	rte_tel_data_add_dict_u64(d, "npes", sp_tel_node->nb_npes);
	rte_tel_data_add_dict_u64(d, "endpoints", sp_tel_node->nb_endpoints);
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/info", cmd_info, "Node summary. Takes no parameters.")

static int
cmd_ports(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	for (uint16_t p = 0; p < sp_tel_node->nb_ports; p++) {
		const struct sp_port *port = &sp_tel_node->ports[p];
		struct rte_tel_data *c = sp_tel_new_dict();

		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_add_dict_u64(c, "port_id", port->port_id);
		sp_tel_add_ipv4(c, "ipv4", port->ip_be);
		sp_tel_add_ipv6(c, "ipv6", port->has_ip6 ? port->ip6 : NULL);
		sp_tel_add_mac(c, "mac", &port->mac);
		rte_tel_data_add_dict_u64(c, "rate_bps", port->rate_bps);
		rte_tel_data_add_dict_u64(c, "rx_queues", port->nb_rxq);
		rte_tel_data_add_dict_u64(c, "tx_queues", port->nb_txq);
		rte_tel_data_add_dict_string(c, "steering", sp_steer_name(sp_tel_node, p));
		rte_tel_data_add_dict_string(c, "steering_note", sp_steer_note(sp_tel_node, p));
		rte_tel_data_add_dict_u64(c, "steering_rules", sp_steer_rules(sp_tel_node, p));
		sp_stats_port_read(p, sp_tel_field, c);
		rte_tel_data_add_dict_container(d, port->name, c, 0);
	}
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/ports", cmd_ports,
		 "Per-port addresses and counters. Takes no parameters.")

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
SP_TELEMETRY_CMD("/slicepath/drops", cmd_drops,
		 "Packets that left the fast path, by reason. Takes no parameters.")

/* Each forwarding lcore: its roles and its share of the work (SP_LCORE_WORK_COUNTS). */
static int
cmd_lcores(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < sp_tel_node->nb_lcores; i++) {
		unsigned int lcore = sp_tel_node->lcores[i];
		const struct sp_lcore_work *w = &sp_stats_lcore(lcore)->work;
		struct rte_tel_data *c = sp_tel_new_dict();
		char npes[SP_MAX_NPES * 4] = "";
		size_t off = 0;

		if (c == NULL)
			return -ENOMEM;
		/* A list as text: a container in a container's container is more than DPDK takes. */
		for (uint16_t e = 0; e < sp_tel_node->nb_npes; e++)
			if (sp_tel_node->npes[e].lcore == lcore)
				off += (size_t)snprintf(npes + off, sizeof(npes) - off, "%s%u",
							off > 0 ? "," : "", e);
		rte_tel_data_add_dict_int(c, "lc_index", sp_node_lc_index(sp_tel_node, lcore));
		rte_tel_data_add_dict_string(c, "npes", npes);
#define ADD_WORK_COUNT(name, what) rte_tel_data_add_dict_u64(c, #name, w->name);
		SP_LCORE_WORK_COUNTS(ADD_WORK_COUNT)
#undef ADD_WORK_COUNT
		sp_tel_add_numbered(d, lcore, c);
	}
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/lcores", cmd_lcores,
		 "Per forwarding lcore: LC index, NPEs, frames received, crossed to another lcore, "
		 "taken by its NPEs.")

/* ARP answers and advertisements the neighbor table took, their MAC changes (ignored: drop reasons). */
static int
cmd_arp(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	sp_stats_arp_read(sp_tel_field, d);
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/arp", cmd_arp,
		 "ARP answers and IPv6 neighbor advertisements learned, and learned neighbors whose MAC "
		 "changed. Takes no parameters.")

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
SP_TELEMETRY_CMD("/slicepath/residence", cmd_residence,
		 "Sampled times frames spent in the node, rx to tx: count and percentiles since start. "
		 "Takes no parameters.")

/* Per port, "address mac kind" strings: telemetry keys cannot hold dotted addresses. */
static int
cmd_neighbors(const char *cmd __rte_unused, const char *params __rte_unused,
	      struct rte_tel_data *d)
{
	struct rte_tel_data *per_port[SP_MAX_PORTS];
	struct rte_ether_addr mac;
	enum sp_neigh_kind kind;
	struct sp_ip ip;
	uint32_t iter = 0;
	uint16_t port;

	for (uint16_t p = 0; p < sp_tel_node->nb_ports; p++) {
		per_port[p] = rte_tel_data_alloc();
		if (per_port[p] == NULL) {
			while (p-- > 0)
				rte_tel_data_free(per_port[p]);
			return -ENOMEM;
		}
		rte_tel_data_start_array(per_port[p], RTE_TEL_STRING_VAL);
	}
	while (sp_neigh_next(sp_tel_node->neigh, &iter, &port, &ip, &mac, &kind) >= 0) {
		char entry[96], a[SP_IP_STR_LEN], m[RTE_ETHER_ADDR_FMT_SIZE];

		if (port >= sp_tel_node->nb_ports)
			continue;
		rte_ether_format_addr(m, sizeof(m), &mac);
		snprintf(entry, sizeof(entry), "%s %s %s", sp_format_ip(&ip, a, sizeof(a)), m,
			 kind == SP_NEIGH_STATIC ? "static" : "learned");
		rte_tel_data_add_array_string(per_port[port], entry);
	}
	rte_tel_data_start_dict(d);
	for (uint16_t p = 0; p < sp_tel_node->nb_ports; p++)
		rte_tel_data_add_dict_container(d, sp_tel_node->ports[p].name, per_port[p], 0);
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/neighbors", cmd_neighbors,
		 "Resolved next hops, IPv4 and IPv6. Takes no parameters.")
