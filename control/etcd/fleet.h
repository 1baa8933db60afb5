/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fleet's registry in etcd (docs/fleet.md): the desired state of every
 * node's slices under one prefix, written by slicectl --cluster (the
 * methods below, slicectld's names and parameters) and read by each
 * node's slicectld in cluster mode (control/slicectld/cluster.c).
 *
 * Keys under PREFIX (values JSON):
 *   live/NODE                  the node's slicectld is up (under a lease): seen, pid
 *   capacity/NODE              what it may hold and what placement gave it
 *   spec/slices/NAME           the slice: slice.create's params, nodes, endpoints, queues
 *   spec/filters/NAME/POS      its filters (POS ten digits: key order is position order)
 *   status/NODE/NAME           what the node made of it: in_force or failed, why, revision
 * Each node watches spec/ (written once whatever the number of nodes) and
 * applies the slices whose record names it. A change is one transaction
 * that holds only if what it read is unchanged (else it reads again and
 * retries), so concurrent operators never over-commit a node.
 */
#ifndef SP_FLEET_H
#define SP_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/jsonrpc.h"
#include "etcd.h"

#define FLEET_DEFAULT_PREFIX "/slicepath"
#define FLEET_PREFIX_LEN 128
#define FLEET_KEY_LEN 512
#define FLEET_MAX_NODES 1024 /* a slice's, and those placement considers */
#define FLEET_SPEC "spec/" /* what nodes watch: */
#define FLEET_SLICES FLEET_SPEC "slices/"
#define FLEET_FILTERS FLEET_SPEC "filters/"

struct fleet {
	struct etcd *etcd;
	char prefix[FLEET_PREFIX_LEN];
	/* The revision of the slice record filters were last written against, reused while it
	 * holds (each write's transaction compares it: a stale one is read again); 0: none. */
	char cached_name[FLEET_PREFIX_LEN];
	int64_t cached_mod;
};

/*
 * The registry under prefix (NULL: FLEET_DEFAULT_PREFIX) of the cluster o
 * names; NULL, err filled (also if a method of the fleet's has no handler).
 */
struct fleet *fleet_open(const struct etcd_opts *o, const char *prefix, char *err, size_t len);
void fleet_close(struct fleet *f);
/* "USER:PASSWORD" (etcdctl's --user) into o's user and password (pointing into s, changed). */
void fleet_split_user(char *s, struct etcd_opts *o);

/* PREFIX/fmt... into key (FLEET_KEY_LEN). */
void fleet_key(const struct fleet *f, char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The position of a filter key ".../filters/NAME/POS", or -1. */
long fleet_filter_position(const char *key);

/*
 * A method the list gives the fleet (slicepath/methods.h, SP_ON_FLEET):
 * slice.create (slicectld's params and "nodes": a count or a list of names),
 * slice.delete, slice.list, slice.status, slice.replace ({"slice", "node"}:
 * onto another live node with room), node.list, endpoint.reserve (with its
 * udp_port), endpoint.release, queue.bind, queue.set, queue.unbind,
 * filter.insert (one or "filters"), filter.delete, filter.list, policy.get,
 * policy.set ({"replace_down_after": seconds}); params an object (maybe
 * empty), a parameter the list does not give the fleet refused. The result,
 * or NULL with e filled.
 */
json_t *fleet_call(struct fleet *f, const char *method, json_t *params, struct sp_rpc_error *e);

/*
 * The policy's re-placement, run by every node's heartbeat: the slices of a
 * node down (not live) for the policy's replace_down_after seconds go to
 * another node (slice.replace). down_since (node -> when first seen down,
 * the caller's to keep between calls) is updated; the answer lists what this
 * call moved or could not: [{"slice", "node", "to"} or {"slice", "node",
 * "error"}] (not a slice another node moved first).
 */
json_t *fleet_replace_down(struct fleet *f, json_t *down_since, double now);

#endif
