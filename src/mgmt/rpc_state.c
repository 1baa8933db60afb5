/* SPDX-License-Identifier: BSD-3-Clause */
/* state.dump and node.info: what the node holds and what it is made of. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>

#include "../stats/stats.h"
#include "channel.h"
#include "../node/steer.h"
#include "../common/text.h"
#include "rpc.h"

/* Endpoint index i of a slice, which is in node->endpoints[slot]: what it reserves. */
json_t *
sp_rpc_endpoint_json(const struct sp_node *node, uint16_t i, uint16_t slot)
{
	const struct sp_endpoint *ep = &node->endpoints[slot];

	return json_pack("{s:i, s:s, s:i, s:I, s:I}", "index", i, "port",
			 node->ports[ep->port].name, sp_l4_key(ep->l4), ntohs(ep->l4_port_be),
			 "bandwidth", (json_int_t)ep->bandwidth_bps, "inbound",
			 (json_int_t)ep->inbound_bps);
}

static json_t *
slice_state(const struct sp_node *node, const struct sp_slice *s)
{
	json_t *eps = json_array(), *queues = json_array();

	for (uint16_t i = 0; i < s->nb_endpoints; i++)
		if (s->endpoints[i] != SP_ENDPOINT_NONE)
			json_array_append_new(eps, sp_rpc_endpoint_json(node, i, s->endpoints[i]));
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
static json_t *
state_dump(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
{
	json_t *slices = json_array();

	(void)params;
	(void)e;
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		if (node->slices[i] != NULL)
			json_array_append_new(slices, slice_state(node, node->slices[i]));
	return json_pack("{s:o, s:o}", "schedulers", schedulers(node), "slices", slices);
}
SP_RPC_METHOD(STATE_DUMP, state_dump)

static json_t *
port_info(const struct sp_node *node, uint16_t p)
{
	const struct sp_port *port = &node->ports[p];
	char ip[INET_ADDRSTRLEN], ip6[INET6_ADDRSTRLEN] = "", mac[RTE_ETHER_ADDR_FMT_SIZE];
	struct in_addr a = {.s_addr = port->ip_be};

	inet_ntop(AF_INET, &a, ip, sizeof(ip));
	if (port->has_ip6)
		inet_ntop(AF_INET6, port->ip6, ip6, sizeof(ip6));
	rte_ether_format_addr(mac, sizeof(mac), &port->mac);
	return json_pack("{s:s, s:i, s:s, s:s, s:s, s:I, s:I, s:i, s:i, s:i, s:i, s:i, s:s, s:s, "
			 "s:I}",
			 "name", port->name, "index", p, "ipv4", ip, "ipv6", ip6, "mac", mac, "rate",
			 (json_int_t)port->rate_bps, "inbound_reserved",
			 (json_int_t)sp_node_inbound_reserved(node, p), "overhead", port->overhead,
			 "rx_desc", port->rx_desc, "tx_desc", port->tx_desc, "rx_queues",
			 port->nb_rxq, "tx_queues", port->nb_txq, "steering", sp_steer_name(node, p),
			 "steering_note", sp_steer_note(node, p), "steering_rules",
			 (json_int_t)sp_steer_rules(node, p));
}

/* The code options a slice may name: those built in and loaded, and host. */
static json_t *
codeopts(void)
{
	json_t *names = json_array();
	const char *name;

	for (unsigned int i = 0; (name = sp_codeopt_name(i)) != NULL; i++)
		json_array_append_new(names, json_string(name));
	return names;
}

/*
 * What does not change while the daemon runs, and the NPEs' room: ports,
 * NPEs (capacity and what their slices' quotas take), schedulers, packet
 * buffers, the code options, the exception channels' directory. slicectld
 * checks and plans admission with it.
 */
static json_t *
node_info(struct sp_node *node, json_t *params, struct sp_rpc_error *e)
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
	return json_pack("{s:s, s:o, s:o, s:o, s:I, s:o, s:s, s:i}", "version", SP_VERSION,
			 "ports", ports, "npes", npes, "schedulers", schedulers(node), "mbufs",
			 (json_int_t)node->nb_mbufs, "codeopts", codeopts(), "channel_dir",
			 sp_channels_dir(node->channels), "max_slices",
			 SP_MAX_SLICES - 1);
}
SP_RPC_METHOD(NODE_INFO, node_info)
