/* SPDX-License-Identifier: BSD-3-Clause */
/* Inside cluster mode: its state, shared by its threads (cluster.c) and its applier (cluster_apply.c). */
#ifndef CTLD_CLUSTER_INT_H
#define CTLD_CLUSTER_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

#include <jansson.h>

#include "cluster.h"
#include "ctl_int.h"
#include "fleet.h"

#define RETRY_S 1 /* after etcd or this slicectld could not be reached */
/*
 * Statuses are written at most once per STATUS_SPACING times the last
 * write's duration (between the bounds): a burst of changes would otherwise
 * cost etcd a write per node for each of its own; the slower etcd answers,
 * the more each write carries.
 */
#define STATUS_SPACING 4
#define STATUS_MIN_S 0.002
#define STATUS_MAX_S 0.5

struct cluster {
	struct cluster_config cfg;
	struct fleet *beat, *apply; /* one etcd connection per thread */
	pthread_t beat_thread, apply_thread;
	atomic_bool stop;
	_Atomic uint64_t bandwidth; /* the node's, found by the applier; 0: not yet */
	struct sp_ctl *ctl; /* the applier's, to this slicectld */
	json_t *pending;    /* slice name -> its status, not yet written */
	json_t *mine;       /* the slices whose record names this node: name -> true */
	double next_flush;  /* when statuses may be written again */
	int64_t next;       /* the revision the watch resumes from */
	bool etcd_down;     /* said once an outage */
	/* The heartbeat's, for the policy's re-placement: node -> when first seen down, and
	 * slice -> the last failure said (said once). */
	json_t *down_since, *said;
};

/* The node's outbound capacity: its interfaces' rates together (0: unknown yet). */
uint64_t cl_node_bandwidth(struct cluster *c);
/* Read spec/ whole and make the node its part: the revision read, or -1. */
int64_t cl_full_sync(struct cluster *c);
/* A batch of the watch applied (etcd_watch's on_events). */
int cl_on_events(void *arg, const struct etcd_event *ev, size_t n, int64_t revision);
/* Write the statuses noted: at once with force, else when due. */
void cl_flush_status(struct cluster *c, bool force);

#endif
