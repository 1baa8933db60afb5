/* SPDX-License-Identifier: BSD-3-Clause */
/* slicepathd's management socket (rpc_server.c): JSON-RPC over a private Unix socket. */
#ifndef SP_RPC_SERVER_H
#define SP_RPC_SERVER_H

#include <stddef.h>

#include "../pipeline/node.h"

struct sp_rpc_server;

/*
 * Listen on path (mode 0600; its directory is created if missing). A
 * socket file nobody answers on is replaced; a live one is an error.
 * NULL with the reason in err.
 */
struct sp_rpc_server *sp_rpc_server_open(const char *path, char *err, size_t errlen);
/* Wait up to timeout_ms for requests and answer those that arrived. */
void sp_rpc_server_poll(struct sp_rpc_server *srv, struct sp_node *node, int timeout_ms);
/* Close every connection and remove the socket file. */
void sp_rpc_server_close(struct sp_rpc_server *srv);

#endif
