/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libslicectl for in-tree users (slicectld's connection to slicepathd,
 * slicectl, the benchmark): calls with jansson values instead of text.
 */
#ifndef SP_CTL_INT_H
#define SP_CTL_INT_H

#include <stdbool.h>

#include <jansson.h>

#include <slicepath/ctl.h>

/*
 * Call method with params (stolen; NULL: none). 0 with *result a new
 * reference (unless result is NULL), or a negative errno as sp_ctl_call().
 */
int sp_ctl_call_json(struct sp_ctl *c, const char *method, json_t *params, json_t **result);
/* The connection's socket, to poll it; -1 once the connection failed. */
int sp_ctl_fd(const struct sp_ctl *c);
/* A filter as the API writes it (position, key, mask, result with every field). */
json_t *sp_ctl_filter_to_json(const struct sp_ctl_filter *f);
/* A filter object (hits optional, result.data optional); false if it is not one. */
bool sp_ctl_filter_from_json(json_t *o, struct sp_ctl_filter *f);
/* Set the error of the connection (for helpers that check what the server answered). */
int sp_ctl_fail(struct sp_ctl *c, int err, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
