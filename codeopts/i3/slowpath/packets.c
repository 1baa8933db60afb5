/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fast path hands up, handled as an i3 server would: packets for
 * IDs of other nodes go on over the ring unchanged; trigger inserts,
 * refreshes and removals (with i3's nonce challenge, so that nobody inserts
 * a trigger to an address that did not ask for it) are acknowledged to
 * their sender; data packets go to every trigger that matches on the
 * longest prefix, their options stripped.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "../i3_wire.h"
#include "slowpath.h"

#define MAX_SEND (SP_EXC_MAX_INJECT)
#define MAX_COPIES 64
#define TRIGGER_IPV4_LEN (SP_I3_TRIG_ADDR + 7 + SP_I3_KEY_BYTES)

/* Inject pkt behind a send header: to ip:port (ip 0: over the ring). */
static void
send_to(struct i3sp *sp, uint32_t ip, uint16_t port, const uint8_t *pkt, size_t len)
{
	uint8_t buf[MAX_SEND];
	struct sp_i3_send h = {.magic = SP_I3_SEND_MAGIC, .endpoint = sp->endpoint,
			       .queue = sp->queue, .nh_port = port, .nh_ip = ip};

	if (sizeof(h) + len > sizeof(buf)) {
		sp->n.unsupported++;
		return;
	}
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), pkt, len);
	if (sp_ctl_channel_inject(sp->fd, sp->endpoint, buf, sizeof(h) + len) < 0)
		fprintf(stderr, "i3-slowpath: injecting a packet failed\n");
}

/*
 * The nonce i3 challenges a trigger's address with: a keyed hash of the
 * address (FNV-1a over the node's secret and it, two lanes), so only who
 * receives at that address learns it. i3's own nonce was the address itself.
 */
static void
nonce_for(const struct i3sp *sp, uint32_t ip, uint16_t port, uint8_t *nonce)
{
	for (int lane = 0; lane < 2; lane++) {
		uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)lane;
		uint8_t in[SP_I3_NONCE_BYTES + 6];

		memcpy(in, sp->secret, SP_I3_NONCE_BYTES);
		memcpy(in + SP_I3_NONCE_BYTES, &ip, 4);
		memcpy(in + SP_I3_NONCE_BYTES + 4, &port, 2);
		for (size_t i = 0; i < sizeof(in); i++)
			h = (h ^ in[i]) * 0x100000001b3ULL;
		memcpy(nonce + 8 * lane, &h, 8);
	}
}

/* A control packet to ip:port: no stack, one option (type, body). */
static void
reply(struct i3sp *sp, uint32_t ip, uint16_t port, uint8_t type, const uint8_t *body, size_t len)
{
	uint8_t p[SP_I3_HDR_BYTES + SP_I3_OPTLEN_BYTES + 1 + TRIGGER_IPV4_LEN];
	size_t list = SP_I3_OPTLEN_BYTES + 1 + len;

	p[0] = SP_I3_VERSION;
	p[1] = SP_I3_FLAG_OPTION_LIST;
	p[2] = 0;
	p[3] = (uint8_t)(list >> 8);
	p[4] = (uint8_t)list;
	p[5] = type;
	memcpy(p + 6, body, len);
	send_to(sp, ip, port, p, SP_I3_HDR_BYTES + list);
}

struct addr {
	uint32_t ip;   /* network order; 0: none */
	uint16_t port; /* network order */
};

/* An IPv4 i3 address (type byte first). */
static bool
ipv4_addr(const uint8_t *a, struct addr *out)
{
	if (a[0] != SP_I3_ADDR_IPV4)
		return false;
	memcpy(&out->ip, a + 1, 4);
	memcpy(&out->port, a + 5, 2);
	return out->ip != 0;
}

/* A trigger insert or remove option (body t of len bytes), from sender. */
static void
trigger_op(struct i3sp *sp, uint8_t type, const uint8_t *t, size_t len, struct addr sender)
{
	uint8_t nonce[SP_I3_NONCE_BYTES], ack[TRIGGER_IPV4_LEN];
	const uint8_t *id = t + SP_I3_TRIG_ID;
	struct addr to;
	uint16_t prefix_len = (uint16_t)(t[SP_I3_TRIG_PREFIX_LEN] << 8 | t[SP_I3_TRIG_PREFIX_LEN + 1]);

	/* Only triggers to IPv4 addresses, and only those this node is responsible for. */
	if (len != TRIGGER_IPV4_LEN || !ipv4_addr(t + SP_I3_TRIG_ADDR, &to) || !i3sp_local(sp, id)) {
		sp->n.refused++;
		return;
	}
	nonce_for(sp, to.ip, to.port, nonce);
	if (memcmp(t + SP_I3_TRIG_NONCE, nonce, sizeof(nonce)) != 0) {
		if (type == SP_I3_OPT_TRIGGER_INSERT) {
			/* The address proves it wants the trigger by sending the nonce back. */
			memcpy(ack, t, len);
			memcpy(ack + SP_I3_TRIG_NONCE, nonce, sizeof(nonce));
			reply(sp, to.ip, to.port, SP_I3_OPT_TRIGGER_CHALLENGE, ack, len);
			sp->n.challenged++;
		} else {
			sp->n.refused++;
		}
		return;
	}
	if (type == SP_I3_OPT_TRIGGER_REMOVE) {
		sp->n.removed += i3sp_trigger_remove(sp, id, to.ip, to.port);
		return;
	}
	switch (i3sp_trigger_insert(sp, id, prefix_len, to.ip, to.port)) {
	case 1:
		sp->n.inserted++;
		break;
	case 0:
		sp->n.refreshed++;
		break;
	default:
		sp->n.refused++;
		return;
	}
	if (sender.ip == 0)
		sender = to;
	reply(sp, sender.ip, sender.port, SP_I3_OPT_TRIGGER_ACK, t, len);
}

/* The options of a packet this node is responsible for; -1 if malformed. */
static int
options(struct i3sp *sp, const struct sp_i3_view *v)
{
	struct sp_i3_option_view o;
	struct addr sender = {0};
	size_t off = 0;
	int rc;

	/* The sender comes first in i3's packets, but may be anywhere. */
	while ((rc = sp_i3_next_option(v, &off, &o)) == 1)
		if (o.type == SP_I3_OPT_SENDER)
			ipv4_addr(o.body, &sender);
	if (rc < 0)
		return -1;
	off = 0;
	while (sp_i3_next_option(v, &off, &o) == 1) {
		if (o.type == SP_I3_OPT_TRIGGER_INSERT || o.type == SP_I3_OPT_TRIGGER_REMOVE)
			trigger_op(sp, o.type, o.body, o.len, sender);
		else if (o.type != SP_I3_OPT_SENDER)
			sp->n.unsupported++;
	}
	return 0;
}

/* A copy to each trigger that matches the first ID: DATA only, options gone. */
static void
deliver(struct i3sp *sp, const struct sp_i3_view *v, const uint8_t *pkt, size_t len)
{
	size_t match[MAX_COPIES], n = i3sp_trigger_match(sp, v->ids, match, MAX_COPIES);
	size_t ids = (size_t)v->stack_len * SP_I3_ID_BYTES, body = len - v->hdr_len;
	uint8_t out[MAX_SEND];

	if (n == 0) {
		sp->n.no_trigger++;
		return;
	}
	if (SP_I3_HDR_BYTES + ids + body > sizeof(out)) {
		sp->n.unsupported++;
		return;
	}
	out[0] = SP_I3_VERSION;
	out[1] = SP_I3_FLAG_DATA;
	out[2] = v->stack_len;
	memcpy(out + SP_I3_HDR_BYTES, v->ids, ids);
	memcpy(out + SP_I3_HDR_BYTES + ids, pkt + v->hdr_len, body);
	for (size_t i = 0; i < n; i++) {
		const struct i3sp_trigger *t = &sp->trig[match[i]];

		send_to(sp, t->ip, t->port, out, SP_I3_HDR_BYTES + ids + body);
		sp->n.delivered++;
	}
}

void
i3sp_exception(struct i3sp *sp, uint8_t reason, uint8_t *pkt, size_t len)
{
	struct sp_i3_view v;

	(void)reason; /* what to do follows from the packet itself */
	sp->n.exceptions++;
	if (sp_i3_parse(pkt, len, &v) != SP_REASON_NONE) {
		sp->n.malformed++;
		return;
	}
	/* An ID of another node: on over the ring, unchanged (options and all). */
	if (v.stack_len > 0 && !i3sp_local(sp, v.ids)) {
		send_to(sp, 0, 0, pkt, len);
		sp->n.forwarded++;
		return;
	}
	if ((v.flags & SP_I3_FLAG_OPTION_LIST) && options(sp, &v) < 0) {
		sp->n.malformed++;
		return;
	}
	if (!(v.flags & SP_I3_FLAG_DATA))
		return;
	if (v.stack_len == 0)
		sp->n.unsupported++;
	else
		deliver(sp, &v, pkt, len);
}
