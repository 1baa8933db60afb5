/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: a host slice's TAP writes (src/hostslice/tap_io.c): a burst of
 * frames, the TCP segments among them marked as the host-slice path marks
 * them, merged by GRO and written into a datagram socket that stands for
 * the TAP (one message a write, as the unit test test_tap_io.c does).
 *
 * Input: frames, each a big-endian 16-bit header and bytes:
 *   bits 0-10  length (cut to what is left of the input)
 *   bit 11     write correct IPv4 and TCP checksums
 *   bit 12     a next segment: the previous frame's headers, its sequence
 *              number plus its payload, the lengths and checksums right;
 *              the bytes are the payload
 * Frames that pass the checks of the host-slice path (IPv4, not a fragment,
 * TCP header within the frame and the IPv4 length) are cut to their IPv4
 * length, as decap hands them over, and marked for merging.
 *
 * Invariants: every frame is written once: a message without GSO is one
 * frame unchanged; a TCPv4 GSO message is segments of one flow with right
 * checksums, one acknowledgement and the same flags, in sequence order,
 * their payloads concatenated behind the first one's headers (IPv4 length
 * and checksum remade, TCP checksum the pseudo-header's), gso_size the
 * first one's payload, and its count and bytes are theirs; nothing is
 * refused; every packet goes back to the pool. A burst may hold segments
 * that are alike (one sent twice, one's payload the start of another's), so
 * the check is a search: some way to take each message's frames from the
 * burst, each frame once, must explain all the messages.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/virtio_net.h>
#include <sys/socket.h>

#include <rte_ip.h>
#include <rte_tcp.h>

#include "fuzz_pkt.h"
#include "hostslice/tap_io.h"

#define LEN_MASK 0x07ff
#define FIX_CKSUM 0x0800
#define NEXT_SEGMENT 0x1000
#define ETH 14
#define MSG_MAX (sizeof(struct virtio_net_hdr) + 65536)
#define SEARCH_STEPS 1000000u

static struct rte_mempool *pool;
static int fds[2];

static struct {
	uint16_t n;
	uint16_t len[SP_NPE_ROUND];
	uint8_t bytes[SP_NPE_ROUND][SP_FUZZ_MAX_PKT + 1];
	bool marked[SP_NPE_ROUND];
	bool written[SP_NPE_ROUND];
	struct rte_mbuf *pkts[SP_NPE_ROUND];
	struct sp_tap_written w[SP_NPE_ROUND];
	uint16_t writes;
	uint8_t msg[SP_NPE_ROUND][MSG_MAX];
	struct message {
		struct virtio_net_hdr h;
		const uint8_t *f; /* the frame behind h */
		size_t len;
	} m[SP_NPE_ROUND];
	/* The search: steps left, and why it failed where it got furthest. */
	unsigned int budget;
	unsigned int why_k;
	size_t why_off;
	char why[160];
} b;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int size = 1 << 20;

	(void)argc;
	(void)argv;
	pool = sp_test_eal_init();
	SP_TEST_CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, fds) == 0, "no socket pair");
	/* Room for a whole burst; never block: a full socket shows as a refused write. */
	setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	return 0;
}

static void
put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/*
 * The host-slice path's checks before it marks a frame (hslice.c's
 * view_l4, for TCP): its header lengths, or false.
 */
static bool
tcp_viewable(const uint8_t *f, size_t len, uint16_t *ihl, uint16_t *thl)
{
	uint16_t total;

	if (len < ETH + 20 || be16_at(f + 12) != RTE_ETHER_TYPE_IPV4 || f[ETH] >> 4 != 4)
		return false;
	*ihl = (uint16_t)((f[ETH] & 0xf) * 4);
	total = be16_at(f + ETH + 2);
	if (*ihl < 20 || total < *ihl || ETH + (size_t)total > len ||
	    (be16_at(f + ETH + 6) & 0x3fff) != 0 || f[ETH + 9] != IPPROTO_TCP ||
	    len < ETH + (size_t)*ihl + 20 || total < *ihl + 20)
		return false;
	*thl = (uint16_t)((f[ETH + *ihl + 12] >> 4) * 4);
	return *thl >= 20 && *thl <= total - *ihl && len >= ETH + (size_t)*ihl + *thl;
}

/* Right IPv4 (and, where the lengths allow, TCP) checksums. */
static void
fix_cksums(uint8_t *f, size_t len)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + ETH);
	uint16_t ihl, thl;

	if (len < ETH || be16_at(f + 12) != RTE_ETHER_TYPE_IPV4)
		return;
	sp_test_fix_ipv4_cksum(f + ETH, len - ETH);
	if (tcp_viewable(f, len, &ihl, &thl)) {
		struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)(f + ETH + ihl);

		tcp->cksum = 0;
		tcp->cksum = rte_ipv4_udptcp_cksum(ip, tcp);
	}
}

/* The previous frame's next segment, its payload from the input: its length, 0 if none fits. */
static size_t
next_segment(uint8_t *f, const uint8_t *payload, size_t plen)
{
	const uint8_t *prev = b.bytes[b.n - 1];
	uint16_t ihl, thl, hdrs;

	if (!tcp_viewable(prev, b.len[b.n - 1], &ihl, &thl))
		return 0;
	hdrs = (uint16_t)(ETH + ihl + thl);
	plen = RTE_MIN(plen, (size_t)SP_FUZZ_MAX_PKT - hdrs);
	memcpy(f, prev, hdrs);
	memcpy(f + hdrs, payload, plen);
	put_be16(f + ETH + 2, (uint16_t)(ihl + thl + plen));
	/* Its sequence number: the previous one's plus its payload. */
	{
		uint32_t seq = be32_at(prev + ETH + ihl + 4) +
			       (be16_at(prev + ETH + 2) - ihl - thl);
		uint8_t *s = f + ETH + ihl + 4;

		s[0] = (uint8_t)(seq >> 24);
		s[1] = (uint8_t)(seq >> 16);
		s[2] = (uint8_t)(seq >> 8);
		s[3] = (uint8_t)seq;
	}
	fix_cksums(f, hdrs + plen);
	return hdrs + plen;
}

static void
split_input(const uint8_t *data, size_t size)
{
	size_t off = 0;

	b.n = 0;
	while (b.n < SP_NPE_ROUND && off + 2 <= size) {
		uint16_t hdr = be16_at(data + off), ihl, thl;
		size_t len = RTE_MIN((size_t)(hdr & LEN_MASK), size - off - 2), made = 0;
		uint8_t *f = b.bytes[b.n];

		off += 2;
		if ((hdr & NEXT_SEGMENT) && b.n > 0)
			made = next_segment(f, data + off, len);
		if (made == 0) {
			memcpy(f, data + off, len);
			if (hdr & FIX_CKSUM)
				fix_cksums(f, len);
			made = len;
		}
		off += len;
		b.marked[b.n] = tcp_viewable(f, made, &ihl, &thl);
		/* As decap hands a host slice's frames: cut to their IPv4 length. */
		if (b.marked[b.n])
			made = ETH + be16_at(f + ETH + 2);
		b.len[b.n] = (uint16_t)made;
		b.pkts[b.n] = sp_fuzz_mbuf(f, made, 0, 0);
		b.pkts[b.n]->packet_type = 0;
		if (b.marked[b.n])
			sp_tap_mark_tcp(b.pkts[b.n], ihl, thl);
		b.written[b.n] = false;
		b.n++;
	}
}

/*
 * Are frame i's headers those of f (hdrs bytes, IPv4 ihl)? The first
 * segment's are all there but the lengths and checksums GRO remakes; a
 * later one's must be of the same flow, acknowledgement and flags (its
 * flags are lost in the merge) with headers as long.
 */
static bool
same_headers(unsigned int i, const uint8_t *f, size_t hdrs, size_t ihl, bool first)
{
	const uint8_t *g = b.bytes[i];
	size_t t = ETH + ihl; /* the TCP header */

	if ((g[ETH] & 0xf) * 4 != ihl || (size_t)(g[t + 12] >> 4) * 4 != hdrs - t ||
	    memcmp(g + ETH + 12, f + ETH + 12, 8) != 0 || memcmp(g + t, f + t, 4) != 0 ||
	    memcmp(g + t + 8, f + t + 8, 4) != 0 || g[t + 13] != f[t + 13])
		return false;
	return !first || (memcmp(g, f, ETH + 2) == 0 && memcmp(g + ETH + 4, f + ETH + 4, 6) == 0 &&
			  memcmp(g + ETH + 12, f + ETH + 12, ihl - 12 + 8) == 0 &&
			  memcmp(g + t + 8, f + t + 8, 8) == 0 &&
			  memcmp(g + t + 18, f + t + 18, hdrs - t - 18) == 0);
}

/* An unwritten frame before i with the same bytes: trying i too would only repeat it. */
static bool
repeats_earlier(unsigned int i)
{
	for (unsigned int j = 0; j < i; j++)
		if (!b.written[j] && b.len[j] == b.len[i] &&
		    memcmp(b.bytes[j], b.bytes[i], b.len[i]) == 0)
			return true;
	return false;
}

static void why_not(unsigned int k, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Why the search failed, said where it got furthest (message k, offset off):
 * the first reason given there, a frame refused for a cause before "none".
 */
static void
why_not(unsigned int k, size_t off, const char *fmt, ...)
{
	va_list ap;

	if (b.why[0] != '\0' && (k < b.why_k || (k == b.why_k && off <= b.why_off)))
		return;
	b.why_k = k;
	b.why_off = off;
	va_start(ap, fmt);
	vsnprintf(b.why, sizeof(b.why), fmt, ap);
	va_end(ap);
}

static bool explain(unsigned int k);

/* A message without GSO: one unwritten frame of the burst, unchanged. */
static bool
explain_single(unsigned int k)
{
	const struct message *m = &b.m[k];

	for (unsigned int i = 0; i < b.n; i++) {
		if (b.written[i] || m->len != b.len[i] || memcmp(m->f, b.bytes[i], m->len) != 0 ||
		    repeats_earlier(i))
			continue;
		if (b.w[k].frames != 1 || b.w[k].bytes != b.len[i]) {
			why_not(k, 0, "write %u: one frame of %u bytes counted as %u frames, %u bytes",
				k, b.len[i], b.w[k].frames, b.w[k].bytes);
			continue;
		}
		b.written[i] = true;
		if (explain(k + 1))
			return true;
		b.written[i] = false;
	}
	why_not(k, 0, "write %u: %zu bytes without GSO that are no unwritten frame of the burst",
		k, m->len);
	return false;
}

/*
 * The rest of a TCPv4 GSO message from off (sequence seq; frames and bytes
 * taken so far): segments of the burst, in order, behind the first one's
 * headers. Each unwritten segment that fits is tried in turn: of two at one
 * sequence (one's payload the start of the other's, or one sent twice) only
 * the rest of the burst tells which one GRO took.
 */
static bool
explain_segments(unsigned int k, size_t off, uint32_t seq, uint16_t frames, uint32_t bytes)
{
	const struct message *m = &b.m[k];
	size_t ihl = (size_t)(m->f[ETH] & 0xf) * 4, hdrs = m->h.hdr_len;
	bool first = off == hdrs;

	if (off == m->len) {
		if (frames > 1 && b.w[k].frames == frames && b.w[k].bytes == bytes)
			return explain(k + 1);
		why_not(k, off, "write %u: %u segments of %u bytes merged, counted as %u frames, "
			"%u bytes", k, frames, bytes, b.w[k].frames, b.w[k].bytes);
		return false;
	}
	SP_TEST_CHECK(--b.budget > 0, "write %u: no verdict within %u steps", k, SEARCH_STEPS);
	for (unsigned int i = 0; i < b.n; i++) {
		const uint8_t *g = b.bytes[i];
		size_t plen = b.len[i] - hdrs;

		if (b.written[i] || !b.marked[i] || b.len[i] <= hdrs || plen > m->len - off ||
		    be32_at(g + ETH + ihl + 4) != seq || !same_headers(i, m->f, hdrs, ihl, first) ||
		    memcmp(g + hdrs, m->f + off, plen) != 0 || repeats_earlier(i))
			continue;
		/* GRO takes only the frames the host-slice path marked: a right TCP checksum. */
		if (rte_ipv4_udptcp_cksum_verify((const void *)(g + ETH), g + ETH + ihl) != 0) {
			why_not(k, off, "write %u: frame %u merged with a bad TCP checksum", k, i);
			continue;
		}
		if (first && m->h.gso_size != plen) {
			why_not(k, off, "write %u: gso_size %u, the first segment carries %zu", k,
				m->h.gso_size, plen);
			continue;
		}
		b.written[i] = true;
		if (explain_segments(k, off + plen, seq + (uint32_t)plen, (uint16_t)(frames + 1),
				     bytes + b.len[i]))
			return true;
		b.written[i] = false;
	}
	why_not(k, off, "write %u: %zu bytes at sequence %u are no unwritten segment of the burst",
		k, m->len - off, seq);
	return false;
}

/* Messages k and on are the frames not yet written, and then every frame was written once. */
static bool
explain(unsigned int k)
{
	const struct message *m = &b.m[k];

	if (k == b.writes) {
		for (unsigned int i = 0; i < b.n; i++)
			if (!b.written[i]) {
				why_not(k, 0, "frame %u of %u was not written", i, b.n);
				return false;
			}
		return true;
	}
	if (m->h.gso_type == VIRTIO_NET_HDR_GSO_NONE)
		return explain_single(k);
	return explain_segments(k, m->h.hdr_len,
				be32_at(m->f + ETH + (size_t)(m->f[ETH] & 0xf) * 4 + 4), 0, 0);
}

/* A TCPv4 GSO message's own headers: the virtio-net header, the lengths and checksums remade. */
static void
check_merged_headers(unsigned int k, const struct virtio_net_hdr *h, const uint8_t *f,
		     size_t len)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(f + ETH);
	size_t ihl = rte_ipv4_hdr_len(ip), hdrs = h->hdr_len;
	const struct rte_tcp_hdr *tcp = (const struct rte_tcp_hdr *)(f + ETH + ihl);

	SP_TEST_CHECK(h->gso_type == VIRTIO_NET_HDR_GSO_TCPV4, "write %u: GSO type %u", k,
		      h->gso_type);
	SP_TEST_CHECK(h->flags == VIRTIO_NET_HDR_F_NEEDS_CSUM && h->csum_start == ETH + ihl &&
			      h->csum_offset == offsetof(struct rte_tcp_hdr, cksum) &&
			      hdrs == ETH + ihl + (size_t)(tcp->data_off >> 4) * 4 && len > hdrs,
		      "write %u: virtio-net header flags %u, csum %u+%u, hdr_len %u of %zu bytes", k,
		      h->flags, h->csum_start, h->csum_offset, h->hdr_len, len);
	SP_TEST_CHECK(sp_test_ipv4_cksum_ok(ip) && be16_at(f + ETH + 2) == len - ETH &&
			      tcp->cksum == rte_ipv4_phdr_cksum(ip, 0),
		      "write %u: IPv4 length %u of %zu bytes, or a checksum not remade", k,
		      be16_at(f + ETH + 2), len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int in_use = rte_mempool_in_use_count(pool);

	split_input(data, size);
	b.writes = sp_tap_write_burst(fds[0], b.pkts, b.n, b.w);
	SP_TEST_CHECK(b.writes <= b.n, "%u writes for %u frames", b.writes, b.n);
	for (unsigned int k = 0; k < b.writes; k++) {
		struct message *m = &b.m[k];
		ssize_t got;

		SP_TEST_CHECK(b.w[k].reason == SP_REASON_NONE, "write %u refused (reason %u)", k,
			      b.w[k].reason);
		got = recv(fds[1], b.msg[k], sizeof(b.msg[k]), MSG_DONTWAIT);
		SP_TEST_CHECK(got >= (ssize_t)sizeof(m->h), "write %u: a message of %zd bytes", k,
			      got);
		memcpy(&m->h, b.msg[k], sizeof(m->h));
		m->f = b.msg[k] + sizeof(m->h);
		m->len = (size_t)got - sizeof(m->h);
		if (m->h.gso_type == VIRTIO_NET_HDR_GSO_NONE)
			SP_TEST_CHECK(m->h.flags == 0, "write %u: flags %u without GSO", k, m->h.flags);
		else
			check_merged_headers(k, &m->h, m->f, m->len);
	}
	SP_TEST_CHECK(recv(fds[1], b.msg[0], sizeof(b.msg[0]), MSG_DONTWAIT) < 0,
		      "more messages than writes");
	b.why[0] = '\0';
	b.budget = SEARCH_STEPS;
	SP_TEST_CHECK(explain(0), "%s", b.why);
	rte_pktmbuf_free_bulk(b.pkts, b.writes);
	SP_TEST_CHECK(rte_mempool_in_use_count(pool) == in_use,
		      "%u packets in use before the burst, %u after", in_use,
		      rte_mempool_in_use_count(pool));
	return 0;
}
