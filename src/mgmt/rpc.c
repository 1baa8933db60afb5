/* SPDX-License-Identifier: BSD-3-Clause */
/* slicepathd's method table and the readers of its node-specific parameters. */
#include "rpc.h"

#include <string.h>

#include <rte_common.h>

static const struct {
	const char *name;
	sp_rpc_method fn;
} methods[] = {
	{"slice.create", sp_rpc_slice_create},
	{"slice.delete", sp_rpc_slice_delete},
	{"slice.list", sp_rpc_slice_list},
	{"endpoint.reserve", sp_rpc_endpoint_reserve},
	{"endpoint.release", sp_rpc_endpoint_release},
	{"filter.insert", sp_rpc_filter_insert},
	{"filter.delete", sp_rpc_filter_delete},
	{"filter.list", sp_rpc_filter_list},
	{"sched.set", sp_rpc_sched_set},
	{"queue.bind", sp_rpc_queue_bind},
	{"queue.unbind", sp_rpc_queue_unbind},
	{"queue.set", sp_rpc_queue_set},
	{"mem.read", sp_rpc_mem_read},
	{"mem.write", sp_rpc_mem_write},
	{"codeopt.load", sp_rpc_codeopt_load},
	{"stats.get", sp_rpc_stats_get},
	{"state.dump", sp_rpc_state_dump},
	{"node.info", sp_rpc_node_info},
};

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
	json_t *j = json_object_get(params, "slice");

	*s = NULL;
	if (json_is_integer(j)) {
		json_int_t id = json_integer_value(j);

		if (id > 0 && id < SP_MAX_SLICES)
			*s = node->slices[id];
		if (*s == NULL)
			sp_rpc_fail(e, SP_RPC_NOT_FOUND, "no slice has id %" JSON_INTEGER_FORMAT, id);
	} else if (json_is_string(j)) {
		for (unsigned int i = 0; i < SP_MAX_SLICES && *s == NULL; i++)
			if (node->slices[i] != NULL &&
			    strcmp(node->slices[i]->name, json_string_value(j)) == 0)
				*s = node->slices[i];
		if (*s == NULL)
			sp_rpc_fail(e, SP_RPC_NOT_FOUND, "no slice is named \"%s\"",
				    json_string_value(j));
	} else {
		sp_rpc_fail(e, SP_RPC_INVALID_PARAMS, "\"slice\" must be a slice's name or id, got %s",
			    j == NULL ? "nothing" : sp_rpc_type_name(j));
	}
	return *s == NULL ? -1 : 0;
}

static sp_rpc_method
find(const char *name)
{
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i].name, name) == 0)
			return methods[i].fn;
	return NULL;
}

static json_t *
dispatch(void *ctx, const char *method, json_t *params, struct sp_rpc_error *e)
{
	static const char *names[RTE_DIM(methods)];
	sp_rpc_method fn = find(method);

	if (fn != NULL)
		return fn(ctx, params, e);
	for (size_t i = 0; i < RTE_DIM(methods); i++)
		names[i] = methods[i].name;
	return sp_rpc_no_method(e, method, names, RTE_DIM(methods));
}

char *
sp_rpc_handle(struct sp_node *node, const char *line, size_t len)
{
	return sp_rpc_handle_line(line, len, dispatch, node);
}
