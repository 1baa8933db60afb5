/* SPDX-License-Identifier: BSD-3-Clause */
#include "node.h"

#include "../config/config.h"
#include "steer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#define NPE_RING_SIZE 1024
#define LEARN_RING_SIZE 256
#define RESOLVE_RING_SIZE 1024
#define CTRL_TX_RING_SIZE 256
#define EXC_RING_SIZE 4096   /* exceptions waiting for the management thread to hand them up */
#define INJECT_RING_SIZE 1024
#define NEIGH_ENTRIES 4096

static unsigned int
npe_lcore(const struct sp_config *cfg, uint16_t npe)
{
	for (unsigned int i = 0; i < cfg->nb_lcores; i++)
		for (unsigned int j = 0; j < cfg->lcores[i].nb_npes; j++)
			if (cfg->lcores[i].npes[j] == npe)
				return cfg->lcores[i].id;
	return RTE_MAX_LCORE; /* the config parser guarantees every NPE has one */
}

static struct rte_ring *
ring(const char *name, unsigned int size, unsigned int flags)
{
	return rte_ring_create(name, size, (int)rte_socket_id(), flags);
}

/* The flags of a ring the LC lcores fill: one producer, or several. */
static unsigned int
producers(const struct sp_node *node)
{
	return node->nb_lc > 1 ? 0 : RING_F_SP_ENQ;
}

/* Each port's "steering" to the steering's start. */
static int
start_steering(struct sp_node *node, const struct sp_config *cfg, char *err, size_t errlen)
{
	enum sp_steering steering[SP_MAX_PORTS];

	for (uint16_t p = 0; p < cfg->nb_ports; p++)
		steering[p] = cfg->ports[p].steering;
	return sp_steer_start(node, steering, err, errlen);
}

static int
open_ports(struct sp_node *node, const struct sp_config *cfg, char *err, size_t errlen)
{
	for (uint16_t i = 0; i < cfg->nb_ports; i++) {
		const struct sp_cfg_port *cp = &cfg->ports[i];
		const struct sp_port_conf conf = {
			.name = cp->name,
			.device = cp->device,
			.ip_be = cp->ipv4,
			.ip6 = cp->has_ipv6 ? cp->ipv6 : NULL,
			.mac = cp->has_mac ? cp->mac : NULL,
			.rate_bps = cp->rate_bps,
			.overhead = cp->overhead,
			.rx_desc = cp->rx_desc,
			.tx_desc = cp->tx_desc,
			.rx_queues = cp->rx_queues,
			.host = cp->host,
		};
		int rc = sp_port_open(&conf, node->pool, (uint16_t)cfg->nb_lcores, node->nb_lc,
				      &node->ports[i], err, errlen);

		if (rc < 0)
			return rc;
		node->nb_ports++;
	}
	return 0;
}

static int
init_addresses(struct sp_node *node, const struct sp_config *cfg, char *err, size_t errlen)
{
	int socket = (int)rte_socket_id();

	node->decap = sp_decap_create("sp_endpoints", SP_MAX_ENDPOINTS, socket);
	node->neigh = sp_neigh_create("sp_neighbors", NEIGH_ENTRIES, socket);
	if (node->decap == NULL || node->neigh == NULL) {
		snprintf(err, errlen, "cannot create the endpoint and neighbor tables: %s",
			 rte_strerror(rte_errno));
		return -ENOMEM;
	}
	sp_decap_set_shared(node->decap, node->nb_lc > 1);
	for (uint16_t i = 0; i < node->nb_ports; i++) {
		sp_decap_set_port(node->decap, i, node->ports[i].ip_be, &node->ports[i].mac);
		sp_decap_set_ipv6(node->decap, i, node->ports[i].has_ip6 ? node->ports[i].ip6 : NULL);
		sp_decap_set_host(node->decap, i, node->ports[i].has_host);
		sp_decap_set_rx_cksum(node->decap, i, node->ports[i].rx_ip_cksum);
	}
	for (uint16_t i = 0; i < cfg->nb_neighbors; i++) {
		struct rte_ether_addr mac;

		memcpy(mac.addr_bytes, cfg->neighbors[i].mac, RTE_ETHER_ADDR_LEN);
		if (sp_neigh_set_ip(node->neigh, cfg->neighbors[i].port, &cfg->neighbors[i].ip,
				    &mac, SP_NEIGH_STATIC) < 0) {
			snprintf(err, errlen, "neighbors[%u]: the neighbor table is full (%u entries)",
				 i, NEIGH_ENTRIES);
			return -ENOSPC;
		}
	}
	return 0;
}

static int
init_rcu(struct sp_node *node)
{
	uint32_t threads = node->nb_lcores + 1;
	size_t sz = rte_rcu_qsbr_get_memsize(threads);

	node->qsbr = rte_zmalloc("sp_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (node->qsbr == NULL)
		return -ENOMEM;
	rte_rcu_qsbr_init(node->qsbr, threads);
	for (uint32_t t = 0; t < threads; t++)
		rte_rcu_qsbr_thread_register(node->qsbr, t);
	node->rcu_reader = node->nb_lcores;
	return 0;
}

static int
init_rings(struct sp_node *node)
{
	node->learn_ring = ring("sp_learn", LEARN_RING_SIZE, producers(node) | RING_F_SC_DEQ);
	node->resolve_ring = sp_neigh_want_ring("sp_resolve", RESOLVE_RING_SIZE, (int)rte_socket_id(),
						RING_F_SC_DEQ);
	node->ctrl_tx_ring = ring("sp_ctrl_tx", CTRL_TX_RING_SIZE, RING_F_SP_ENQ | RING_F_SC_DEQ);
	node->exc_ring = ring("sp_exceptions", EXC_RING_SIZE, RING_F_SC_DEQ);
	return node->learn_ring && node->resolve_ring && node->ctrl_tx_ring && node->exc_ring
		       ? 0 : -ENOMEM;
}

static int
init_npe(struct sp_node *node, const struct sp_config *config, uint16_t id)
{
	const struct sp_cfg_npe *cfg = &config->npes[id];
	struct sp_npe *npe = &node->npes[id];
	bool on_lc; /* runs on an LC lcore */
	char name[32];
	struct sp_lookup_params lp = {
		.name = name,
		.capacity = cfg->filters,
		.max_slices = SP_MAX_SLICES,
		.socket = (int)rte_socket_id(),
		.qsbr = node->qsbr,
	};
	struct sp_qm_params qp = {
		.name = name,
		.nb_ports = node->nb_ports,
		.max_queues = cfg->queues,
		.max_owners = SP_MAX_SLICES, /* slice ids */
		.socket = (int)rte_socket_id(),
	};

	npe->id = id;
	npe->filter_capacity = cfg->filters;
	npe->queue_capacity = cfg->queues;
	npe->lcore = npe_lcore(config, id);
	on_lc = sp_node_lc_index(node, npe->lcore) >= 0;
	snprintf(name, sizeof(name), "sp_npe%u", id);
	npe->lookup = sp_lookup_create(&lp);
	npe->qm = sp_qm_create(&qp);
	if (npe->lookup == NULL || npe->qm == NULL)
		return -ENOMEM;
	for (uint16_t p = 0; p < node->nb_ports; p++)
		if (sp_qm_port_config(npe->qm, p, cfg->rate_bps[p], node->ports[p].overhead) < 0)
			return -EINVAL;
	snprintf(name, sizeof(name), "sp_inject_npe%u", id);
	npe->inject_ring = ring(name, INJECT_RING_SIZE, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (npe->inject_ring == NULL)
		return -ENOMEM;
	/* One LC lcore hands the NPEs on it their frames by direct calls. */
	if (on_lc && node->nb_lc == 1)
		return 0;
	snprintf(name, sizeof(name), "sp_rx_npe%u", id);
	npe->rx_ring = ring(name, NPE_RING_SIZE, producers(node) | RING_F_SC_DEQ);
	if (npe->rx_ring == NULL)
		return -ENOMEM;
	if (on_lc)
		return 0;
	for (uint16_t p = 0; p < node->nb_ports; p++) {
		if (node->ports[p].nb_txq > 1)
			continue; /* the NPE's lcore transmits on its own queue */
		snprintf(name, sizeof(name), "sp_tx_npe%u_p%u", id, p);
		npe->tx_ring[p] = ring(name, NPE_RING_SIZE, RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (npe->tx_ring[p] == NULL)
			return -ENOMEM;
	}
	return 0;
}

static int
add_endpoints(struct sp_node *node, struct sp_slice *s, const struct sp_cfg_slice *cs,
	      char *err, size_t errlen)
{
	char why[SP_CONFIG_ERR_LEN];

	for (uint16_t j = 0; j < cs->nb_endpoints; j++) {
		const struct sp_cfg_endpoint *ce = &cs->endpoints[j];
		const struct sp_endpoint_req req = {
			.port = ce->port,
			.udp_port = ce->udp_port,
			.bandwidth_bps = ce->bandwidth_bps,
			.inbound_bps = ce->inbound_bps,
		};
		uint16_t index = SP_ENDPOINT_ANY;
		int rc = sp_node_endpoint_add(node, s, &req, &index, why, sizeof(why));

		if (rc < 0) {
			snprintf(err, errlen, "slice %s: endpoints[%u]: %s", cs->name, j, why);
			return rc;
		}
	}
	return 0;
}

static int
add_queues(struct sp_node *node, struct sp_slice *s, const struct sp_cfg_slice *cs, char *err,
	   size_t errlen)
{
	char why[SP_CONFIG_ERR_LEN];

	for (uint16_t j = 0; j < cs->nb_queues; j++) {
		const struct sp_cfg_queue *cq = &cs->queues[j];
		int rc = sp_node_queue_bind(node, s, cq->id, cq->endpoint, cq->share_bps,
					    cq->threshold, cq->threshold_pkts, why, sizeof(why));

		if (rc < 0) {
			snprintf(err, errlen, "slice %s: queues[%u]: %s", cs->name, j, why);
			return rc;
		}
	}
	return 0;
}

static int
add_filters(struct sp_node *node, struct sp_slice *s, const struct sp_cfg_slice *cs, char *err,
	    size_t errlen)
{
	struct sp_lookup *t = node->npes[s->npe].lookup;
	int rc;

	if (cs->nb_filters == 0)
		return 0;
	uint32_t *pos = malloc(cs->nb_filters * sizeof(*pos));
	struct sp_filter *f = malloc(cs->nb_filters * sizeof(*f));

	for (uint32_t j = 0; pos != NULL && f != NULL && j < cs->nb_filters; j++) {
		const struct sp_cfg_filter *cf = &cs->filters[j];

		pos[j] = cf->position;
		f[j] = (struct sp_filter){.key = cf->key, .mask = cf->mask, .result = cf->result};
	}
	/* One write for all: they are compiled once, not once per filter. */
	rc = pos != NULL && f != NULL ? sp_lookup_write_bulk(t, s->id, pos, f, cs->nb_filters)
				      : -ENOMEM;
	free(pos);
	free(f);
	if (rc < 0) {
		snprintf(err, errlen, "slice %s: cannot write its %u filters: %s", cs->name,
			 cs->nb_filters, strerror(-rc));
		return rc;
	}
	return 0;
}

/* The slice's "codeopt_data" file, handed to its code option. */
static int
load_codeopt_data(struct sp_node *node, struct sp_slice *s, const struct sp_cfg_slice *cs,
		  char *err, size_t errlen)
{
	char why[SP_CONFIG_ERR_LEN];
	uint8_t *data = malloc(SP_MAX_CODEOPT_DATA + 1);
	FILE *f = fopen(cs->codeopt_data, "rb");
	size_t n = 0;
	int rc = 0;

	if (data == NULL || f == NULL) {
		snprintf(err, errlen, "slice %s: cannot read \"codeopt_data\" %s: %s", cs->name,
			 cs->codeopt_data, strerror(errno));
		rc = -errno;
	} else if ((n = fread(data, 1, SP_MAX_CODEOPT_DATA + 1, f)) > SP_MAX_CODEOPT_DATA) {
		snprintf(err, errlen, "slice %s: \"codeopt_data\" %s is over %u bytes", cs->name,
			 cs->codeopt_data, SP_MAX_CODEOPT_DATA);
		rc = -EFBIG;
	} else {
		rc = sp_node_codeopt_load(node, s, data, n, why, sizeof(why));
		if (rc < 0)
			snprintf(err, errlen, "slice %s: \"codeopt_data\" %s: %s", cs->name,
				 cs->codeopt_data, why);
	}
	if (f != NULL)
		fclose(f);
	free(data);
	return rc;
}

static int
add_slice(struct sp_node *node, const struct sp_cfg_slice *cs, char *err, size_t errlen)
{
	const struct sp_slice_spec spec = {
		.id = cs->id,
		.name = cs->name,
		.codeopt = cs->codeopt,
		.npe = cs->npe,
		.mem_bytes = cs->mem_bytes,
		.filter_quota = cs->filter_quota,
		.queue_quota = cs->queue_quota,
		.buffer_quota = cs->buffer_quota,
		.owner = SP_OWNER_NONE,
	};
	char why[SP_CONFIG_ERR_LEN];
	struct sp_slice *s;
	int rc = sp_node_slice_add(node, &spec, &s, why, sizeof(why));

	if (rc < 0) {
		snprintf(err, errlen, "slice %s: %s", cs->name, why);
		return rc;
	}
	/* From here on sp_node_fini() frees it. */
	rc = add_endpoints(node, s, cs, err, errlen);
	if (rc == 0)
		rc = add_queues(node, s, cs, err, errlen);
	if (rc == 0)
		rc = add_filters(node, s, cs, err, errlen);
	if (rc == 0 && cs->codeopt_data[0] != '\0')
		rc = load_codeopt_data(node, s, cs, err, errlen);
	return rc;
}

int
sp_node_init(struct sp_node *node, const struct sp_config *cfg, char *err, size_t errlen)
{
	int rc;

	memset(node, 0, sizeof(*node));
	node->nb_mbufs = cfg->mbufs;
	node->nb_lcores = cfg->nb_lcores;
	node->nat_first = cfg->nat_first;
	node->nat_last = cfg->nat_last;
	node->nat_timeouts = (struct sp_nat_timeouts){
		.tcp_established = cfg->nat_timeouts.tcp_established,
		.tcp_transitory = cfg->nat_timeouts.tcp_transitory,
		.tcp_closed = cfg->nat_timeouts.tcp_closed,
		.udp = cfg->nat_timeouts.udp,
		.icmp = cfg->nat_timeouts.icmp,
	};
	for (unsigned int i = 0; i < cfg->nb_lcores; i++) {
		node->lcores[i] = cfg->lcores[i].id;
		if (cfg->lcores[i].lc)
			node->lc_lcores[node->nb_lc++] = cfg->lcores[i].id;
	}
	rc = sp_residence_init(&node->residence);
	if (rc < 0) {
		snprintf(err, errlen, "cannot register the mbuf field of residence times: %s",
			 rte_strerror(-rc));
		return rc;
	}
	node->pool = sp_pktmbuf_pool_create("sp_pool", cfg->mbufs, (int)rte_socket_id());
	if (node->pool == NULL) {
		snprintf(err, errlen, "cannot allocate %u packet buffers: %s; lower \"mbufs\" or "
			 "give DPDK more memory (hugepages, or -m with --no-huge)",
			 cfg->mbufs, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	rc = open_ports(node, cfg, err, errlen);
	if (rc == 0 && (init_rcu(node) < 0 || init_rings(node) < 0)) {
		snprintf(err, errlen, "out of memory for RCU and rings");
		rc = -ENOMEM;
	}
	if (rc == 0)
		rc = init_addresses(node, cfg, err, errlen);
	for (uint16_t e = 0; rc == 0 && e < cfg->nb_npes; e++) {
		node->nb_npes++; /* so that sp_node_fini() frees a half-built one */
		rc = init_npe(node, cfg, e);
		if (rc < 0)
			snprintf(err, errlen, "npes[%u]: cannot create its filter table (%u filters) "
				 "and queue manager (%u queues): out of memory", e,
				 cfg->npes[e].filters, cfg->npes[e].queues);
	}
	if (rc == 0)
		sp_node_fastpath_init(node);
	for (uint16_t i = 0; rc == 0 && i < cfg->nb_slices; i++)
		rc = add_slice(node, &cfg->slices[i], err, errlen);
	if (rc == 0)
		rc = start_steering(node, cfg, err, errlen);
	if (rc < 0)
		sp_node_fini(node);
	return rc;
}

void
sp_node_fastpath_init(struct sp_node *node)
{
	node->fastpath = (struct sp_fastpath){
		.pool = node->pool,
		.nb_ports = node->nb_ports,
		.ports = node->ports,
		.slices = node->slices,
		.endpoints = node->endpoints,
		.neigh = node->neigh,
		.resolve_ring = node->resolve_ring,
		.exc_ring = node->exc_ring,
		.host_slice_bits = node->host_slice_bits,
		.host_input = sp_hslice_input,
	};
}

void
sp_node_fini(struct sp_node *node)
{
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++) {
		sp_slice_destroy(node->slices[i]);
		node->slices[i] = NULL;
	}
	for (uint16_t e = 0; e < node->nb_npes; e++) {
		struct sp_npe *npe = &node->npes[e];

		sp_lookup_free(npe->lookup);
		sp_qm_free(npe->qm);
		rte_ring_free(npe->rx_ring);
		rte_ring_free(npe->inject_ring);
		for (uint16_t p = 0; p < node->nb_ports; p++)
			rte_ring_free(npe->tx_ring[p]);
	}
	sp_steer_stop(node);
	for (uint16_t p = 0; p < node->nb_ports; p++)
		sp_port_close(&node->ports[p]);
	rte_ring_free(node->learn_ring);
	rte_ring_free(node->resolve_ring);
	rte_ring_free(node->ctrl_tx_ring);
	rte_ring_free(node->exc_ring);
	sp_decap_free(node->decap);
	sp_neigh_free(node->neigh);
	rte_free(node->qsbr);
	rte_mempool_free(node->pool);
	memset(node, 0, sizeof(*node));
}
