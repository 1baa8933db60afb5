/* SPDX-License-Identifier: BSD-3-Clause */
#include "backend.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ctl_int.h"

/* A large filter batch is compiled before slicepathd answers: seconds. */
#define CALL_TIMEOUT_MS 300000

struct backend {
	char path[SP_SOCKET_PATH_LEN];
	struct sp_ctl *ctl; /* NULL: down */
	json_t *info;
	char down[512];
	struct timespec last_try;
};

struct backend *
backend_create(const char *path)
{
	struct backend *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return NULL;
	snprintf(b->path, sizeof(b->path), "%s", path);
	snprintf(b->down, sizeof(b->down), "not connected yet");
	return b;
}

static void
disconnect(struct backend *b, const char *why)
{
	sp_ctl_close(b->ctl);
	b->ctl = NULL;
	json_decref(b->info);
	b->info = NULL;
	snprintf(b->down, sizeof(b->down), "%s", why);
}

void
backend_free(struct backend *b)
{
	if (b == NULL)
		return;
	disconnect(b, "");
	free(b);
}

bool
backend_connect(struct backend *b)
{
	struct timespec now;
	char why[400];

	if (b->ctl != NULL)
		return true;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - b->last_try.tv_sec < 1 && b->last_try.tv_sec != 0)
		return false;
	b->last_try = now;
	b->ctl = sp_ctl_open(b->path);
	if (b->ctl == NULL) {
		snprintf(b->down, sizeof(b->down), "cannot connect to slicepathd's management socket "
			 "%s: %s", b->path, strerror(errno));
		return false;
	}
	sp_ctl_set_timeout(b->ctl, CALL_TIMEOUT_MS);
	if (sp_ctl_call_json(b->ctl, SP_M_NODE_INFO, NULL, &b->info) < 0) {
		snprintf(why, sizeof(why), "slicepathd did not answer node.info: %s",
			 sp_ctl_error(b->ctl));
		disconnect(b, why);
		return false;
	}
	b->down[0] = '\0';
	ctld_log("connected to slicepathd %s on %s", json_string_value(json_object_get(b->info,
			"version")), b->path);
	return true;
}

bool
backend_alive(struct backend *b)
{
	struct pollfd p;

	if (b->ctl == NULL)
		return false;
	p = (struct pollfd){.fd = sp_ctl_fd(b->ctl), .events = POLLIN};
	if (p.fd >= 0 && poll(&p, 1, 0) == 0)
		return true;
	ctld_log("slicepathd closed its management socket; reconnecting");
	disconnect(b, "slicepathd closed its management socket (it stopped or restarted)");
	return false;
}

const char *
backend_down(const struct backend *b)
{
	return b->ctl != NULL ? "" : b->down;
}

json_t *
backend_call(struct backend *b, const char *method, json_t *params, struct sp_rpc_error *e)
{
	json_t *result;
	char why[600];

	if (b->ctl == NULL) {
		json_decref(params);
		return sp_rpc_fail(e, SP_RPC_UNAVAILABLE, "slicepathd is not reachable (%s); nothing "
				   "was changed. slicectld reconnects within a second of slicepathd "
				   "starting and restores the node", b->down);
	}
	if (sp_ctl_call_json(b->ctl, method, params, &result) == 0)
		return result;
	if (sp_ctl_error_code(b->ctl) != 0)
		return sp_rpc_fail(e, sp_ctl_error_code(b->ctl), "%s", sp_ctl_error(b->ctl));
	snprintf(why, sizeof(why), "%s", sp_ctl_error(b->ctl));
	ctld_log("lost slicepathd during %s: %s", method, why);
	disconnect(b, why);
	return sp_rpc_fail(e, SP_RPC_UNAVAILABLE, "slicepathd did not answer %s (%s); it may or "
			   "may not have been applied: slicectld restores the stored state when "
			   "slicepathd is back, and this change was not stored", method, why);
}
