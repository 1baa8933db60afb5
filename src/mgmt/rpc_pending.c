/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Answers pending until the filter writes they acknowledge show (rpc.h,
 * struct sp_rpc_pending): the management thread takes the writes without
 * waiting for their compile, keeps the answer, and sends it once the
 * lookups show them, serving ARP and the other clients meanwhile.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_string_fns.h>

#include "rpc.h"

/* Where the request being handled may keep its answer pending (rpc.c sets it): the management
 * thread's alone. */
static struct sp_rpc_pending *current;

void
sp_rpc_pending_begin(struct sp_rpc_pending *d)
{
	current = d;
}

void
sp_rpc_pending_end(void)
{
	current = NULL;
}

int
sp_rpc_answer_when_shown(const struct sp_node *node, const struct sp_slice *s, int rc,
			 uint64_t ticket, const uint32_t *pos, uint32_t n)
{
	struct sp_rpc_pending *h = current;

	if (rc != -EINPROGRESS)
		return rc;
	if (h == NULL)
		return -EINVAL;
	h->pos = malloc((n > 0 ? n : 1) * sizeof(*h->pos));
	if (h->pos == NULL)
		return -ENOMEM;
	memcpy(h->pos, pos, n * sizeof(*pos));
	h->n = n;
	h->table = node->npes[s->npe].lookup;
	h->slice = s->id;
	h->npe = s->npe;
	h->ticket = ticket;
	strlcpy(h->name, s->name, sizeof(h->name));
	return 0;
}

void
sp_rpc_pending_free(struct sp_rpc_pending *d)
{
	free(d->pos);
	free(d->answer);
	*d = (struct sp_rpc_pending){0};
}

/* The error response to the pending request: its id from the answer kept. */
static char *
error_answer(const struct sp_rpc_pending *h, int rc)
{
	json_t *answer = json_loads(h->answer, 0, NULL);
	struct sp_rpc_error e;
	char *line;

	if (rc == -ENOENT)
		sp_rpc_fail(&e, SP_RPC_NOT_FOUND, "slice %s was deleted before its filters were "
			    "compiled", h->name);
	else if (rc == -ENOMEM)
		sp_rpc_fail(&e, SP_RPC_NO_ROOM, "NPE %u has no memory to compile slice %s's "
			    "filters; the write is kept and shows once a compile succeeds", h->npe,
			    h->name);
	else
		sp_rpc_fail(&e, SP_RPC_INTERNAL_ERROR, "slice %s's filter table: %s", h->name,
			    strerror(-rc));
	line = sp_rpc_respond(answer != NULL ? json_object_get(answer, "id") : NULL, NULL, &e);
	json_decref(answer);
	return line;
}

bool
sp_rpc_pending_ready(struct sp_rpc_pending *d, char **line)
{
	int rc = sp_lookup_finish(d->table, d->slice, d->ticket, d->pos, d->n);

	*line = NULL;
	if (rc == -EINPROGRESS)
		return false;
	if (rc == 0) {
		*line = d->answer;
		d->answer = NULL;
	} else if (d->answer != NULL) { /* NULL: a notification, answered with nothing */
		*line = error_answer(d, rc);
	}
	sp_rpc_pending_free(d);
	return true;
}
