/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CTLD_CLUSTER_H
#define CTLD_CLUSTER_H

#include <stddef.h>

#include "ctld.h"
#include "etcd.h"

#define CLUSTER_DEFAULT_TTL 10 /* seconds a dead node stays live */

struct cluster_config {
	struct etcd_opts etcd;    /* urls[0] == '\0': not in a cluster */
	const char *prefix;       /* NULL: the default */
	char node[SP_NAME_LEN * 2]; /* this node's name in the fleet */
	unsigned int ttl;         /* the live key's lease, seconds */
	char socket[SP_SOCKET_PATH_LEN]; /* this slicectld's, which the applier calls */
	/*
	 * Or, for the benchmark's model nodes (tools/bench-fleet/), what the
	 * applier calls instead: a method of slicectld's API, its result or NULL
	 * with why filled. Called from the applier's thread only.
	 */
	json_t *(*apply)(void *ctx, const char *method, json_t *params, char *why, size_t len);
	void *apply_ctx;
};

struct cluster;

/* Join the fleet and apply this node's part of it (threads of their own); NULL, err filled. */
struct cluster *cluster_start(const struct cluster_config *cfg, char *err, size_t len);
void cluster_stop(struct cluster *c);

#endif
