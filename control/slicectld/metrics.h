/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node's counters in the Prometheus text exposition format (docs/running.md,
 * "Metrics"), served over HTTP on a localhost port (http.c).
 */
#ifndef CTLD_METRICS_H
#define CTLD_METRICS_H

#include <jansson.h>

#include "methods.h"

/* metrics.text (operators): {"text"} with the above, gathered from slicepathd now. */
json_t *m_metrics_text(struct ctld *c, const struct caller *who, json_t *params,
		       struct sp_rpc_error *e);

#endif
