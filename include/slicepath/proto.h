/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire protocol of slicepath's sockets (slicepathd's private management
 * socket, slicectld's public one): JSON-RPC 2.0, one JSON object per line.
 * Error codes are stable: clients may act on them; the message says what
 * limit was hit and what to do (docs/api.md).
 */
#ifndef SLICEPATH_PROTO_H
#define SLICEPATH_PROTO_H

/* JSON-RPC 2.0's own. */
#define SP_RPC_PARSE_ERROR -32700      /* not JSON */
#define SP_RPC_INVALID_REQUEST -32600  /* JSON, but not a request object */
#define SP_RPC_METHOD_NOT_FOUND -32601
#define SP_RPC_INVALID_PARAMS -32602   /* a parameter missing, of the wrong type or value */
#define SP_RPC_INTERNAL_ERROR -32603

/* slicepath's. */
#define SP_RPC_NOT_FOUND 1001    /* no such slice, filter, queue or endpoint */
#define SP_RPC_QUOTA 1002        /* beyond a quota of the slice (position, queue id, ...) */
#define SP_RPC_NO_ROOM 1003      /* the node has no room left (table, bandwidth, memory) */
#define SP_RPC_BUSY 1004         /* not now: e.g. a queue holding packets */
#define SP_RPC_TOO_LARGE 1005    /* a request line over the limit */
#define SP_RPC_DENIED 1006       /* the caller may not do this */
#define SP_RPC_EXISTS 1007       /* the name, id or UDP port is taken */

/* The longest request line a server reads (bytes, newline excluded). */
#define SP_RPC_MAX_LINE (16u << 20)

#endif
