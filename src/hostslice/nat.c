/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NAT table: per protocol, an array of entries by external number
 * (what the inbound side indexes, one load) and a hash from the flow to
 * that number (what the outbound side asks). Only the writer touches the
 * hashes, so they need no lock; entries are read from other threads.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "nat.h"

/* TCP states, as bits of an entry: what the table saw of the connection. */
#define ST_ANSWERED 0x01 /* a packet came back */
#define ST_FIN_OUT 0x02
#define ST_FIN_IN 0x04
#define ST_RST 0x08

struct entry {
	uint64_t flow; /* inner << 48 | remote port << 32 | remote address (network order) */
	uint64_t last; /* TSC of its last packet either way; 0: free */
	uint8_t state;
};

struct sp_nat {
	uint16_t first, count;
	uint64_t idle_tsc[SP_NAT_PROTOS]; /* UDP's and ICMP's; TCP's is by state */
	uint64_t tcp_established_tsc, tcp_transitory_tsc, tcp_closed_tsc;
	struct rte_hash *map[SP_NAT_PROTOS]; /* flow -> index (external - first) */
	struct entry *entries[SP_NAT_PROTOS];
	uint32_t hint[SP_NAT_PROTOS]; /* where the next search for a free number starts */
	uint32_t sweep;               /* the expiry cursor over all protocols' entries */
	uint32_t in_use[SP_NAT_PROTOS];
	uint64_t created, expired, full;
};

const char *
sp_nat_proto_name(enum sp_nat_proto p)
{
	static const char *const names[SP_NAT_PROTOS] = {"tcp", "udp", "icmp"};

	return p < SP_NAT_PROTOS ? names[p] : "unknown";
}

static uint64_t
flow_of(uint16_t inner, uint32_t rem_ip_be, uint16_t rem_port)
{
	return (uint64_t)inner << 48 | (uint64_t)rem_port << 32 | rem_ip_be;
}

void
sp_nat_free(struct sp_nat *n)
{
	if (n == NULL)
		return;
	for (unsigned int p = 0; p < SP_NAT_PROTOS; p++) {
		rte_hash_free(n->map[p]);
		rte_free(n->entries[p]);
	}
	rte_free(n);
}

struct sp_nat *
sp_nat_create(const char *name, uint16_t first, uint16_t count, const struct sp_nat_timeouts *to,
	      int socket)
{
	uint64_t hz = rte_get_tsc_hz();
	struct sp_nat *n;

	if (count == 0 || (uint32_t)first + count - 1 > UINT16_MAX) {
		rte_errno = EINVAL;
		return NULL;
	}
	n = rte_zmalloc_socket("sp_nat", sizeof(*n), RTE_CACHE_LINE_SIZE, socket);
	if (n == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	n->first = first;
	n->count = count;
	n->tcp_established_tsc = to->tcp_established * hz;
	n->tcp_transitory_tsc = to->tcp_transitory * hz;
	n->tcp_closed_tsc = to->tcp_closed * hz;
	n->idle_tsc[SP_NAT_UDP] = to->udp * hz;
	n->idle_tsc[SP_NAT_ICMP] = to->icmp * hz;
	for (unsigned int p = 0; p < SP_NAT_PROTOS; p++) {
		char hname[RTE_HASH_NAMESIZE];
		struct rte_hash_parameters hp = {
			.name = hname,
			.entries = RTE_MAX(count, 8u),
			.key_len = sizeof(uint64_t),
			.hash_func = rte_jhash,
			.socket_id = socket,
			/* Every number fits, whatever the buckets' luck: the range is the limit. */
			.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
		};

		snprintf(hname, sizeof(hname), "%.20s_%s", name, sp_nat_proto_name(p));
		n->map[p] = rte_hash_create(&hp);
		n->entries[p] = rte_zmalloc_socket("sp_nat_e", count * sizeof(struct entry),
						   RTE_CACHE_LINE_SIZE, socket);
		if (n->map[p] == NULL || n->entries[p] == NULL) {
			sp_nat_free(n);
			rte_errno = ENOMEM;
			return NULL;
		}
	}
	return n;
}

static uint64_t
idle_limit(const struct sp_nat *n, enum sp_nat_proto p, uint8_t state)
{
	if (p != SP_NAT_TCP)
		return n->idle_tsc[p];
	if ((state & ST_RST) || (state & (ST_FIN_OUT | ST_FIN_IN)) == (ST_FIN_OUT | ST_FIN_IN))
		return n->tcp_closed_tsc;
	return state & ST_ANSWERED ? n->tcp_established_tsc : n->tcp_transitory_tsc;
}

static void
follow_tcp(struct entry *e, uint8_t tcp_flags, bool out)
{
	if (!out)
		e->state |= ST_ANSWERED;
	if (tcp_flags & SP_NAT_TCP_RST)
		e->state |= ST_RST;
	if (tcp_flags & SP_NAT_TCP_FIN)
		e->state |= out ? ST_FIN_OUT : ST_FIN_IN;
}

/* A free index of protocol p, from its hint on; count if none. */
static uint32_t
free_index(struct sp_nat *n, enum sp_nat_proto p)
{
	for (uint32_t k = 0; k < n->count; k++) {
		uint32_t i = (n->hint[p] + k) % n->count;

		if (n->entries[p][i].last == 0) {
			n->hint[p] = (i + 1) % n->count;
			return i;
		}
	}
	return n->count;
}

int
sp_nat_out(struct sp_nat *n, enum sp_nat_proto p, uint16_t inner, uint32_t rem_ip_be,
	   uint16_t rem_port, uint8_t tcp_flags, uint64_t now, uint16_t *ext)
{
	uint64_t flow = flow_of(inner, rem_ip_be, rem_port);
	struct entry *e;
	void *data;
	uint32_t i;

	if (rte_hash_lookup_data(n->map[p], &flow, &data) >= 0) {
		i = (uint32_t)(uintptr_t)data;
	} else {
		i = free_index(n, p);
		if (i == n->count || rte_hash_add_key_data(n->map[p], &flow,
							   (void *)(uintptr_t)i) < 0) {
			n->full++;
			return -ENOSPC;
		}
		n->entries[p][i].state = 0;
		__atomic_store_n(&n->entries[p][i].flow, flow, __ATOMIC_RELAXED);
		n->in_use[p]++;
		n->created++;
	}
	e = &n->entries[p][i];
	if (p == SP_NAT_TCP)
		follow_tcp(e, tcp_flags, true);
	/* Last: a reader that sees it in use sees its flow. */
	__atomic_store_n(&e->last, now | 1, __ATOMIC_RELEASE);
	*ext = (uint16_t)(n->first + i);
	return 0;
}

int
sp_nat_in(struct sp_nat *n, enum sp_nat_proto p, uint16_t ext, uint32_t rem_ip_be,
	  uint16_t rem_port, uint8_t tcp_flags, uint64_t now, uint16_t *inner)
{
	uint32_t i = (uint16_t)(ext - n->first);
	struct entry *e;

	if (i >= n->count)
		return -ENOENT;
	e = &n->entries[p][i];
	/* Only the remote the entry was made for gets through (endpoint-dependent filtering). */
	if (e->last == 0 || (uint32_t)e->flow != rem_ip_be ||
	    (uint16_t)(e->flow >> 32) != rem_port)
		return -ENOENT;
	if (p == SP_NAT_TCP)
		follow_tcp(e, tcp_flags, false);
	else
		e->state |= ST_ANSWERED;
	__atomic_store_n(&e->last, now | 1, __ATOMIC_RELEASE);
	*inner = (uint16_t)(e->flow >> 48);
	return 0;
}

void
sp_nat_expire(struct sp_nat *n, uint64_t now, unsigned int budget)
{
	uint32_t total = (uint32_t)n->count * SP_NAT_PROTOS;

	for (unsigned int k = 0; k < budget && k < total; k++) {
		uint32_t at = n->sweep++ % total;
		enum sp_nat_proto p = at / n->count;
		struct entry *e = &n->entries[p][at % n->count];

		if (e->last == 0 || now <= e->last || now - e->last <= idle_limit(n, p, e->state))
			continue;
		rte_hash_del_key(n->map[p], &e->flow);
		__atomic_store_n(&e->last, 0, __ATOMIC_RELEASE);
		n->in_use[p]--;
		n->expired++;
	}
	n->sweep %= total;
}

static const char *
state_name(enum sp_nat_proto p, uint8_t state)
{
	if (p != SP_NAT_TCP)
		return "active";
	if ((state & ST_RST) || (state & (ST_FIN_OUT | ST_FIN_IN)) == (ST_FIN_OUT | ST_FIN_IN))
		return "closing";
	return state & ST_ANSWERED ? "established" : "open";
}

bool
sp_nat_next(const struct sp_nat *n, uint32_t *pos, uint64_t now, struct sp_nat_view *v)
{
	uint32_t total = (uint32_t)n->count * SP_NAT_PROTOS;

	for (; *pos < total; (*pos)++) {
		enum sp_nat_proto p = *pos / n->count;
		const struct entry *e = &n->entries[p][*pos % n->count];
		uint64_t last = __atomic_load_n(&e->last, __ATOMIC_ACQUIRE);
		uint64_t flow = __atomic_load_n(&e->flow, __ATOMIC_RELAXED);

		if (last == 0)
			continue;
		*v = (struct sp_nat_view){
			.proto = p,
			.ext = (uint16_t)(n->first + *pos % n->count),
			.inner = (uint16_t)(flow >> 48),
			.rem_port = (uint16_t)(flow >> 32),
			.rem_ip_be = (uint32_t)flow,
			.idle_s = now > last ? (uint32_t)((now - last) / rte_get_tsc_hz()) : 0,
			.state = state_name(p, e->state),
		};
		(*pos)++;
		return true;
	}
	return false;
}

void
sp_nat_stats(const struct sp_nat *n, struct sp_nat_stats *st)
{
	*st = (struct sp_nat_stats){.first = n->first, .count = n->count};
	for (unsigned int p = 0; p < SP_NAT_PROTOS; p++)
		st->in_use[p] = __atomic_load_n(&n->in_use[p], __ATOMIC_RELAXED);
	st->created = __atomic_load_n(&n->created, __ATOMIC_RELAXED);
	st->expired = __atomic_load_n(&n->expired, __ATOMIC_RELAXED);
	st->full = __atomic_load_n(&n->full, __ATOMIC_RELAXED);
}
