/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libslicectl: the C client library of slicepath's control API, for slice
 * managers (SPP's "library routines") and tools. It talks JSON-RPC 2.0 to
 * slicectld's public socket (docs/api.md): the calling process's uid says
 * who it is, so a slice owner reaches its own slices only. The exception
 * channel functions give a slow path the packets its fast path hands up
 * and let it inject packets (docs/slowpath.md).
 *
 * Calls block until answered (or the timeout, 120 s by default). A
 * connection is not thread-safe: use one per thread. slicectld closes a
 * connection left without a request for a while (--idle-timeout, telling
 * it so): the next call connects again by itself and is sent once more,
 * since slicectld took nothing from the old one. Functions return 0
 * (or a count) on success and a negative errno on failure; then
 * sp_ctl_error() is the server's message, which says what was wrong and
 * what is left, and sp_ctl_error_code() its code (slicepath/proto.h):
 *
 *   -ENOENT  1001 no such slice, filter, queue or endpoint
 *   -EDQUOT  1002 beyond a quota of the slice
 *   -ENOSPC  1003 the node has no room
 *   -EBUSY   1004 not now (a queue still bound, filters still naming it)
 *   -E2BIG   1005 the request is too long
 *   -EACCES  1006 not allowed: not the slice's owner, not an operator
 *   -EEXIST  1007 the name, id or UDP port is taken
 *   -EAGAIN  1008 slicectld cannot reach slicepathd; nothing changed
 *   -EINVAL  -32602 a parameter is missing or wrong
 *   -EPROTO  any other protocol error; other errnos: the socket's (code 0)
 *
 * No DPDK here; link with `pkg-config --libs libslicectl`.
 */
#ifndef SLICEPATH_CTL_H
#define SLICEPATH_CTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <slicepath/counters.h>
#include <slicepath/key.h>
#include <slicepath/proto.h>
#include <slicepath/reason.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_CTL_DEFAULT_SOCKET "/run/slicepath/slicectl.sock"
#define SP_CTL_SOCKET_ENV "SLICECTL_SOCKET" /* overrides the default socket */

struct sp_ctl;

/* Connect to path (NULL: $SLICECTL_SOCKET, else the default). NULL with errno set. */
struct sp_ctl *sp_ctl_open(const char *path);
void sp_ctl_close(struct sp_ctl *c);
/* How long a call may wait for its answer; 0 waits forever. */
int sp_ctl_set_timeout(struct sp_ctl *c, unsigned int ms);
/* The last failed call's message and code (0 when the socket failed, not the server). */
const char *sp_ctl_error(const struct sp_ctl *c);
int sp_ctl_error_code(const struct sp_ctl *c);

/*
 * Any method: params is a JSON object's text (NULL: none); *result, unless
 * result is NULL, gets the result's JSON text (free() it).
 */
int sp_ctl_call(struct sp_ctl *c, const char *method, const char *params, char **result);

/* The node's interfaces (SPP's get_ifaces): what there is and what is left to reserve. */
struct sp_ctl_iface {
	char name[SP_NAME_LEN];
	uint16_t index;
	uint32_t ipv4;      /* network byte order */
	uint64_t rate;      /* bits/s */
	uint64_t reserved;  /* by the slices' endpoints, outbound */
	uint64_t available; /* rate - reserved */
	uint64_t inbound_reserved;  /* by the slices' endpoints, inbound */
	uint64_t inbound_available; /* rate - inbound_reserved */
};
/* Up to max interfaces into out; returns how many the node has. */
int sp_ctl_iface_list(struct sp_ctl *c, struct sp_ctl_iface *out, unsigned int max);

/*
 * Endpoints (SPP's meta-interfaces): UDP port udp_port (0: any free) on
 * interface port, reserving bandwidth bits/s out of it (0: 10 Mb/s) and
 * inbound bits/s of what arrives (0: none; the endpoint's arrivals are then
 * not policed, otherwise those beyond the rate are dropped as inbound_rate).
 */
struct sp_ctl_endpoint {
	uint16_t index;    /* what filters' results name */
	uint16_t udp_port;
};
int sp_ctl_endpoint_reserve(struct sp_ctl *c, const char *slice, const char *port,
			    uint16_t udp_port, uint64_t bandwidth, uint64_t inbound,
			    struct sp_ctl_endpoint *out);
int sp_ctl_endpoint_release(struct sp_ctl *c, const char *slice, uint16_t index);

/* A queue: 0 in threshold, threshold_packets or share means the default (bind) or unchanged (set). */
struct sp_ctl_queue {
	uint16_t id;
	uint16_t endpoint;          /* bind: the endpoint whose interface it feeds */
	uint32_t threshold;         /* bytes */
	uint32_t threshold_packets;
	uint64_t share;             /* bits/s of the slice's reservation there */
};
int sp_ctl_queue_bind(struct sp_ctl *c, const char *slice, const struct sp_ctl_queue *q);
int sp_ctl_queue_set(struct sp_ctl *c, const char *slice, const struct sp_ctl_queue *q);
int sp_ctl_queue_unbind(struct sp_ctl *c, const char *slice, uint16_t id);

/* A filter: position (first match wins), key and mask, result; hits when listed. */
struct sp_ctl_filter {
	uint32_t position;
	struct sp_key key;
	struct sp_key mask;
	struct sp_result result; /* nh_ip and nh_port in network byte order */
	uint64_t hits;
};
/* Write n filters: n > 1 is one batch, written all or none (at most SP_MAX_FILTER_BATCH, and under 16 MiB). */
int sp_ctl_filter_write(struct sp_ctl *c, const char *slice, const struct sp_ctl_filter *f,
			size_t n);
int sp_ctl_filter_delete(struct sp_ctl *c, const char *slice, uint32_t position);
/* Every filter in position order: *out is malloc'd (free() it); returns how many. */
int sp_ctl_filter_list(struct sp_ctl *c, const char *slice, struct sp_ctl_filter **out);

/* The slice's memory block (SPP's SRAM), at most SP_MAX_MEM_IO bytes a call. */
int sp_ctl_mem_read(struct sp_ctl *c, const char *slice, uint32_t offset, void *buf, size_t len);
int sp_ctl_mem_write(struct sp_ctl *c, const char *slice, uint32_t offset, const void *buf,
		     size_t len);

/* Data for the slice's code option (an eBPF object for bpf: docs/bpf.md), at most
 * SP_MAX_CODEOPT_DATA bytes; a refusal's reason (the verifier's) in sp_ctl_error(). */
int sp_ctl_codeopt_load(struct sp_ctl *c, const char *slice, const void *data, size_t len);

struct sp_ctl_counter {
	uint64_t pkts;
	uint64_t bytes;
};
/* The fields of slicepath/counters.h's lists: rx, fwd, ..., inject_dropped. */
#define SP_CTL_COUNTER(name, what) struct sp_ctl_counter name;
#define SP_CTL_COUNT(name, what) uint64_t name;
struct sp_ctl_slice_stats {
	SP_SLICE_COUNTERS(SP_CTL_COUNTER)
	SP_SLICE_COUNTS(SP_CTL_COUNT)
	uint64_t reason[SP_REASON_MAX]; /* by enum sp_reason */
};
int sp_ctl_slice_stats(struct sp_ctl *c, const char *slice, struct sp_ctl_slice_stats *out);

/*
 * The slice's exception channel (slicepath/proto.h): connect to it as the
 * slice's owner. Returns the SOCK_SEQPACKET socket (close() it), or a
 * negative errno. One slow path per slice at a time.
 */
int sp_ctl_channel_open(struct sp_ctl *c, const char *slice);
/*
 * The next exception: its header into *hdr and up to len bytes of the
 * packet into pkt. Returns the packet's length (more than len: it was cut),
 * -EAGAIN on a non-blocking socket with nothing there, -EINTR when a signal
 * came first, -ENOTCONN when the channel closed (the slice was deleted,
 * slicepathd stopped), -EPROTO for a message that is not one.
 */
ssize_t sp_ctl_channel_recv(int fd, struct sp_exc_hdr *hdr, void *pkt, size_t len);
/* Inject a packet (at most SP_EXC_MAX_INJECT bytes) as arrived on endpoint. */
int sp_ctl_channel_inject(int fd, uint16_t endpoint, const void *pkt, size_t len);
/*
 * The name of an exception's reason (hdr->reason: "ttl_expired", "miss"), as
 * stats and telemetry name its counter; "unknown" for a number this library
 * does not know. From the library, not the header, so that a slow path built
 * against older headers names what the installed node sends.
 */
const char *sp_ctl_reason_name(uint8_t reason);

#ifdef __cplusplus
}
#endif

#endif /* SLICEPATH_CTL_H */
