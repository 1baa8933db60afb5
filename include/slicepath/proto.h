/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire protocol of slicepath's sockets (slicepathd's private management
 * socket, slicectld's public one): JSON-RPC 2.0, one JSON object per line.
 * Error codes are stable: clients may act on them; the message says what
 * limit was hit and what to do (docs/api.md).
 */
#ifndef SLICEPATH_PROTO_H
#define SLICEPATH_PROTO_H

#include <stdint.h>

#include <slicepath/methods.h>

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
#define SP_RPC_UNAVAILABLE 1008  /* slicectld: slicepathd cannot be reached; nothing changed */
#define SP_RPC_CLOSING 1009      /* slicectld closes an idle connection (id null): reconnect */

/*
 * Limits and defaults of the API (and of slicepathd's config): names, a
 * slice's quotas, endpoints and queues. Rates are bits/s, sizes bytes.
 */
#define SP_NAME_LEN 32 /* slice and port names: 1 to 31 of [A-Za-z0-9_] */
#define SP_MAX_SLICES 256 /* slice ids are 1 to 255 */
/* The "codeopt" of a host slice: no code option, its own network namespace. */
#define SP_CODEOPT_HOST "host"
#define SP_NETNS_NAME_LEN 64 /* a host slice's namespace name (under /run/netns) and its NUL */
#define SP_MAX_SLICE_ENDPOINTS 16
#define SP_MAX_SLICE_QUEUES 64
#define SP_MAX_RATE UINT64_C(10000000000000) /* 10 Tb/s */
#define SP_DEFAULT_MEMORY 4096
#define SP_MAX_MEMORY (16u << 20)
#define SP_DEFAULT_FILTER_QUOTA 1024
#define SP_MAX_FILTER_QUOTA (1u << 20)
#define SP_DEFAULT_QUEUE_QUOTA 16
#define SP_DEFAULT_BUFFER_QUOTA 4096
#define SP_MAX_BUFFER_QUOTA (64u << 20)
#define SP_DEFAULT_NAT_PORTS 256 /* a host slice's NAT range */
#define SP_MAX_NAT_PORTS 4096
#define SP_DEFAULT_BANDWIDTH UINT64_C(10000000) /* an endpoint's reservation */
#define SP_DEFAULT_SHARE UINT64_C(1000000)      /* a queue's share */
#define SP_MIN_THRESHOLD 2048
#define SP_DEFAULT_THRESHOLD 65536
#define SP_DEFAULT_THRESHOLD_PKTS 1024
#define SP_MAX_THRESHOLD_PKTS (1u << 20)
#define SP_MAX_MEM_IO 65536 /* bytes in one mem.read or mem.write */
/* A scheduler's "overhead": bytes a frame adds on the wire (preamble, gap, CRC: 24 on Ethernet). */
#define SP_DEFAULT_OVERHEAD 24
#define SP_MAX_OVERHEAD 255
#define SP_MAX_CODEOPT_DATA (1u << 20) /* bytes in one codeopt.load */
#define SP_DEFAULT_SLICE_BANDWIDTH UINT64_C(100000000) /* slicectld: a slice's endpoints together */

/* The longest request line a server reads (bytes, newline excluded). */
#define SP_RPC_MAX_LINE (16u << 20)
/*
 * Filters per filter.insert when loading many: about 10 MB of JSON, well
 * under SP_RPC_MAX_LINE, and few enough requests that the lookup engine
 * compiles a table of 128K filters only twice (docs/api.md).
 */
#define SP_FILTER_BATCH 65536
/* Filters one filter.insert may write at most: a whole NPE's table by default. */
#define SP_MAX_FILTER_BATCH 131072

/*
 * The exception channel (docs/slowpath.md): each slice has a Unix
 * SOCK_SEQPACKET socket, <channel_dir>/<slice name>.sock, that only its
 * owner (and root) may connect to, one connection at a time. Every message
 * is one packet: this header (host byte order), then the slice's packet
 * from its own header on, as its code option sees it.
 *  - fast path -> slow path: an exception; reason says why (enum sp_reason,
 *    slicepath/reason.h), endpoint where it arrived.
 *  - slow path -> fast path: a packet to inject; reason 0, endpoint the one
 *    it is taken to have arrived on. It is parsed, looked up, formatted and
 *    queued like any other packet of the slice.
 * A slow path that does not read loses exceptions (counted as
 * slow_path_full); the fast path never waits for it.
 */
#define SP_EXC_VERSION 1
/* The longest packet a slow path may inject (one packet buffer); exceptions
 * arrive whole, at most 65535 bytes. */
#define SP_EXC_MAX_INJECT 2048

struct sp_exc_hdr {
	uint8_t version;   /* SP_EXC_VERSION */
	uint8_t reason;    /* enum sp_reason; 0 when injecting */
	uint16_t endpoint; /* slice-relative endpoint index */
	uint32_t reserved; /* 0 */
};

#endif
