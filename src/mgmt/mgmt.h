/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The management thread (SPP's Management Processor): runs on the main
 * lcore, never forwards. It learns neighbors from the ARP replies the LC
 * lcore hands up, sends ARP requests for next hops the NPEs could not
 * resolve, and serves the management socket (JSON-RPC, rpc.h) and DPDK
 * telemetry (/slicepath/... commands).
 */
#ifndef SP_MGMT_H
#define SP_MGMT_H

#include <rte_log.h>

#include "../node/node.h"
#include "rpc_server.h"

/* Run until node->quit is set, serving the management socket too. */
void sp_mgmt_run(struct sp_node *node, struct sp_rpc_server *rpc);

/* Register the /slicepath/... telemetry commands for this node. */
int sp_telemetry_init(const struct sp_node *node);

#endif
