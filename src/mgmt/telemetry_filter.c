/* SPDX-License-Identifier: BSD-3-Clause */
/* A slice's filter table in telemetry: hits per position, the table's form. */
#include <stdio.h>
#include <string.h>

#include "telemetry_int.h"

static int
cmd_filters(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct sp_slice *s = sp_tel_find_slice(params);
	const struct sp_lookup *t;
	unsigned int shown = 0;
	uint32_t pos = 0;

	if (s == NULL)
		return -EINVAL;
	t = sp_tel_node->npes[s->npe].lookup;
	rte_tel_data_start_dict(d);
	while (shown < RTE_TEL_MAX_DICT_ENTRIES && sp_lookup_next(t, s->id, &pos) == 0) {
		struct sp_filter f;
		uint64_t hits;
		char name[12];

		if (sp_lookup_read(t, s->id, pos, &f, &hits) == 0) {
			snprintf(name, sizeof(name), "%u", pos);
			rte_tel_data_add_dict_u64(d, name, hits);
			shown++;
		}
		pos++;
	}
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/filters", cmd_filters,
		 "Hit count per filter position. Parameter: slice.")

static int
cmd_lookup(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct sp_slice *s = sp_tel_find_slice(params);
	struct sp_lookup_info info;

	if (s == NULL || sp_lookup_info(sp_tel_node->npes[s->npe].lookup, s->id, &info) != 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "quota", info.quota);
	rte_tel_data_add_dict_u64(d, "filters", info.filters);
	rte_tel_data_add_dict_u64(d, "compiled", info.compiled);
	rte_tel_data_add_dict_u64(d, "rules", info.rules);
	rte_tel_data_add_dict_u64(d, "changes", info.changes);
	rte_tel_data_add_dict_u64(d, "copies", info.copies);
	rte_tel_data_add_dict_string(d, "form", info.form);
	rte_tel_data_add_dict_string(d, "classifier", info.classifier);
	rte_tel_data_add_dict_u64(d, "flow_cache_lookups", info.flow_lookups);
	rte_tel_data_add_dict_u64(d, "flow_cache_hits", info.flow_hits);
	rte_tel_data_add_dict_string(d, "flow_cache", info.flow_resting ? "resting" : "in use");
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/lookup", cmd_lookup,
		 "A slice's filter table: filters, compiled rules, changes beside. Parameter: slice.")
