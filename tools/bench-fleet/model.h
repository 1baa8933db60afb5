/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SP_BENCH_FLEET_MODEL_H
#define SP_BENCH_FLEET_MODEL_H

#include <stddef.h>

#include <jansson.h>

struct model;

struct model *model_new(void);
void model_free(struct model *m);
/* The cluster applier's call (cluster_config.apply) on model m: params stolen. */
json_t *model_apply(void *m, const char *method, json_t *params, char *why, size_t len);

#endif
