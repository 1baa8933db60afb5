/* SPDX-License-Identifier: BSD-3-Clause */
/* A slice's queues in telemetry: binding, counters, drops by reason. */
#include <stdio.h>
#include <string.h>

#include "telemetry_int.h"

/* A queue's drops in all, and by reason, named as SP_QUEUE_DROP says. */
static void
add_queue_drops(struct rte_tel_data *c, const struct sp_qm_queue_stats *qs)
{
	uint64_t pkts = 0, bytes = 0;
	char key[64];

	for (unsigned int r = 0; r < SP_QM_DROP_MAX; r++) {
		pkts += qs->drop_pkts[r];
		bytes += qs->drop_bytes[r];
	}
	rte_tel_data_add_dict_u64(c, SP_QUEUE_DROP "_pkts", pkts);
	rte_tel_data_add_dict_u64(c, SP_QUEUE_DROP "_bytes", bytes);
	for (unsigned int r = 0; r < SP_QM_DROP_MAX; r++) {
		snprintf(key, sizeof(key), SP_QUEUE_DROP "_%s_pkts", sp_qm_drop_name(r));
		rte_tel_data_add_dict_u64(c, key, qs->drop_pkts[r]);
		snprintf(key, sizeof(key), SP_QUEUE_DROP "_%s_bytes", sp_qm_drop_name(r));
		rte_tel_data_add_dict_u64(c, key, qs->drop_bytes[r]);
	}
}

static int
cmd_queues(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
	const struct sp_slice *s = sp_tel_find_slice(params);

	if (s == NULL)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	for (uint16_t q = 0; q < s->queue_quota; q++) {
		struct sp_qm_queue_stats qs;
		struct rte_tel_data *c;

		if (s->qmap[q] == SP_QUEUE_UNBOUND ||
		    sp_qm_queue_stats(sp_tel_node->npes[s->npe].qm, s->qmap[q], &qs) < 0)
			continue;
		c = sp_tel_new_dict();
		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_add_dict_u64(c, "phys", s->qmap[q]);
		rte_tel_data_add_dict_string(c, "port", sp_tel_node->ports[s->qport[q]].name);
#define ADD_QUEUE_PAIR(name, what)                                                                 \
	rte_tel_data_add_dict_u64(c, #name "_pkts", qs.name##_pkts);                               \
	rte_tel_data_add_dict_u64(c, #name "_bytes", qs.name##_bytes);
		SP_QUEUE_COUNTERS(ADD_QUEUE_PAIR)
		add_queue_drops(c, &qs);
		SP_QUEUE_LENGTHS(ADD_QUEUE_PAIR)
#undef ADD_QUEUE_PAIR
		sp_tel_add_numbered(d, q, c);
	}
	return 0;
}
SP_TELEMETRY_CMD("/slicepath/queues", cmd_queues,
		 "A slice's queues and counters. Parameter: slice.")
