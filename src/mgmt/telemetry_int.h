/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the /slicepath/... telemetry commands share (telemetry.c): the node
 * they read, a few formatters, and how a command registers itself from the
 * file that defines it.
 */
#ifndef SP_MGMT_TELEMETRY_INT_H
#define SP_MGMT_TELEMETRY_INT_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_telemetry.h>

#include "../stats/stats.h"
#include "mgmt.h"
#include "rpc.h"

/* The node the commands read (sp_telemetry_init). */
extern const struct sp_node *sp_tel_node;

/* A reading into a telemetry dictionary (sp_stats_fn). */
void sp_tel_field(void *d, const char *name, uint64_t value);
void sp_tel_add_ipv4(struct rte_tel_data *d, const char *name, uint32_t ip_be);
/* An IPv6 address (NULL: none) as text, "" for none. */
void sp_tel_add_ipv6(struct rte_tel_data *d, const char *name, const uint8_t *ip6);
void sp_tel_add_mac(struct rte_tel_data *d, const char *name, const struct rte_ether_addr *mac);
/* A dictionary to fill and add to another, or NULL with no memory. */
struct rte_tel_data *sp_tel_new_dict(void);
/* Add container c to dictionary d under n, written as a number ("0", "1"...). */
void sp_tel_add_numbered(struct rte_tel_data *d, unsigned int n, struct rte_tel_data *c);
/* The slice a command's parameter names (its name or id), or NULL. */
const struct sp_slice *sp_tel_find_slice(const char *param);

/*
 * SP_TELEMETRY_CMD("/slicepath/x", fn, help), after fn in the file that
 * defines it, registers it before main(); sp_telemetry_init() hands them
 * all to DPDK's telemetry, each run as the node's RCU reader.
 */
#define SP_TELEMETRY_CMD(path, fn, help)                                                           \
	static void sp_telemetry_cmd_##fn(void) __attribute__((constructor));                      \
	static void sp_telemetry_cmd_##fn(void)                                                    \
	{                                                                                          \
		sp_telemetry_add(path, fn, help);                                                  \
	}
void sp_telemetry_add(const char *path, telemetry_cb fn, const char *help);

#endif
