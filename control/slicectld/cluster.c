/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Cluster mode (--cluster): this node's part of the fleet's registry in etcd
 * (control/etcd/fleet.h) made the node's desired state.
 *
 * Two threads, each with its own etcd connection:
 *  - heartbeat: the node's live/NODE key under a lease renewed every third
 *    of its TTL (a slicectld that dies leaves the live set within the TTL),
 *    and its capacity/NODE, made once;
 *  - applier: reads spec/ whole, applies the slices whose record names this
 *    node, then watches spec/ from the next revision (resuming after a
 *    break from the last revision applied, reading it whole again only if
 *    etcd compacted that away), and writes what each slice came to under
 *    status/NODE/NAME.
 * The applier changes the node the way an operator would: through this
 * slicectld's own socket, with its methods (so quotas, storage and the
 * replay into slicepathd are theirs). The node's SQLite database keeps the
 * last state applied: with etcd unreachable the node forwards on with it,
 * across restarts too, and catches up when etcd is back.
 */
#include "cluster.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slicepath/ctl.h>
#include <slicepath/methods.h>

#include "cluster_int.h"
#include "common/clock.h"

static void
nap(struct cluster *c, unsigned int seconds)
{
	for (unsigned int i = 0; i < seconds * 10 && !atomic_load(&c->stop); i++)
		usleep(100000);
}

/* ------------------------------------------------------------- heartbeat */

/* The live key's value: who, since when last renewed. */
static void
live_value(const struct cluster *c, char *value, size_t len)
{
	snprintf(value, len, "{\"node\":\"%s\",\"seen\":%lld,\"pid\":%d}", c->cfg.node,
		 (long long)time(NULL), (int)getpid());
}

/* Grant a lease and announce the node under it; its capacity made if new. 0 or -1. */
static int
join(struct cluster *c, int64_t *lease)
{
	struct fleet *f = c->beat;
	uint64_t bw = atomic_load(&c->bandwidth);
	char key[FLEET_KEY_LEN], value[256], *text;
	json_t *cap;
	int held;

	if (bw == 0)
		return -1; /* the applier has not reached the node yet */
	fleet_key(f, key, "capacity/%s", c->cfg.node);
	cap = json_pack("{s:i, s:I, s:i, s:i}", "slices", SP_MAX_SLICES - 1, "bandwidth",
			(json_int_t)bw, "used_slices", 0, "used_bandwidth", 0);
	text = json_dumps(cap, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(cap);
	/* Made once: placement's counts in it are the fleet's, not this node's to reset. */
	held = etcd_txn(f->etcd, json_pack("[o]", etcd_cmp_mod(key, 0)),
			json_pack("[o]", etcd_op_put(key, text, 0)), NULL, NULL);
	free(text);
	if (held < 0)
		return -1;
	*lease = etcd_lease_grant(f->etcd, c->cfg.ttl);
	if (*lease < 0)
		return -1;
	fleet_key(f, key, "live/%s", c->cfg.node);
	live_value(c, value, sizeof(value));
	return etcd_put(f->etcd, key, value, *lease, NULL);
}

/* The policy's re-placement of slices off nodes that stay down (any node may do it). */
static void
enforce_policy(struct cluster *c)
{
	json_t *done = fleet_replace_down(c->beat, c->down_since, sp_mono_seconds()), *d;
	size_t i;

	json_array_foreach(done, i, d) {
		const char *slice = json_string_value(json_object_get(d, "slice"));
		json_t *err = json_object_get(d, "error");

		if (err == NULL) {
			ctld_log("cluster: node %s stayed down: slice %s moved to %s (the fleet's policy)",
				 json_string_value(json_object_get(d, "node")), slice,
				 json_string_value(json_object_get(d, "to")));
			json_object_del(c->said, slice);
		} else if (!json_equal(json_object_get(c->said, slice), err)) {
			ctld_log("cluster: node %s stayed down; slice %s cannot move: %s",
				 json_string_value(json_object_get(d, "node")), slice,
				 json_string_value(err));
			json_object_set(c->said, slice, err);
		}
	}
	json_decref(done);
}

static void *
heartbeat(void *arg)
{
	struct cluster *c = arg;
	int64_t lease = 0;
	char key[FLEET_KEY_LEN], value[256];

	fleet_key(c->beat, key, "live/%s", c->cfg.node);
	while (!atomic_load(&c->stop)) {
		if (lease <= 0) {
			if (join(c, &lease) < 0)
				lease = 0;
			else
				ctld_log("cluster: node %s joined the fleet (lease %" PRId64 ", %u s)",
					 c->cfg.node, lease, c->cfg.ttl);
		} else if (etcd_lease_keepalive(c->beat->etcd, lease) <= 0) {
			ctld_log("cluster: the node's lease could not be renewed: %s; joining again",
				 etcd_error(c->beat->etcd));
			lease = 0;
			continue;
		} else {
			live_value(c, value, sizeof(value));
			etcd_put(c->beat->etcd, key, value, lease, NULL);
			enforce_policy(c);
		}
		nap(c, lease > 0 ? (c->cfg.ttl + 2) / 3 : RETRY_S);
	}
	if (lease > 0)
		etcd_lease_revoke(c->beat->etcd, lease); /* a clean stop leaves the set at once */
	return NULL;
}

/* Asked by the watch every 10 ms: the statuses a burst left are written then. */
static bool
stopping(void *arg)
{
	struct cluster *c = arg;

	cl_flush_status(c, false);
	return atomic_load(&c->stop);
}

static void *
applier(void *arg)
{
	struct cluster *c = arg;
	char prefix[FLEET_KEY_LEN];
	int64_t compacted;

	fleet_key(c->apply, prefix, FLEET_SPEC);
	while (!atomic_load(&c->stop)) {
		int rc;

		if (c->next == 0) {
			int64_t rev;

			if (atomic_load(&c->bandwidth) == 0)
				atomic_store(&c->bandwidth, cl_node_bandwidth(c));
			rev = cl_full_sync(c);

			if (rev < 0) {
				if (!c->etcd_down)
					ctld_log("cluster: %s; the node keeps its last state and "
						 "tries again every %d s", etcd_error(c->apply->etcd),
						 RETRY_S);
				c->etcd_down = true;
				nap(c, RETRY_S);
				continue;
			}
			c->next = rev + 1;
		}
		rc = etcd_watch(c->apply->etcd, prefix, c->next, cl_on_events, stopping, c, &compacted);
		cl_flush_status(c, true);
		if (rc == -2) {
			ctld_log("cluster: etcd compacted revision %" PRId64 " away (oldest %" PRId64
				 "): reading the registry whole", c->next, compacted);
			c->next = 0;
		} else if (rc == -1 && !atomic_load(&c->stop)) {
			if (!c->etcd_down)
				ctld_log("cluster: %s; the node keeps its last state and resumes "
					 "from revision %" PRId64, etcd_error(c->apply->etcd),
					 c->next);
			c->etcd_down = true;
			nap(c, RETRY_S);
			continue;
		}
		if (c->etcd_down && rc != -1)
			ctld_log("cluster: etcd reached again");
		c->etcd_down = false;
	}
	return NULL;
}

/* ------------------------------------------------------------- start, stop */

/* What c holds, freed (its threads stopped or never started). */
static void
cluster_free(struct cluster *c)
{
	sp_ctl_close(c->ctl);
	fleet_close(c->beat);
	fleet_close(c->apply);
	json_decref(c->pending);
	json_decref(c->mine);
	json_decref(c->down_since);
	json_decref(c->said);
	free(c);
}

struct cluster *
cluster_start(const struct cluster_config *cfg, char *err, size_t len)
{
	struct cluster *c = calloc(1, sizeof(*c));
	struct etcd_opts o = cfg->etcd;

	if (c == NULL) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	c->cfg = *cfg;
	c->pending = json_object();
	c->mine = json_object();
	c->down_since = json_object();
	c->said = json_object();
	c->beat = fleet_open(&o, cfg->prefix, err, len);
	c->apply = c->beat != NULL ? fleet_open(&o, cfg->prefix, err, len) : NULL;
	if (c->apply == NULL) {
		cluster_free(c);
		return NULL;
	}
	if (pthread_create(&c->beat_thread, NULL, heartbeat, c) != 0) {
		snprintf(err, len, "cannot start the cluster's threads");
		cluster_free(c);
		return NULL;
	}
	if (pthread_create(&c->apply_thread, NULL, applier, c) != 0) {
		atomic_store(&c->stop, true);
		pthread_join(c->beat_thread, NULL);
		snprintf(err, len, "cannot start the cluster's threads");
		cluster_free(c);
		return NULL;
	}
	return c;
}

void
cluster_stop(struct cluster *c)
{
	if (c == NULL)
		return;
	atomic_store(&c->stop, true);
	pthread_join(c->beat_thread, NULL);
	pthread_join(c->apply_thread, NULL);
	cluster_free(c);
}
