/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicectld's connection to slicepathd's management socket (docs/api.md).
 * When it fails, calls answer SP_RPC_UNAVAILABLE until the worker connects
 * again (at most once a second) and replays the desired state.
 */
#ifndef CTLD_BACKEND_H
#define CTLD_BACKEND_H

#include <stdbool.h>

#include "ctld.h"

struct backend *backend_create(const char *path);
void backend_free(struct backend *b);

/* Connected, or connect now unless tried within the last second; true if connected. */
bool backend_connect(struct backend *b);
/* Still connected: slicepathd never speaks first, so a readable socket means it closed. */
bool backend_alive(struct backend *b);
/* Why it is not connected ("" when it is). */
const char *backend_down(const struct backend *b);

/*
 * Call method with params (stolen; NULL: none): the result (a new
 * reference), or NULL with e filled: slicepathd's error, or
 * SP_RPC_UNAVAILABLE when the connection failed (it is then down).
 */
json_t *backend_call(struct backend *b, const char *method, json_t *params,
		     struct sp_rpc_error *e);

#endif
