/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A host slice's NAT table (SPP's line-card NAT): the slice's outgoing TCP
 * connections, UDP flows and ICMP echo leave with the node's address and a
 * number from the range the slice holds; what comes back is mapped to the
 * inner number, and only from the remote the entry was made for. One
 * writer: the lcore running the slice's NPE, which alone maps, creates and
 * expires. The management thread reads entries (slicectl nat) without a
 * lock: each entry's flow is one 64-bit word, published after it is filled.
 */
#ifndef SP_NAT_H
#define SP_NAT_H

#include <stdbool.h>
#include <stdint.h>

enum sp_nat_proto { SP_NAT_TCP, SP_NAT_UDP, SP_NAT_ICMP, SP_NAT_PROTOS };

/* Idle timeouts in seconds (docs/config.md, "nat"). */
struct sp_nat_timeouts {
	uint32_t tcp_established; /* a connection that saw traffic both ways */
	uint32_t tcp_transitory;  /* not answered yet */
	uint32_t tcp_closed;      /* FIN both ways, or RST: its number free again soon */
	uint32_t udp;
	uint32_t icmp;
};

/* TCP flags the table follows (the header's bits). */
#define SP_NAT_TCP_FIN 0x01
#define SP_NAT_TCP_RST 0x04

struct sp_nat;

/* A table for numbers first .. first + count - 1; NULL with rte_errno set. */
struct sp_nat *sp_nat_create(const char *name, uint16_t first, uint16_t count,
			     const struct sp_nat_timeouts *to, int socket);
void sp_nat_free(struct sp_nat *n);

/*
 * Writer side. Outbound: the external number of the flow (proto, inner
 * number, remote address and port; an echo's remote port is 0), a new
 * entry if it has none. -ENOSPC: every number is in use.
 */
int sp_nat_out(struct sp_nat *n, enum sp_nat_proto p, uint16_t inner, uint32_t rem_ip_be,
	       uint16_t rem_port, uint8_t tcp_flags, uint64_t now, uint16_t *ext);
/* Inbound: the inner number behind ext if the entry is the remote's; -ENOENT. */
int sp_nat_in(struct sp_nat *n, enum sp_nat_proto p, uint16_t ext, uint32_t rem_ip_be,
	      uint16_t rem_port, uint8_t tcp_flags, uint64_t now, uint16_t *inner);
/* Expire up to budget entries' worth of the table (a cursor goes round it). */
void sp_nat_expire(struct sp_nat *n, uint64_t now, unsigned int budget);

/* Reader side (any thread). */
struct sp_nat_view {
	enum sp_nat_proto proto;
	uint16_t ext, inner, rem_port;
	uint32_t rem_ip_be;
	uint32_t idle_s;  /* since its last packet */
	const char *state; /* "open", "established", "closing" (TCP) or "active" */
};

/* The entry at *pos or after, advancing *pos; false at the end. */
bool sp_nat_next(const struct sp_nat *n, uint32_t *pos, uint64_t now, struct sp_nat_view *v);

struct sp_nat_stats {
	uint16_t first, count;
	uint32_t in_use[SP_NAT_PROTOS];
	uint64_t created, expired, full; /* full: new flows refused, every number in use */
};
void sp_nat_stats(const struct sp_nat *n, struct sp_nat_stats *st);

const char *sp_nat_proto_name(enum sp_nat_proto p);

#endif
