/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node: everything slicepathd's lcores share, built from the config
 * before the lcores start. Ports are referred to by their index in the
 * config ("port index") everywhere inside the daemon; only rx/tx bursts use
 * the DPDK port id (ports[i].port_id).
 */
#ifndef SP_NODE_H
#define SP_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ring.h>
#include <rte_rcu_qsbr.h>

#include "../decap/decap.h"
#include "../encap/neigh.h"
#include "../encap/neigh_hold.h"
#include "../lookup/lookup.h"
#include "../port/port.h"
#include "../qm/qm.h"
#include "../lc/residence.h"
#include "../npe/slice.h"
#include "../gpe/hslice.h"

/* An endpoint (SPP meta-interface): the slice's UDP (a host slice's: or TCP) port on a node port. */
struct sp_endpoint {
	uint16_t port;        /* port index */
	uint8_t l4;           /* enum sp_l4 */
	uint16_t l4_port_be;
	uint32_t ip_be;       /* the port's address */
	uint16_t slice;
	uint64_t bandwidth_bps; /* outbound reservation */
	uint64_t inbound_bps;   /* inbound reservation and policed rate; 0: neither */
	/* The outer header's bytes alike for all its packets, and their sum (sp_encap_prepare). */
	uint8_t outer[SP_OUTER_HDR_LEN];
	uint16_t outer_sum;
};

/*
 * What an NPE takes in one round at most: several bursts, whose lookups it
 * makes at once whatever their slices (sp_lookup_bulk_later()).
 */
#define SP_NPE_ROUND (8 * SP_BURST)

/* An NPE: one filter table and one queue manager, run by exactly one lcore,
 * so neither needs a lock. When that lcore is not the LC lcore, rings join
 * the two (the SPP switch between Line Card and NPE). */
struct sp_npe {
	uint16_t id;
	unsigned int lcore;
	struct sp_lookup *lookup;
	struct sp_qm *qm;
	uint32_t filter_capacity; /* its table's positions, all slices together */
	uint32_t queue_capacity;  /* its queue manager's physical queues */
	uint32_t nb_queues;      /* physical queues handed out so far (some may be free again) */
	uint64_t filter_quotas;  /* the slices' filter_quota, summed */
	uint64_t queue_quotas;   /* the slices' queue_quota, summed */
	struct rte_ring *rx_ring;               /* LCs -> NPE (NULL: on the one LC lcore) */
	struct rte_ring *inject_ring;           /* mgmt -> NPE: packets slow paths inject */
	struct rte_ring *tx_ring[SP_MAX_PORTS]; /* NPE -> LC, per output port of one tx queue */
	struct sp_neigh_cache neigh_cache;      /* its lcore's, for the outer headers */
	struct sp_neigh_hold hold;              /* its lcore's: frames waiting for ARP (npe.h) */
	struct sp_lookup_later hits_later;      /* its lcore's: filter hits not yet counted */
	struct rte_mbuf *round_lookups[SP_NPE_ROUND]; /* its lcore's: a round's packets to look up */
};

struct sp_node {
	struct rte_mempool *pool;
	uint32_t nb_mbufs;
	uint16_t nb_ports;
	struct sp_port ports[SP_MAX_PORTS];
	struct sp_decap_table *decap;
	struct sp_neigh *neigh;
	struct rte_rcu_qsbr *qsbr; /* a thread per worker lcore, then rcu_reader */
	unsigned int rcu_reader;   /* thread id for readers off the lcores (telemetry) */
	unsigned int nb_lcores;
	unsigned int lcores[SP_MAX_WORKERS]; /* the forwarding lcores; index: RCU thread id */
	uint16_t nb_npes;
	struct sp_npe npes[SP_MAX_NPES];
	struct sp_slice *slices[SP_MAX_SLICES];
	/* Which slices are host slices (gpe/hslice.h): each NPE asks it of every frame. */
	uint64_t host_slice_bits[SP_MAX_SLICES / 64];
	uint16_t nat_first, nat_last; /* the config's NAT ports, host slices' ranges taken from them */
	struct sp_nat_timeouts nat_timeouts;
	uint16_t nb_endpoints;
	struct sp_endpoint endpoints[SP_MAX_ENDPOINTS];
	/* Management thread plumbing. */
	struct rte_ring *learn_ring;   /* LC -> mgmt: ARP replies to learn from */
	struct rte_ring *resolve_ring; /* NPEs -> mgmt: next hops to resolve (port << 32 | ip) */
	struct rte_ring *ctrl_tx_ring; /* mgmt -> LC: frames to send (ARP requests) */
	struct rte_ring *exc_ring;     /* NPEs -> mgmt: exceptions for the slow paths */
	struct sp_channels *channels;  /* the slices' exception channels (mgmt/channel.h), or NULL */
	struct sp_residence residence; /* sampling of the time frames spend in the node */
	/*
	 * The LC lcores; LC k polls rx queue k of every port. With several, the
	 * frames of an NPE may come from any of them: its rx ring has several
	 * producers, and an NPE on an LC lcore has one too.
	 */
	uint16_t nb_lc;
	unsigned int lc_lcores[SP_MAX_WORKERS];
	struct sp_steer *steer; /* the ports' rte_flow rules (lc/steer.h); the management thread's */
	volatile bool quit;
};

struct sp_config;

/* Build the node from a validated config (EAL running), the one reader of
 * the config: what runs afterwards reads the node. On error returns a
 * negative errno, writes a message into err, and leaves nothing allocated.
 * -ENODEV means a port could not be opened. */
int sp_node_init(struct sp_node *node, const struct sp_config *cfg, char *err, size_t errlen);
void sp_node_fini(struct sp_node *node);

/*
 * A slice's life on the node (slice_ops.c): from the config load, or from
 * the management thread while the lcores forward. Each returns 0, or a
 * negative errno with the reason in err (a sentence without the slice's
 * config path), and changes nothing on error unless it says otherwise.
 */
#define SP_NPE_ANY UINT16_MAX

struct sp_channels;

struct sp_slice_spec {
	uint16_t id;
	const char *name;
	const char *codeopt;
	uint16_t npe; /* SP_NPE_ANY: the one with the most filter positions left */
	uint32_t mem_bytes;
	uint32_t filter_quota;
	uint16_t queue_quota;
	uint32_t buffer_quota;
	uint32_t owner; /* SP_OWNER_NONE: none */
	bool managed;
	struct sp_hslice_spec host; /* codeopt "host" (gpe/hslice.h): its namespace and NAT */
};

/* -EEXIST id or name taken, -EINVAL no such NPE or code option, -ENOSPC quotas beyond the NPE's room. */
int sp_node_slice_add(struct sp_node *node, const struct sp_slice_spec *spec, struct sp_slice **s,
		      char *err, size_t errlen);
/*
 * Endpoints, then queues (their packets dropped), then filters and
 * reservations go; the slice is freed. -EBUSY: a queue would not empty
 * (its NPE lcore is stuck); the slice is then out of service, not freed.
 */
int sp_node_slice_del(struct sp_node *node, struct sp_slice *s, char *err, size_t errlen);
/*
 * Move slice s to NPE npe (docs/api.md, slice.move): 0 (also when it is
 * there already), or a negative errno with why in err: -EINVAL no such
 * NPE, -ENOSPC it lacks room (nothing changed then), -EBUSY an NPE lcore
 * did not empty a queue.
 */
int sp_node_slice_move(struct sp_node *node, struct sp_slice *s, uint16_t npe, char *err,
		       size_t errlen);

/*
 * Hand data to the slice's code option (its load callback: an eBPF object,
 * patterns...) and release what it replaced once no lcore can hold it.
 * 0, -ENOTSUP if the code option takes no data, or its error, with why in err.
 */
int sp_node_codeopt_load(struct sp_node *node, struct sp_slice *s, const void *data, size_t len,
			 char *err, size_t errlen);

/*
 * An endpoint asked for: UDP port udp_port (0: the lowest free one from
 * 1024) on port, bandwidth_bps out of the slice's NPE's scheduler there, and
 * inbound_bps out of the port's link rate, which its arrivals are policed to.
 */
struct sp_endpoint_req {
	uint16_t port;
	uint8_t l4;        /* enum sp_l4: TCP for host slices only */
	uint16_t udp_port; /* or TCP */
	uint64_t bandwidth_bps;
	uint64_t inbound_bps;
};

/*
 * Reserve an endpoint. *index is the slice-relative endpoint index wanted,
 * or SP_ENDPOINT_ANY for the lowest free one (a released one is reused); it
 * gets the index given. -EINVAL no such port or index, -ENOSPC no room
 * (endpoints, UDP ports, bandwidth either way), -EADDRINUSE the UDP port is
 * taken, -EEXIST the index is.
 */
#define SP_ENDPOINT_ANY UINT16_MAX
int sp_node_endpoint_add(struct sp_node *node, struct sp_slice *s, const struct sp_endpoint_req *req,
			 uint16_t *index, char *err, size_t errlen);
/* The inbound bandwidth the endpoints on port reserve together. */
uint64_t sp_node_inbound_reserved(const struct sp_node *node, uint16_t port);
/* -ENOENT no such endpoint, -EBUSY a queue is bound for it. Filters naming it then drop (bad_result). */
int sp_node_endpoint_del(struct sp_node *node, struct sp_slice *s, uint16_t index, char *err,
			 size_t errlen);

/*
 * Bind slice queue qid to the port of the slice's endpoint, or change a
 * bound queue's share and thresholds (it cannot change ports). -EINVAL bad
 * ids, -EBUSY another port, -ENOSPC no queue left or the share beyond the
 * slice's reservation.
 */
int sp_node_queue_bind(struct sp_node *node, struct sp_slice *s, uint16_t qid, uint16_t endpoint,
		       uint64_t share_bps, uint32_t max_bytes, uint32_t max_pkts, char *err,
		       size_t errlen);
/* Unbind, dropping what it holds. -ENOENT not bound, -EBUSY its NPE lcore did not empty it. */
int sp_node_queue_unbind(struct sp_node *node, struct sp_slice *s, uint16_t qid, char *err,
			 size_t errlen);

/* Index of the worker lcore in the RCU thread list (0..). */
unsigned int sp_node_rcu_thread(const struct sp_node *node, unsigned int lcore);
/* Which LC lcore this is (it polls that rx queue of every port), or -1. */
int sp_node_lc_index(const struct sp_node *node, unsigned int lcore);

#endif
