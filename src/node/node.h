/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node builder: the node (struct sp_node, lc/node_state.h: everything
 * slicepathd's lcores share) built from the config before the lcores start,
 * and changed by the management thread while they forward. It stands above
 * the blocks: it includes them, none includes it.
 */
#ifndef SP_NODE_H
#define SP_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "../decap/decap.h"
#include "../encap/neigh.h"
#include "../hostslice/hslice.h"
#include "../lc/node_state.h"
#include "../qm/qm.h"

struct sp_config;

/* Build the node from a validated config (EAL running). The node builder is
 * the config's one reader (here, and sp_launch_fill() in launch.h for what
 * main needs before the node exists): the blocks take plain values from it,
 * and what runs afterwards, the management thread included, reads the node.
 * On error returns a negative errno, writes a message into err, and leaves
 * nothing allocated. -ENODEV means a port could not be opened. */
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
	struct sp_hslice_spec host; /* codeopt "host" (hostslice/hslice.h): its namespace and NAT */
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

/*
 * Fill node->fastpath, what the fast path's blocks take of the node
 * (fastpath/fastpath.h), from the node's pool, neighbor table, rings and
 * tables: sp_node_init() does, once they exist; so does a test that builds a
 * node by hand.
 */
void sp_node_fastpath_init(struct sp_node *node);

#endif
