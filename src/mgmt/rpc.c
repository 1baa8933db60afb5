/* SPDX-License-Identifier: BSD-3-Clause */
/* slicepathd's dispatcher, its handlers' registry, and the readers of node parameters. */
#include "rpc.h"

#include <inttypes.h>
#include <string.h>

/* Each method's handler, registered by the file that defines it (SP_RPC_METHOD). */
static sp_rpc_method handlers[SP_METHOD_COUNT];

void
sp_rpc_register(enum sp_method_id id, sp_rpc_method fn)
{
	handlers[id] = fn;
}

const char *
sp_rpc_unhandled(void)
{
	for (int id = 0; id < SP_METHOD_COUNT; id++)
		if (sp_method_served(SP_ON_MGMT, id) && handlers[id] == NULL)
			return sp_method_name(id);
	return NULL;
}

int
sp_rpc_port(const struct sp_node *node, json_t *params, uint16_t *port, struct sp_rpc_error *e)
{
	const char *name;

	if (sp_rpc_string(params, "port", &name, e) < 0)
		return -1;
	for (*port = 0; *port < node->nb_ports; (*port)++)
		if (strcmp(node->ports[*port].name, name) == 0)
			return 0;
	sp_rpc_fail(e, SP_RPC_NOT_FOUND, "the node has no port \"%s\"", name);
	return -1;
}

/* "slice": a slice's name or node id. */
int
sp_rpc_slice(const struct sp_node *node, json_t *params, struct sp_slice **s,
	     struct sp_rpc_error *e)
{
	const char *name;
	int64_t id;

	*s = NULL;
	if (sp_rpc_slice_ref(params, &name, &id, e) < 0)
		return -1;
	if (name == NULL) {
		if (id > 0 && id < SP_MAX_SLICES)
			*s = node->slices[id];
		if (*s == NULL)
			sp_rpc_fail(e, SP_RPC_NOT_FOUND, "no slice has id %" PRId64, id);
		return *s == NULL ? -1 : 0;
	}
	for (unsigned int i = 0; i < SP_MAX_SLICES && *s == NULL; i++)
		if (node->slices[i] != NULL && strcmp(node->slices[i]->name, name) == 0)
			*s = node->slices[i];
	if (*s == NULL)
		sp_rpc_fail(e, SP_RPC_NOT_FOUND, "no slice is named \"%s\"", name);
	return *s == NULL ? -1 : 0;
}

static json_t *
dispatch(void *ctx, const char *method, json_t *params, struct sp_rpc_error *e)
{
	int id = sp_method_find(SP_ON_MGMT, method, e);

	if (id < 0 || sp_method_check_params(SP_ON_MGMT, id, params, e) < 0)
		return NULL;
	return handlers[id](ctx, params, e);
}

char *
sp_rpc_handle(struct sp_node *node, const char *line, size_t len,
	      struct sp_rpc_pending *pending)
{
	char *answer;

	sp_rpc_pending_begin(pending);
	answer = sp_rpc_handle_line(line, len, dispatch, node);
	sp_rpc_pending_end();
	return answer;
}
