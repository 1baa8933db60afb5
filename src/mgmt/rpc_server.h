/* SPDX-License-Identifier: BSD-3-Clause */
/* slicepathd's management socket (rpc_server.c): JSON-RPC over a private Unix socket. */
#ifndef SP_RPC_SERVER_H
#define SP_RPC_SERVER_H

#include <poll.h>
#include <stddef.h>

#include "../node/node.h"

struct sp_rpc_server;

/*
 * Listen on path (mode 0600; its directory is created if missing). A
 * socket file nobody answers on is replaced; a live one is an error.
 * NULL with the reason in err.
 */
struct sp_rpc_server *sp_rpc_server_open(const char *path, char *err, size_t errlen);
#define SP_RPC_MAX_CLIENTS 256

/* The sockets to poll (the listening one, then one per client): at most
 * SP_RPC_MAX_CLIENTS + 1; then sp_rpc_server_serve() with what poll() said. */
unsigned int sp_rpc_server_pollfds(const struct sp_rpc_server *srv, struct pollfd *fds);
/* Answer the requests that arrived, accept new clients, drop those gone. */
void sp_rpc_server_serve(struct sp_rpc_server *srv, struct sp_node *node, const struct pollfd *fds,
			 unsigned int n);
/* Close every connection and remove the socket file. */
void sp_rpc_server_close(struct sp_rpc_server *srv);

#endif
