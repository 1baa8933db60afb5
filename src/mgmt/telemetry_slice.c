/* SPDX-License-Identifier: BSD-3-Clause */
/* A slice's telemetry commands: its counters, its endpoints, its last missed keys. */
#include <stdio.h>
#include <string.h>

#include "telemetry_int.h"

static void
add_slice_fields(struct rte_tel_data *d, const struct sp_slice *s)
{
	rte_tel_data_add_dict_u64(d, "id", s->id);
	rte_tel_data_add_dict_string(d, "codeopt", s->co->name);
	rte_tel_data_add_dict_u64(d, "npe", s->npe);
	sp_stats_slice_read(s->id, sp_tel_field, d);
}

static int
cmd_slices(const char *cmd __rte_unused, const char *params __rte_unused, struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++) {
		const struct sp_slice *s = sp_tel_node->slices[i];
		struct rte_tel_data *c;

		if (s == NULL)
			continue;
		c = sp_tel_new_dict();
		if (c == NULL)
			return -ENOMEM;
		add_slice_fields(c, s);
		rte_tel_data_add_dict_container(d, s->name, c, 0);
	}
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/slices", cmd_slices, "Per-slice counters. Takes no parameters.")

static int
cmd_slice(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct sp_slice *s = sp_tel_find_slice(params);
	struct rte_tel_data *reasons;
	uint64_t by_reason[SP_REASON_MAX];

	if (s == NULL)
		return -EINVAL;
	reasons = rte_tel_data_alloc();
	if (reasons == NULL)
		return -ENOMEM;
	sp_stats_slice_reasons(s->id, by_reason);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", s->name);
	add_slice_fields(d, s);
	rte_tel_data_start_dict(reasons);
	for (unsigned int r = SP_REASON_NONE + 1; r < SP_REASON_MAX; r++)
		rte_tel_data_add_dict_u64(reasons, sp_reason_name(r), by_reason[r]);
	rte_tel_data_add_dict_container(d, "reasons", reasons, 0);
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/slice", cmd_slice,
		 "One slice with counters by reason. Parameter: name or id.")

static int
cmd_endpoints(const char *cmd __rte_unused, const char *params __rte_unused,
	      struct rte_tel_data *d)
{
	rte_tel_data_start_dict(d);
	for (uint16_t e = 0; e < sp_tel_node->nb_endpoints && e < RTE_TEL_MAX_DICT_ENTRIES; e++) {
		const struct sp_endpoint *ep = &sp_tel_node->endpoints[e];
		/* A free slot (slice 0), or one whose slice is being deleted. */
		const struct sp_slice *s = __atomic_load_n(&sp_tel_node->slices[ep->slice], __ATOMIC_ACQUIRE);
		struct rte_tel_data *c;

		if (s == NULL)
			continue;
		c = sp_tel_new_dict();
		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_add_dict_string(c, "slice", s->name);
		rte_tel_data_add_dict_string(c, "port", sp_tel_node->ports[ep->port].name);
		sp_tel_add_ipv4(c, "ipv4", ep->ip_be);
		rte_tel_data_add_dict_u64(c, sp_l4_key(ep->l4), rte_be_to_cpu_16(ep->l4_port_be));
		rte_tel_data_add_dict_u64(c, "bandwidth", ep->bandwidth_bps);
		rte_tel_data_add_dict_u64(c, "inbound", ep->inbound_bps);
		sp_stats_endpoint_read(e, sp_tel_field, c);
		sp_tel_add_numbered(d, e, c);
	}
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/endpoints", cmd_endpoints,
		 "Endpoints and counters. Takes no parameters.")

/* The slice's last missed keys, newest first ("0" the newest), as stats.missed shows them. */
static int
cmd_missed(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct sp_slice *s = sp_tel_find_slice(params);
	struct sp_missed_shown m[SP_MISSED_KEEP];
	unsigned int n;

	if (s == NULL)
		return -EINVAL;
	n = sp_missed_show(sp_tel_node, s, m);
	rte_tel_data_start_dict(d);
	for (unsigned int i = 0; i < n; i++) {
		struct rte_tel_data *c = sp_tel_new_dict();

		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_add_dict_string(c, "key", m[i].key);
		rte_tel_data_add_dict_int(c, "endpoint", m[i].endpoint);
		rte_tel_data_add_dict_string(c, "port", m[i].port != NULL ? m[i].port : "");
		rte_tel_data_add_dict_u64(c, "injected", m[i].injected);
		rte_tel_data_add_dict_u64(c, "age_ms", m[i].age_ms);
		sp_tel_add_numbered(d, i, c);
	}
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/missed", cmd_missed,
		 "A slice's last missed keys, newest first: key, endpoint, port, injected, age_ms. "
		 "Parameter: slice.")
