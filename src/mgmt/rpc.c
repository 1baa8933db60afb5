/* SPDX-License-Identifier: BSD-3-Clause */
/* slicepathd's method table and the readers of its node-specific parameters. */
#include "rpc.h"

#include <inttypes.h>
#include <string.h>

#include <rte_common.h>

/* Each method with the parameters it takes (docs/api.md): any other is refused. */
static const struct {
	const char *name;
	sp_rpc_method fn;
	const char *params;
} methods[] = {
	{SP_M_SLICE_CREATE, sp_rpc_slice_create, "name codeopt id npe memory filter_quota queue_quota "
	 "buffer_quota owner managed netns nat_ports nat_first"},
	{SP_M_SLICE_DELETE, sp_rpc_slice_delete, "slice"},
	{SP_M_SLICE_MOVE, sp_rpc_slice_move, "slice npe"},
	{SP_M_SLICE_LIST, sp_rpc_slice_list, ""},
	{SP_M_ENDPOINT_RESERVE, sp_rpc_endpoint_reserve, "slice port udp_port tcp_port bandwidth "
	 "inbound index"},
	{SP_M_ENDPOINT_RELEASE, sp_rpc_endpoint_release, "slice endpoint"},
	{SP_M_FILTER_INSERT, sp_rpc_filter_insert, "slice position key mask result filters"},
	{SP_M_FILTER_DELETE, sp_rpc_filter_delete, "slice position"},
	{SP_M_FILTER_LIST, sp_rpc_filter_list, "slice"},
	{SP_M_SCHED_SET, sp_rpc_sched_set, "npe port rate overhead"},
	{SP_M_QUEUE_BIND, sp_rpc_queue_bind, "slice queue endpoint threshold threshold_packets share"},
	{SP_M_QUEUE_UNBIND, sp_rpc_queue_unbind, "slice queue"},
	{SP_M_QUEUE_SET, sp_rpc_queue_set, "slice queue threshold threshold_packets share"},
	{SP_M_MEM_READ, sp_rpc_mem_read, "slice offset length"},
	{SP_M_MEM_WRITE, sp_rpc_mem_write, "slice offset data"},
	{SP_M_CODEOPT_LOAD, sp_rpc_codeopt_load, "slice data"},
	{SP_M_STATS_GET, sp_rpc_stats_get, "slice"},
	{SP_M_STATS_MISSED, sp_rpc_stats_missed, "slice"},
	{SP_M_STATE_DUMP, sp_rpc_state_dump, ""},
	{SP_M_NODE_INFO, sp_rpc_node_info, ""},
	{SP_M_NAT_LIST, sp_rpc_nat_list, "slice"},
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
	static const char *names[RTE_DIM(methods)];

	for (size_t i = 0; i < RTE_DIM(methods); i++) {
		names[i] = methods[i].name;
		if (strcmp(methods[i].name, method) != 0)
			continue;
		if (sp_rpc_known_keys(params, method, methods[i].params, e) < 0)
			return NULL;
		return methods[i].fn(ctx, params, e);
	}
	return sp_rpc_no_method(e, method, names, RTE_DIM(methods));
}

char *
sp_rpc_handle(struct sp_node *node, const char *line, size_t len, struct sp_rpc_hold *hold)
{
	char *answer;

	sp_rpc_hold_begin(hold);
	answer = sp_rpc_handle_line(line, len, dispatch, node);
	sp_rpc_hold_end();
	return answer;
}
