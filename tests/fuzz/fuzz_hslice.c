/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: a host slice's two directions (src/hostslice/hslice.c) and its NAT
 * (src/hostslice/nat.c), on the in-memory node of fuzz_node.h. The slice's
 * TAP is a datagram socket pair (sp_netns_tap_open is wrapped at link
 * time): frames it "sends" are written into it with a virtio-net header,
 * what it is given is read back.
 *
 * The slice (id HOST): TCP 8080 on p0 (10.0.0.1), UDP 5353 on p1
 * (10.1.0.1), a queue bound for each, NAT ports 62000-62003; next hops
 * 10.0.0.2 and 10.1.0.2 resolved. The NAT's timeouts are 0: each input's
 * first read expires the flows of the input before.
 *
 * Input: frames, each a big-endian 16-bit header and bytes:
 *   bits 0-10   length (cut to what is left of the input)
 *   bit 11      write correct IPv4 and TCP/UDP/ICMP checksums
 *   bit 12      from outside (else from the namespace, at most SP_BURST)
 *   bits 13-14  from outside: 0 to the NAT range, 1 to an endpoint, 2 for
 *               slice alpha (no host slice), 3 the answer to the last frame
 *               forwarded from the namespace (addresses and ports swapped,
 *               an echo reply for an echo request; the bytes are ignored)
 * The namespace's frames go first (one read), then the outside's (one burst;
 * but for alpha's, those shorter than Ethernet and IPv4 headers are left
 * out: decap hands a slice none).
 *
 * Invariants. Out: every frame read is counted from_netns and ends forwarded,
 * dropped with a reason, or held for its next hop's ARP answer (npe.h); a forwarded one is TCP, UDP or an echo request
 * from the address of the port it leaves by, its source port its own if the
 * slice has that endpoint, else one of the NAT range that the NAT table
 * lists for its flow; it is the frame cut to its IPv4 length with only the
 * Ethernet addresses, that port and its checksum changed, the checksum
 * right if it was (UDP's 0, "none", kept and never made). In: a frame to the NAT range is
 * given to the slice exactly when the table holds its number for that
 * remote, its destination port then the inner one, else dropped nat_miss;
 * an endpoint's frame is given unchanged; alpha's dropped no_endpoint;
 * frames given have the interface's MAC, only the port and checksum
 * changed (the checksum right if it was); to_netns and the drops add up.
 * Every packet goes back to the pool.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <linux/virtio_net.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "fuzz_node.h"
#include "fuzz_pkt.h"
#include "hostslice/hslice.h"
#include "npe/npe.h"
#include "qm/qm_worker.h"
#include "stats/stats.h"

#define HOST 2
#define NAT_FIRST 62000
#define NAT_COUNT 4
#define TCP_PORT 8080
#define UDP_PORT 5353
#define ETH 14
#define LEN_MASK 0x07ff
#define FIX_CKSUM 0x0800
#define FROM_OUTSIDE 0x1000
#define KIND_SHIFT 13
#define MSG_MAX (sizeof(struct virtio_net_hdr) + 65536)

enum kind { TO_NAT, TO_ENDPOINT, TO_ALPHA, ANSWER };

int __wrap_sp_netns_tap_open(const struct sp_tap_conf *conf, char *err, size_t errlen);

static struct sp_node *node;
static struct sp_slice *host;
static struct sp_lcore_stats st;
static int tap[2]; /* the slice's end, the namespace's */
static const uint32_t nh[2] = {RTE_IPV4(10, 0, 0, 2), RTE_IPV4(10, 1, 0, 2)};

struct frame {
	uint16_t len;
	uint8_t bytes[SP_FUZZ_MAX_PKT + 1];
	enum kind kind;
	bool nat;  /* from outside: handed over as to the NAT range */
	bool done; /* matched to what came out */
};

static struct {
	uint16_t nb_out, nb_in;
	struct frame out[SP_BURST], in[SP_BURST];
	struct rte_mbuf *pkts[SP_BURST];
	uint8_t last_fwd[SP_FUZZ_MAX_PKT + 1]; /* the last frame forwarded, for ANSWER */
	uint16_t last_fwd_len;
	struct sp_nat_view nat[3 * NAT_COUNT];
	unsigned int nb_nat;
	uint8_t msg[MSG_MAX];
} b;

/* The TAP, as a socket pair: the slice's end is non-blocking, like a TAP's. */
int
__wrap_sp_netns_tap_open(const struct sp_tap_conf *conf, char *err, size_t errlen)
{
	int size = 1 << 20;

	(void)conf;
	(void)err;
	(void)errlen;
	SP_TEST_CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, tap) == 0, "no socket pair");
	setsockopt(tap[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	setsockopt(tap[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	fcntl(tap[0], F_SETFL, O_NONBLOCK);
	fcntl(tap[1], F_SETFL, O_NONBLOCK);
	return tap[0];
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sp_slice_spec spec = {.id = HOST, .name = "web", .codeopt = SP_CODEOPT_HOST,
				     .npe = 0, .filter_quota = 1, .queue_quota = 2, .buffer_quota = 1000,
				     .owner = SP_OWNER_NONE,
				     .host = {.netns = "fuzz", .nat_ports = NAT_COUNT}};
	const struct sp_endpoint_req eps[2] = {
		{.port = 0, .l4 = SP_L4_TCP, .udp_port = TCP_PORT, .bandwidth_bps = 100000000},
		{.port = 1, .l4 = SP_L4_UDP, .udp_port = UDP_PORT, .bandwidth_bps = 100000000},
	};
	const struct rte_ether_addr mac = {{0x02, 0xbb, 0, 0, 0, 0x02}};
	char err[512];

	(void)argc;
	(void)argv;
	node = sp_fuzz_node();
	node->nat_first = NAT_FIRST;
	node->nat_last = NAT_FIRST + NAT_COUNT - 1;
	SP_TEST_CHECK(sp_node_slice_add(node, &spec, &host, err, sizeof(err)) == 0, "slice: %s",
		      err);
	for (uint16_t i = 0; i < 2; i++) {
		uint16_t ep = SP_ENDPOINT_ANY;

		SP_TEST_CHECK(sp_node_endpoint_add(node, host, &eps[i], &ep, err, sizeof(err)) == 0,
			      "endpoint: %s", err);
		SP_TEST_CHECK(sp_node_queue_bind(node, host, i, ep, 1000000, 1 << 20, 1000, err,
						 sizeof(err)) == 0, "queue: %s", err);
	}
	SP_TEST_CHECK(sp_neigh_set(node->neigh, 0, rte_cpu_to_be_32(nh[0]), &mac,
				   SP_NEIGH_STATIC) == 0, "next hop");
	return 0;
}

/* A frame's headers as the host-slice path takes them (hslice.c's view_l4), worked out anew. */
struct l4 {
	size_t ihl, l4; /* IPv4 header length, the L4 header's offset */
	uint8_t proto;
	size_t port_off[2], cksum_off; /* source, destination (an echo's: its identifier) */
};

static bool
viewable(const uint8_t *f, size_t len, struct l4 *v)
{
	size_t total, need;

	if (len < ETH + 20 || be16_at(f + 12) != RTE_ETHER_TYPE_IPV4 || f[ETH] >> 4 != 4)
		return false;
	v->ihl = (size_t)(f[ETH] & 0xf) * 4;
	total = be16_at(f + ETH + 2);
	v->proto = f[ETH + 9];
	v->l4 = ETH + v->ihl;
	if (v->ihl < 20 || total < v->ihl || ETH + total > len || (be16_at(f + ETH + 6) & 0x3fff))
		return false;
	switch (v->proto) {
	case IPPROTO_TCP:
		need = 20;
		v->port_off[0] = v->l4;
		v->port_off[1] = v->l4 + 2;
		v->cksum_off = v->l4 + 16;
		break;
	case IPPROTO_UDP:
		need = 8;
		v->port_off[0] = v->l4;
		v->port_off[1] = v->l4 + 2;
		v->cksum_off = v->l4 + 6;
		break;
	case IPPROTO_ICMP:
		need = 8;
		v->port_off[0] = v->port_off[1] = v->l4 + 4;
		v->cksum_off = v->l4 + 2;
		break;
	default:
		return false;
	}
	if (len < v->l4 + need || total < v->ihl + need)
		return false;
	if (v->proto == IPPROTO_TCP) {
		size_t thl = (size_t)(f[v->l4 + 12] >> 4) * 4;

		return thl >= 20 && thl <= total - v->ihl && len >= v->l4 + thl;
	}
	return true;
}

/* Is the L4 checksum of a viewable frame right (UDP's "none" counts as right)? */
static bool
l4_cksum_ok(const uint8_t *f, const struct l4 *v)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(f + ETH);
	size_t l4len = be16_at(f + ETH + 2) - v->ihl;

	if (v->proto == IPPROTO_ICMP)
		return rte_raw_cksum(f + v->l4, l4len) == UINT16_MAX ||
		       rte_raw_cksum(f + v->l4, l4len) == 0;
	if (v->proto == IPPROTO_UDP && be16_at(f + v->cksum_off) == 0)
		return true;
	return rte_ipv4_udptcp_cksum_verify(ip, f + v->l4) == 0;
}

static void
fix_cksums(uint8_t *f, size_t len)
{
	struct l4 v;

	if (len < ETH || be16_at(f + 12) != RTE_ETHER_TYPE_IPV4)
		return;
	sp_test_fix_ipv4_cksum(f + ETH, len - ETH);
	if (!viewable(f, len, &v))
		return;
	f[v.cksum_off] = f[v.cksum_off + 1] = 0;
	if (v.proto == IPPROTO_ICMP) {
		uint16_t c = (uint16_t)~rte_raw_cksum(f + v.l4, be16_at(f + ETH + 2) - v.ihl);

		memcpy(f + v.cksum_off, &c, 2);
	} else {
		uint16_t c = rte_ipv4_udptcp_cksum((const struct rte_ipv4_hdr *)(f + ETH), f + v.l4);

		memcpy(f + v.cksum_off, &c, 2);
	}
}

/* The answer to the last frame forwarded: addresses and ports swapped. */
static size_t
answer(uint8_t *f)
{
	struct l4 v;

	if (b.last_fwd_len == 0 || !viewable(b.last_fwd, b.last_fwd_len, &v))
		return 0;
	memcpy(f, b.last_fwd, b.last_fwd_len);
	memcpy(f + ETH + 12, b.last_fwd + ETH + 16, 4);
	memcpy(f + ETH + 16, b.last_fwd + ETH + 12, 4);
	if (v.proto == IPPROTO_ICMP) {
		f[v.l4] = RTE_IP_ICMP_ECHO_REPLY;
	} else {
		memcpy(f + v.port_off[0], b.last_fwd + v.port_off[1], 2);
		memcpy(f + v.port_off[1], b.last_fwd + v.port_off[0], 2);
	}
	fix_cksums(f, b.last_fwd_len);
	return b.last_fwd_len;
}

/* The namespace's frames into the TAP, each with an empty virtio-net header. */
static void
send_out(void)
{
	struct virtio_net_hdr h = {.gso_type = VIRTIO_NET_HDR_GSO_NONE};

	for (unsigned int j = 0; j < b.nb_out; j++) {
		struct iovec iov[2] = {{&h, sizeof(h)}, {b.out[j].bytes, b.out[j].len}};

		SP_TEST_CHECK(writev(tap[1], iov, 2) == (ssize_t)(sizeof(h) + b.out[j].len),
			      "cannot write frame %u into the TAP", j);
	}
}

/* The NAT entry of proto for ext and the remote, or NULL. */
static const struct sp_nat_view *
nat_entry(uint8_t proto, uint16_t ext, uint32_t rem_ip_be, uint16_t rem_port)
{
	enum sp_nat_proto p = proto == IPPROTO_TCP ? SP_NAT_TCP :
			      proto == IPPROTO_UDP ? SP_NAT_UDP : SP_NAT_ICMP;

	for (unsigned int k = 0; k < b.nb_nat; k++)
		if (b.nat[k].proto == p && b.nat[k].ext == ext && b.nat[k].rem_ip_be == rem_ip_be &&
		    b.nat[k].rem_port == rem_port)
			return &b.nat[k];
	return NULL;
}

/* The remote's port as the NAT keys it (an echo's: 0). */
static uint16_t
rem_port(const uint8_t *f, const struct l4 *v, int side)
{
	return v->proto == IPPROTO_ICMP ? 0 : be16_at(f + v->port_off[side]);
}

/* 0 is UDP's "none" (RFC 768): kept, and a checksum that sums to 0 is written 0xffff. */
static bool
udp_none_kept(const uint8_t *before, const uint8_t *after, const struct l4 *v)
{
	return v->proto != IPPROTO_UDP ||
	       (be16_at(before + v->cksum_off) == 0) == (be16_at(after + v->cksum_off) == 0);
}

/* Are f and g (len bytes from the IPv4 header on) the same but for two 16-bit fields? */
static bool
same_but(const uint8_t *f, const uint8_t *g, size_t len, size_t a, size_t c)
{
	for (size_t i = ETH; i < len; i++)
		if (f[i] != g[i] && i != a && i != a + 1 && i != c && i != c + 1)
			return false;
	return true;
}

/* Does a frame of proto from port p's address keep its source port sport (the slice's endpoint there)? */
static bool
keeps_port(uint8_t proto, uint16_t p, uint16_t sport)
{
	return proto == (p == 0 ? IPPROTO_TCP : IPPROTO_UDP) && sport == (p == 0 ? TCP_PORT : UDP_PORT);
}

/* A packet the slice's queues sent: a frame of the namespace's, rewritten as it may be. */
static void
check_forwarded(struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_read(m, 0, rte_pktmbuf_pkt_len(m), b.last_fwd);
	size_t len = rte_pktmbuf_pkt_len(m);
	const struct rte_ether_addr nh_mac[2] = {{{0x02, 0xbb, 0, 0, 0, 0x02}}, SP_TEST_NH_MAC};
	const struct sp_nat_view *e;
	uint16_t p, sport = 0;
	unsigned int j;
	struct l4 v;

	SP_TEST_CHECK(sp_meta(m)->slice == HOST && f != NULL && len <= SP_FUZZ_MAX_PKT &&
			      viewable(f, len, &v) && len == ETH + be16_at(f + ETH + 2),
		      "a packet of slice %u, %zu bytes, not a whole frame the slice may send",
		      sp_meta(m)->slice, len);
	if (f != b.last_fwd)
		memcpy(b.last_fwd, f, len);
	b.last_fwd_len = (uint16_t)len;
	f = b.last_fwd;
	for (p = 0; p < 2 && node->ports[p].ip_be != rte_cpu_to_be_32(be32_at(f + ETH + 12)); p++)
		;
	SP_TEST_CHECK(p < 2 && sp_meta(m)->out_port == p && be32_at(f + ETH + 16) == nh[p] &&
			      memcmp(f, &nh_mac[p], 6) == 0 && memcmp(f + 6, &node->ports[p].mac, 6) == 0,
		      "a frame left by port %u from %08x to %08x, wrong Ethernet addresses",
		      sp_meta(m)->out_port, be32_at(f + ETH + 12), be32_at(f + ETH + 16));
	SP_TEST_CHECK(v.proto != IPPROTO_ICMP || f[v.l4] == RTE_IP_ICMP_ECHO_REQUEST,
		      "ICMP type %u forwarded", f[v.l4]);
	/*
	 * The frame it was: alike but for the source port and checksum, its port
	 * kept if the slice has that endpoint, else the NAT's for its flow.
	 * Twins alike in their ports too are sent in order (one flow, one queue).
	 */
	e = nat_entry(v.proto, be16_at(f + v.port_off[0]), rte_cpu_to_be_32(be32_at(f + ETH + 16)),
		      rem_port(f, &v, 1));
	for (j = 0; j < b.nb_out; j++) {
		sport = be16_at(b.out[j].bytes + v.port_off[0]);
		if (!b.out[j].done && b.out[j].len >= len &&
		    same_but(f, b.out[j].bytes, len, v.port_off[0], v.cksum_off) &&
		    (keeps_port(v.proto, p, sport) ? sport == be16_at(f + v.port_off[0]) :
						     e != NULL && e->inner == sport))
			break;
	}
	SP_TEST_CHECK(j < b.nb_out, "a forwarded packet of %zu bytes is no frame of the namespace "
		      "with its source port (the endpoint's, or one the NAT lists for it) and "
		      "checksum rewritten", len);
	b.out[j].done = true;
	SP_TEST_CHECK(!l4_cksum_ok(b.out[j].bytes, &v) || l4_cksum_ok(f, &v),
		      "frame %u: its checksum was right, it is not after the rewrite", j);
	SP_TEST_CHECK(udp_none_kept(b.out[j].bytes, f, &v), "frame %u: UDP checksum %04x went "
		      "out as %04x", j, be16_at(b.out[j].bytes + v.cksum_off), be16_at(f + v.cksum_off));
}

static uint64_t
drops(uint16_t slice)
{
	uint64_t sum = 0;

	for (unsigned int r = 0; r < SP_REASON_MAX; r++)
		sum += st.slice[slice].reason[r];
	return sum;
}

/* The namespace's frames: one read, then what the queues send, all of it. */
static void
run_out(void)
{
	static uint64_t clock;
	uint64_t from = st.slice[HOST].from_netns.pkts, fwd = st.slice[HOST].fwd.pkts;
	uint64_t dropped = drops(HOST), held = st.slice[HOST].held.pkts, sent = 0;
	uint32_t pos = 0;
	struct sp_neigh_want req[64];

	send_out();
	sp_hslice_output(&node->fastpath, &node->npes[0], host, &st);
	SP_TEST_CHECK(recv(tap[1], b.msg, sizeof(b.msg), MSG_DONTWAIT) < 0 &&
			      recv(tap[0], b.msg, sizeof(b.msg), MSG_DONTWAIT) < 0,
		      "frames left unread in the TAP, or written back into it");
	b.nb_nat = 0;
	while (b.nb_nat < RTE_DIM(b.nat) && sp_nat_next(host->host->nat, &pos, rte_rdtsc(),
							&b.nat[b.nb_nat]))
		b.nb_nat++;
	b.last_fwd_len = 0;
	for (uint16_t p = 0; p < 2; p++) {
		uint16_t n;

		/* Later and later: the schedulers' tokens are there, never going backwards. */
		do {
			clock = RTE_MAX(clock + rte_get_tsc_hz(), rte_rdtsc());
			n = sp_qm_dequeue_burst(node->npes[0].qm, p, clock, b.pkts, SP_BURST);
			for (uint16_t i = 0; i < n; i++)
				check_forwarded(b.pkts[i]);
			rte_pktmbuf_free_bulk(b.pkts, n);
			sent += n;
		} while (n > 0);
	}
	while (rte_ring_dequeue_burst_elem(node->resolve_ring, req, sizeof(req[0]), RTE_DIM(req),
					   NULL) > 0)
		;
	/* Frames to unresolved next hops wait for ARP (npe.h); none comes here: let them go. */
	held = st.slice[HOST].held.pkts - held;
	sp_npe_hold_free(&node->npes[0]);
	SP_TEST_CHECK(st.slice[HOST].from_netns.pkts - from == b.nb_out,
		      "%u frames sent, %lu counted from_netns", b.nb_out,
		      (unsigned long)(st.slice[HOST].from_netns.pkts - from));
	SP_TEST_CHECK(st.slice[HOST].fwd.pkts - fwd == sent && drops(HOST) - dropped + sent + held ==
			      b.nb_out,
		      "%u frames sent: %lu forwarded (%lu counted), %lu dropped, %lu held", b.nb_out,
		      (unsigned long)sent, (unsigned long)(st.slice[HOST].fwd.pkts - fwd),
		      (unsigned long)(drops(HOST) - dropped), (unsigned long)held);
}

/* What the slice should be given of inbound frame i: its bytes into f, its length; 0: dropped. */
static size_t
expect_in(unsigned int i, uint8_t *f, enum sp_reason *why)
{
	const struct frame *in = &b.in[i];
	const struct sp_nat_view *e;
	struct l4 v;

	*why = SP_REASON_NONE;
	if (in->kind == TO_ALPHA) {
		*why = SP_REASON_NO_ENDPOINT;
		return 0;
	}
	memcpy(f, in->bytes, in->len);
	memcpy(f, &host->host->mac, 6);
	if (!in->nat)
		return in->len;
	e = viewable(f, in->len, &v) ?
		    nat_entry(v.proto, be16_at(f + v.port_off[1]),
			      rte_cpu_to_be_32(be32_at(f + ETH + 12)), rem_port(f, &v, 0)) : NULL;
	if (e == NULL) {
		*why = SP_REASON_NAT_MISS;
		return 0;
	}
	f[v.port_off[1]] = (uint8_t)(e->inner >> 8);
	f[v.port_off[1] + 1] = (uint8_t)e->inner;
	return in->len;
}

/* A frame the slice was given alone: one of the burst's, as expected. */
static void
check_given(const uint8_t *f, size_t len)
{
	uint8_t want[SP_FUZZ_MAX_PKT + 1];
	enum sp_reason why;
	struct l4 v;

	for (unsigned int i = 0; i < b.nb_in; i++) {
		bool l4 = viewable(b.in[i].bytes, b.in[i].len, &v);

		if (b.in[i].done || expect_in(i, want, &why) != len || memcmp(want, f, 6) != 0 ||
		    !same_but(want, f, len, l4 ? v.cksum_off : 0, 0))
			continue;
		SP_TEST_CHECK(!l4 || !l4_cksum_ok(b.in[i].bytes, &v) || l4_cksum_ok(f, &v),
			      "frame %u from outside: its checksum was right, it is not now", i);
		SP_TEST_CHECK(!l4 || udp_none_kept(b.in[i].bytes, f, &v), "frame %u from outside: "
			      "UDP checksum %04x given as %04x", i, be16_at(b.in[i].bytes + v.cksum_off),
			      be16_at(f + v.cksum_off));
		b.in[i].done = true;
		return;
	}
	sp_test_fail("the slice was given %zu bytes that are no frame from outside as expected",
		     len);
}

/* The outside's frames: one burst into the slice's interface. */
static void
run_in(void)
{
	uint64_t given = st.slice[HOST].to_netns.pkts, miss = st.slice[HOST].reason[SP_REASON_NAT_MISS];
	uint64_t alpha = st.slice[SP_TEST_SLICE].reason[SP_REASON_NO_ENDPOINT], singles = 0;
	uint64_t want_given = 0, want_miss = 0, want_alpha = 0;
	uint8_t f[SP_FUZZ_MAX_PKT + 1];
	ssize_t got;

	for (unsigned int i = 0; i < b.nb_in; i++) {
		enum sp_reason why;

		expect_in(i, f, &why);
		want_given += why == SP_REASON_NONE;
		want_miss += why == SP_REASON_NAT_MISS;
		want_alpha += why == SP_REASON_NO_ENDPOINT;
	}
	if (b.nb_in > 0)
		sp_hslice_input(&node->fastpath, b.pkts, b.nb_in, &st);
	while ((got = recv(tap[1], b.msg, sizeof(b.msg), MSG_DONTWAIT)) >= 0) {
		struct virtio_net_hdr h;

		SP_TEST_CHECK(got >= (ssize_t)sizeof(h), "a write of %zd bytes into the TAP", got);
		memcpy(&h, b.msg, sizeof(h));
		if (h.gso_type == VIRTIO_NET_HDR_GSO_NONE) {
			check_given(b.msg + sizeof(h), (size_t)got - sizeof(h));
			singles++;
		}
	}
	SP_TEST_CHECK(st.slice[HOST].to_netns.pkts - given == want_given && singles <= want_given,
		      "%lu frames to give the slice, %lu counted to_netns, %lu alone",
		      (unsigned long)want_given,
		      (unsigned long)(st.slice[HOST].to_netns.pkts - given), (unsigned long)singles);
	SP_TEST_CHECK(st.slice[HOST].reason[SP_REASON_NAT_MISS] - miss == want_miss &&
			      st.slice[SP_TEST_SLICE].reason[SP_REASON_NO_ENDPOINT] - alpha ==
				      want_alpha,
		      "nat_miss %lu (%lu expected), no_endpoint %lu (%lu expected)",
		      (unsigned long)(st.slice[HOST].reason[SP_REASON_NAT_MISS] - miss),
		      (unsigned long)want_miss,
		      (unsigned long)(st.slice[SP_TEST_SLICE].reason[SP_REASON_NO_ENDPOINT] - alpha),
		      (unsigned long)want_alpha);
}

/* The outside's frame k (header hdr, bytes p): built, cut as decap cuts, its packet made. */
static void
make_in(uint16_t hdr, const uint8_t *p, size_t len)
{
	struct frame *in = &b.in[b.nb_in];
	struct rte_mbuf *m;
	struct sp_meta *meta;
	struct l4 v;

	in->kind = (enum kind)(hdr >> KIND_SHIFT & 3);
	in->done = false;
	in->len = in->kind == ANSWER ? (uint16_t)answer(in->bytes) : 0;
	if (in->len == 0) {
		if (in->kind == ANSWER)
			in->kind = TO_NAT;
		memcpy(in->bytes, p, len);
		if (hdr & FIX_CKSUM)
			fix_cksums(in->bytes, len);
		in->len = (uint16_t)len;
	}
	/* Decap hands a host slice whole IPv4 frames only, cut to their length. */
	if (in->kind != TO_ALPHA && in->len < ETH + 20)
		return;
	if (viewable(in->bytes, in->len, &v))
		in->len = (uint16_t)(ETH + be16_at(in->bytes + ETH + 2));
	m = sp_fuzz_mbuf(in->bytes, in->len, 0, 0);
	meta = sp_meta(m);
	meta->slice = in->kind == TO_ALPHA ? SP_TEST_SLICE : HOST;
	in->nat = in->kind == TO_NAT || (in->kind == ANSWER && viewable(in->bytes, in->len, &v) &&
					 be16_at(in->bytes + v.port_off[1]) - NAT_FIRST < NAT_COUNT);
	meta->in_ep = in->nat ? SP_ENDPOINT_NAT : host->endpoints[0];
	b.pkts[b.nb_in++] = m;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int in_use = rte_mempool_in_use_count(node->pool);
	struct {
		uint16_t hdr;
		const uint8_t *p;
		size_t len;
	} ins[SP_BURST];
	unsigned int nb_ins = 0;
	size_t off = 0;

	b.nb_out = 0;
	while (off + 2 <= size) {
		uint16_t hdr = be16_at(data + off);
		size_t len = RTE_MIN((size_t)(hdr & LEN_MASK), size - off - 2);

		off += 2;
		if ((hdr & FROM_OUTSIDE) && nb_ins < SP_BURST) {
			ins[nb_ins++] = (typeof(ins[0])){hdr, data + off, len};
		} else if (!(hdr & FROM_OUTSIDE) && len > 0 && b.nb_out < SP_BURST) {
			/* A TAP gives no empty frame. */
			struct frame *out = &b.out[b.nb_out++];

			memcpy(out->bytes, data + off, len);
			if (hdr & FIX_CKSUM)
				fix_cksums(out->bytes, len);
			out->len = (uint16_t)len;
			out->done = false;
		}
		off += len;
	}
	run_out();
	b.nb_in = 0;
	for (unsigned int k = 0; k < nb_ins; k++)
		make_in(ins[k].hdr, ins[k].p, ins[k].len);
	run_in();
	SP_TEST_CHECK(rte_mempool_in_use_count(node->pool) == in_use,
		      "%u packets in use before, %u after", in_use,
		      rte_mempool_in_use_count(node->pool));
	return 0;
}
