/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: a host slice's TAP writes (src/gpe/tap_io.c): a burst of
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
 * refused; every packet goes back to the pool.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <linux/virtio_net.h>
#include <sys/socket.h>

#include <rte_ip.h>
#include <rte_tcp.h>

#include "fuzz_pkt.h"
#include "gpe/tap_io.h"

#define LEN_MASK 0x07ff
#define FIX_CKSUM 0x0800
#define NEXT_SEGMENT 0x1000
#define ETH 14
#define MSG_MAX (sizeof(struct virtio_net_hdr) + 65536)

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
	uint8_t msg[MSG_MAX];
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

/* A message without GSO: one frame of the burst, unchanged. */
static void
check_single(unsigned int k, const uint8_t *f, size_t len)
{
	for (unsigned int i = 0; i < b.n; i++) {
		if (b.written[i] || len != b.len[i] || memcmp(f, b.bytes[i], len) != 0)
			continue;
		SP_TEST_CHECK(b.w[k].frames == 1 && b.w[k].bytes == b.len[i],
			      "write %u: one frame of %u bytes counted as %u frames, %u bytes", k,
			      b.len[i], b.w[k].frames, b.w[k].bytes);
		b.written[i] = true;
		return;
	}
	sp_test_fail("write %u: %zu bytes without GSO that are no frame of the burst", k, len);
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

/*
 * The burst's unwritten marked frame of the flow of f carrying seq with the
 * payload p (up to left bytes), the first of the message or not; b.n if none.
 * Of two such frames (the same segment sent twice, one with a bad checksum)
 * the one with a good checksum is the one GRO may have taken.
 */
static unsigned int
segment_at(const uint8_t *f, size_t hdrs, size_t ihl, uint32_t seq, const uint8_t *p,
	   size_t left, bool first)
{
	unsigned int found = b.n;

	for (unsigned int i = 0; i < b.n; i++) {
		const uint8_t *g = b.bytes[i];
		size_t plen = b.len[i] - hdrs;

		if (b.written[i] || !b.marked[i] || b.len[i] <= hdrs || plen > left ||
		    be32_at(g + ETH + ihl + 4) != seq || !same_headers(i, f, hdrs, ihl, first) ||
		    memcmp(g + hdrs, p, plen) != 0)
			continue;
		if (rte_ipv4_udptcp_cksum_verify((const void *)(g + ETH), g + ETH + ihl) == 0)
			return i;
		if (found == b.n)
			found = i;
	}
	return found;
}

/* A TCPv4 GSO message: segments of the burst, in order, behind the first one's headers. */
static void
check_merged(unsigned int k, const struct virtio_net_hdr *h, const uint8_t *f, size_t len)
{
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(f + ETH);
	size_t ihl = rte_ipv4_hdr_len(ip), hdrs = h->hdr_len, off;
	const struct rte_tcp_hdr *tcp = (const struct rte_tcp_hdr *)(f + ETH + ihl);
	uint32_t seq = be32_at(f + ETH + ihl + 4), bytes = 0;
	uint16_t frames = 0;

	SP_TEST_CHECK(h->flags == VIRTIO_NET_HDR_F_NEEDS_CSUM && h->csum_start == ETH + ihl &&
			      h->csum_offset == offsetof(struct rte_tcp_hdr, cksum) &&
			      hdrs == ETH + ihl + (size_t)(tcp->data_off >> 4) * 4 && len > hdrs,
		      "write %u: virtio-net header flags %u, csum %u+%u, hdr_len %u of %zu bytes", k,
		      h->flags, h->csum_start, h->csum_offset, h->hdr_len, len);
	SP_TEST_CHECK(sp_test_ipv4_cksum_ok(ip) && be16_at(f + ETH + 2) == len - ETH &&
			      tcp->cksum == rte_ipv4_phdr_cksum(ip, 0),
		      "write %u: IPv4 length %u of %zu bytes, or a checksum not remade", k,
		      be16_at(f + ETH + 2), len);
	for (off = hdrs; off < len;) {
		unsigned int i = segment_at(f, hdrs, ihl, seq, f + off, len - off, off == hdrs);
		size_t plen;

		SP_TEST_CHECK(i < b.n, "write %u: %zu bytes at sequence %u are no segment of the "
			      "burst", k, len - off, seq);
		plen = b.len[i] - hdrs;
		SP_TEST_CHECK(rte_ipv4_udptcp_cksum_verify((const void *)(b.bytes[i] + ETH),
							   b.bytes[i] + ETH + ihl) == 0,
			      "write %u: frame %u merged with a bad TCP checksum", k, i);
		SP_TEST_CHECK(off > hdrs || h->gso_size == plen,
			      "write %u: gso_size %u, the first segment carries %zu", k, h->gso_size,
			      plen);
		b.written[i] = true;
		frames++;
		bytes += b.len[i];
		seq += (uint32_t)plen;
		off += plen;
	}
	SP_TEST_CHECK(frames > 1 && b.w[k].frames == frames && b.w[k].bytes == bytes,
		      "write %u: %u segments of %u bytes merged, counted as %u frames, %u bytes", k,
		      frames, bytes, b.w[k].frames, b.w[k].bytes);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int in_use = rte_mempool_in_use_count(pool);
	uint16_t n;

	split_input(data, size);
	n = sp_tap_write_burst(fds[0], b.pkts, b.n, b.w);
	SP_TEST_CHECK(n <= b.n, "%u writes for %u frames", n, b.n);
	for (unsigned int k = 0; k < n; k++) {
		struct virtio_net_hdr h;
		ssize_t got;

		SP_TEST_CHECK(b.w[k].reason == SP_REASON_NONE, "write %u refused (reason %u)", k,
			      b.w[k].reason);
		got = recv(fds[1], b.msg, sizeof(b.msg), MSG_DONTWAIT);
		SP_TEST_CHECK(got >= (ssize_t)sizeof(h), "write %u: a message of %zd bytes", k, got);
		memcpy(&h, b.msg, sizeof(h));
		if (h.gso_type == VIRTIO_NET_HDR_GSO_NONE) {
			SP_TEST_CHECK(h.flags == 0, "write %u: flags %u without GSO", k, h.flags);
			check_single(k, b.msg + sizeof(h), (size_t)got - sizeof(h));
		} else {
			SP_TEST_CHECK(h.gso_type == VIRTIO_NET_HDR_GSO_TCPV4, "write %u: GSO type %u",
				      k, h.gso_type);
			check_merged(k, &h, b.msg + sizeof(h), (size_t)got - sizeof(h));
		}
	}
	SP_TEST_CHECK(recv(fds[1], b.msg, sizeof(b.msg), MSG_DONTWAIT) < 0,
		      "more messages than writes");
	for (unsigned int i = 0; i < b.n; i++)
		SP_TEST_CHECK(b.written[i], "frame %u of %u was not written", i, b.n);
	rte_pktmbuf_free_bulk(b.pkts, n);
	SP_TEST_CHECK(rte_mempool_in_use_count(pool) == in_use,
		      "%u packets in use before the burst, %u after", in_use,
		      rte_mempool_in_use_count(pool));
	return 0;
}
