/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A host slice's TAP writes (src/hostslice/tap_io.c), into a datagram socket that
 * stands for the TAP (one message a write): consecutive TCP segments of a
 * flow go as one GSO frame whose virtio-net header and IPv4 header the
 * slice's kernel takes; a segment with a bad checksum, a UDP datagram go
 * on their own with an empty header; every frame is accounted for.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/virtio_net.h>
#include <sys/socket.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include <slicepath/cksum.h>

#include "hostslice/tap_io.h"
#include "sp_test.h"
#include "sp_test_frame.h"

#define MSS 1000
#define HDRS (RTE_ETHER_HDR_LEN + 20 + 20)

static int fds[2];

static int
setup(void **state)
{
	(void)state;
	sp_test_eal_init();
	return socketpair(AF_UNIX, SOCK_DGRAM, 0, fds);
}

static int
teardown(void **state)
{
	(void)state;
	close(fds[0]);
	close(fds[1]);
	return 0;
}

/* A frame from 10.0.0.2:4000 to 10.0.0.1:8080: TCP segment seq (payload MSS bytes), or UDP. */
static struct rte_mbuf *
frame(bool tcp, uint32_t seq, bool good_cksum)
{
	const struct rte_ether_addr none = {{0}};
	/* DF as TCP sends: GRO merges only such. */
	const struct sp_test_ip ip = {.src = RTE_IPV4(10, 0, 0, 2), .dst = RTE_IPV4(10, 0, 0, 1),
				      .proto = tcp ? IPPROTO_TCP : IPPROTO_UDP, .ttl = 64,
				      .frag = RTE_IPV4_HDR_DF_FLAG};
	uint8_t b[HDRS + MSS] = {0};
	uint16_t l4len = tcp ? 20 + MSS : 8 + MSS;
	size_t n = sp_test_eth(b, &none, &none, RTE_ETHER_TYPE_IPV4);
	struct rte_ipv4_hdr *iph = (struct rte_ipv4_hdr *)(b + n);

	n += sp_test_ipv4(b + n, &ip, l4len);
	memset(b + HDRS, (int)seq, MSS);
	if (tcp) {
		struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(iph + 1);

		t->src_port = RTE_BE16(4000);
		t->dst_port = RTE_BE16(8080);
		t->sent_seq = rte_cpu_to_be_32(seq);
		t->data_off = 5 << 4;
		t->tcp_flags = RTE_TCP_ACK_FLAG;
		t->rx_win = RTE_BE16(65535);
		t->cksum = rte_ipv4_udptcp_cksum(iph, t);
		if (!good_cksum)
			t->cksum ^= 1;
	} else {
		sp_test_udp(b + n, 4000, 8080, MSS);
	}
	return sp_test_pkt(b, n + l4len, 0);
}

/* The next message the "TAP" took: its virtio-net header and frame; the frame's length. */
static ssize_t
taken(struct virtio_net_hdr *h, uint8_t *f, size_t len)
{
	uint8_t msg[sizeof(*h) + 65536];
	ssize_t n = recv(fds[1], msg, sizeof(msg), MSG_DONTWAIT);

	assert_true(n >= (ssize_t)sizeof(*h));
	memcpy(h, msg, sizeof(*h));
	memcpy(f, msg + sizeof(*h), RTE_MIN((size_t)n - sizeof(*h), len));
	return n - (ssize_t)sizeof(*h);
}

static void
test_segments_merged_into_one_gso_frame(void **state)
{
	struct rte_mbuf *pkts[6];
	struct sp_tap_written w[6];
	static uint8_t f[65536];
	struct virtio_net_hdr h;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(f + RTE_ETHER_HDR_LEN);
	uint16_t n;

	(void)state;
	for (int i = 0; i < 4; i++) {
		pkts[i] = frame(true, 1 + i * MSS, true);
		sp_tap_mark_tcp(pkts[i], 20, 20);
	}
	pkts[4] = frame(true, 1 + 4 * MSS, false); /* bad checksum: not merged */
	sp_tap_mark_tcp(pkts[4], 20, 20);
	pkts[5] = frame(false, 0, true);
	n = sp_tap_write_burst(fds[0], pkts, 6, w);
	assert_int_equal(n, 3);
	/* The four good segments: one frame, a TCPv4 GSO packet of MSS-byte segments. */
	assert_int_equal(w[0].reason, SP_REASON_NONE);
	assert_int_equal(w[0].frames, 4);
	assert_int_equal(w[0].bytes, 4 * (HDRS + MSS));
	assert_int_equal(taken(&h, f, sizeof(f)), HDRS + 4 * MSS);
	assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(h.gso_size, MSS);
	assert_int_equal(h.hdr_len, HDRS);
	assert_int_equal(h.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(h.csum_start, RTE_ETHER_HDR_LEN + 20);
	assert_int_equal(h.csum_offset, 16);
	assert_int_equal(rte_be_to_cpu_16(ip->total_length), 20 + 20 + 4 * MSS);
	assert_true(sp_ipv4_hdr_cksum_ok(ip, 20)); /* remade for the merged length */
	for (int i = 0; i < 4; i++)
		assert_int_equal(f[HDRS + i * MSS], (1 + i * MSS) & 0xff);
	/* The bad one and the datagram: each alone, no GSO, checksums left to the kernel. */
	for (int k = 1; k < 3; k++) {
		assert_int_equal(w[k].reason, SP_REASON_NONE);
		assert_int_equal(w[k].frames, 1);
		taken(&h, f, sizeof(f));
		assert_int_equal(h.gso_type, VIRTIO_NET_HDR_GSO_NONE);
		assert_int_equal(h.flags, 0);
	}
	rte_pktmbuf_free_bulk(pkts, n);
}

/* Two segments of a flow, merged by the write into one frame. */
static uint16_t
write_two_segments(struct rte_mbuf **pkts, struct sp_tap_written *w)
{
	for (int i = 0; i < 2; i++) {
		pkts[i] = frame(true, 1 + i * MSS, true);
		sp_tap_mark_tcp(pkts[i], 20, 20);
	}
	return sp_tap_write_burst(fds[0], pkts, 2, w);
}

static void
test_gone_interface_counted(void **state)
{
	struct rte_mbuf *pkts[2];
	struct sp_tap_written w[2];
	uint16_t n;

	(void)state;
	close(fds[1]); /* the reader gone: every write fails */
	n = write_two_segments(pkts, w);
	assert_int_equal(n, 1);
	assert_int_equal(w[0].reason, SP_REASON_NETNS_GONE);
	assert_int_equal(w[0].frames, 2); /* both frames are in the count */
	assert_int_equal(w[0].bytes, 2 * (HDRS + MSS));
	rte_pktmbuf_free_bulk(pkts, n);
	fds[1] = socket(AF_UNIX, SOCK_DGRAM, 0); /* for teardown */
}

static void
test_full_interface_counted(void **state)
{
	struct rte_mbuf *pkts[2];
	struct sp_tap_written w[2];
	int fillers = 0;
	char c;
	uint16_t n;

	(void)state;
	/* The reader's queue full, as a TAP's is when its namespace reads too slowly. */
	assert_int_equal(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
	while (send(fds[0], "x", 1, 0) == 1)
		fillers++;
	assert_int_equal(errno, EAGAIN);
	n = write_two_segments(pkts, w);
	assert_int_equal(n, 1);
	assert_int_equal(w[0].reason, SP_REASON_NETNS_FULL);
	assert_int_equal(w[0].frames, 2);
	assert_int_equal(w[0].bytes, 2 * (HDRS + MSS));
	rte_pktmbuf_free_bulk(pkts, n);
	/* Nothing of the merged frame reached the reader: only the fillers are there. */
	while (recv(fds[1], &c, 1, MSG_DONTWAIT) == 1)
		fillers--;
	assert_int_equal(fillers, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_segments_merged_into_one_gso_frame, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_gone_interface_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_interface_counted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
