/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node's counters in the Prometheus text exposition format (docs/running.md,
 * "Metrics"), served over HTTP on a localhost port (http.c).
 */
#ifndef CTLD_METRICS_H
#define CTLD_METRICS_H

#include <jansson.h>

#include "methods.h"

/*
 * The text for slicepathd's counters: node is stats.get's answer (ports,
 * drops, slices), slices maps each slice's name to stats.get's answer for
 * it (slice, endpoints, queues); replay is replay.status's answer (stored
 * slices by state, divergences). malloc'd; NULL when out of memory.
 */
char *metrics_render(json_t *node, json_t *slices, json_t *replay);

/* metrics.text (operators): {"text"} with the above, gathered from slicepathd now. */
json_t *m_metrics_text(struct ctld *c, const struct caller *who, json_t *params,
		       struct sp_rpc_error *e);

#endif
