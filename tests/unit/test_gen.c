/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepath-gen's pieces that need no ports: the spec file's defaults and
 * rate conversion, the frames it sends (checked header by header) and finds
 * again after the node re-encapsulated them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "gen.h"

static const char SPEC[] =
	"{\"duration\": 4, \"streams\": [{\"name\": \"a\", \"dst_mac\": \"02:00:00:00:00:10\","
	" \"src_ip\": \"10.0.0.2\", \"dst_ip\": \"10.0.0.1\", \"dst_port\": 5001,"
	" \"inner_dst\": \"10.9.0.250\", \"flows\": 8, \"payload\": 100, \"bps\": \"10M\","
	" \"phases\": [[0.5, 1], [2, 4]]}]}";

static struct gen_spec spec;

static void
test_spec_defaults_and_rate(void **state)
{
	const struct gen_stream_spec *s = &spec.streams[0];
	char err[256];

	(void)state;
	assert_int_equal(gen_spec_parse(SPEC, &spec, err, sizeof(err)), 0);
	assert_int_equal(spec.nb_streams, 1);
	assert_true(spec.duration == 4 && spec.drain == 0.5 && spec.interval == 1);
	assert_int_equal(s->tx_port, 0);
	assert_int_equal(s->rx_port, 0);
	assert_int_equal(s->src_port, 4000);
	assert_int_equal(s->ttl, 64);
	assert_int_equal(s->inner_src, RTE_BE32(RTE_IPV4(192, 168, 0, 1)));
	/* 170-byte frames take 194 bytes on the wire: 10 Mb/s is 6443.3 frames/s. */
	assert_true(s->pps > 6443.29 && s->pps < 6443.30);
	assert_int_equal(s->nb_phases, 2);
	assert_true(gen_active_seconds(s, 0.5) == 0);
	assert_true(gen_active_seconds(s, 0.75) == 0.25);
	assert_true(gen_active_seconds(s, 3) == 1.5);
	assert_true(gen_active_seconds(s, 10) == 2.5);
}

static void
test_frame_round_trip(void **state)
{
	struct gen_stream st = {.spec = &spec.streams[0], .id = 7};
	uint8_t buf[GEN_MAX_FRAME];
	const struct gen_sig *sig;
	const struct rte_ipv4_hdr *outer = (const void *)(buf + 14), *inner = (const void *)(buf + 42);
	uint64_t seq;

	(void)state;
	gen_frame_build(&st);
	assert_int_equal(st.frame_len, 42 + 28 + 100);
	gen_frame_fill(&st, buf, 13, 12345);
	/* Outer: to the endpoint, checksum right; inner: flow 13 % 8 = 5, checksum right. */
	assert_int_equal(outer->dst_addr, RTE_BE32(RTE_IPV4(10, 0, 0, 1)));
	assert_int_equal(rte_be_to_cpu_16(outer->total_length), 20 + 8 + 128);
	assert_int_equal(rte_ipv4_cksum(outer), 0); /* a right header sums to all ones */
	assert_int_equal(buf[36] << 8 | buf[37], 5001);
	assert_int_equal(inner->dst_addr, RTE_BE32(RTE_IPV4(10, 9, 0, 255)));
	assert_int_equal(inner->time_to_live, 64);
	assert_int_equal(rte_ipv4_cksum(inner), 0);
	sig = gen_frame_sig(buf, st.frame_len);
	assert_non_null(sig);
	memcpy(&seq, &sig->seq, sizeof(seq));
	assert_int_equal(sig->stream, 7);
	assert_int_equal(sig->flow, 5);
	assert_int_equal(seq, 13);
	/* Truncated, not IPv4, another magic: not ours. */
	assert_null(gen_frame_sig(buf, st.frame_len - 100));
	buf[12] = 0x86;
	assert_null(gen_frame_sig(buf, st.frame_len));
	buf[12] = 0x08;
	buf[GEN_HDRS_LEN] ^= 1;
	assert_null(gen_frame_sig(buf, st.frame_len));
}

static const char I3_SPEC[] =
	"{\"streams\": [{\"dst_mac\": \"02:00:00:00:00:10\", \"src_ip\": \"10.0.0.2\","
	" \"dst_ip\": \"10.0.0.1\", \"dst_port\": 5002, \"flows\": 300, \"payload\": 93,"
	" \"bps\": \"10M\", \"i3_id\": "
	"\"30111111111111111111111111111111111111111111111111111111111111ff\"}]}";

/* An i3 stream: header, flows in the ID's last 4 bytes (carry included), signature after it. */
static void
test_i3_frame_round_trip(void **state)
{
	static struct gen_spec i3spec;
	struct gen_stream st = {.spec = &i3spec.streams[0], .id = 3};
	uint8_t buf[GEN_MAX_FRAME], want_id[GEN_I3_ID_LEN];
	const struct gen_sig *sig;
	char err[256];

	(void)state;
	assert_int_equal(gen_spec_parse(I3_SPEC, &i3spec, err, sizeof(err)), 0);
	assert_true(i3spec.streams[0].i3);
	/* The same 170-byte frames as the IPv4 stream above: the same packets per second. */
	assert_true(i3spec.streams[0].pps > 6443.29 && i3spec.streams[0].pps < 6443.30);
	gen_frame_build(&st);
	assert_int_equal(st.frame_len, 42 + 35 + 93);
	gen_frame_fill(&st, buf, 257, 99);
	assert_int_equal(buf[38] << 8 | buf[39], 8 + 35 + 93); /* outer UDP length */
	assert_memory_equal(buf + 42, "\x10\x50\x01", 3);
	memset(want_id, 0x11, sizeof(want_id));
	want_id[0] = 0x30;
	/* Flow 257: 0x...11ff + 257 = 0x...1300, a carry into byte 30. */
	want_id[30] = 0x13;
	want_id[31] = 0x00;
	assert_memory_equal(buf + 45, want_id, GEN_I3_ID_LEN);
	sig = gen_frame_sig(buf, st.frame_len);
	assert_non_null(sig);
	assert_int_equal(sig->stream, 3);
	assert_int_equal(sig->flow, 257);
	/* An option list in front: not a header slicepath-gen sends or recognises. */
	buf[43] |= 0x20;
	assert_null(gen_frame_sig(buf, st.frame_len));
	/* Bad IDs are refused, naming the field. */
	assert_int_equal(gen_spec_parse("{\"streams\": [{\"dst_mac\": \"02:00:00:00:00:10\","
					" \"src_ip\": \"10.0.0.2\", \"dst_ip\": \"10.0.0.1\","
					" \"dst_port\": 1, \"pps\": 1, \"i3_id\": \"30\"}]}",
					&i3spec, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"i3_id\" must be an i3 ID: 64 hex digits"));
}

static const char SPEC6[] =
	"{\"streams\": [{\"dst_mac\": \"02:00:00:00:00:10\", \"src_ip\": \"2001:db8::2\","
	" \"dst_ip\": \"2001:db8::1\", \"dst_port\": 5001, \"inner_dst\": \"10.9.0.250\","
	" \"flows\": 8, \"payload\": 101, \"bps\": \"10M\"}]}";

/* Over IPv6: the outer header, its UDP checksum right for every packet, the signature found. */
static void
test_ipv6_frame_round_trip(void **state)
{
	static const uint8_t node6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	static const uint8_t gen6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
	static struct gen_spec spec6;
	struct gen_stream st = {.spec = &spec6.streams[0], .id = 4};
	uint8_t buf[GEN_MAX_FRAME];
	const struct rte_ipv6_hdr *ip = (const void *)(buf + 14);
	const struct rte_ipv4_hdr *inner = (const void *)(buf + 62);
	const struct gen_sig *sig;
	char err[256];
	uint64_t seq;

	(void)state;
	assert_int_equal(gen_spec_parse(SPEC6, &spec6, err, sizeof(err)), 0);
	/* 62 + 28 + 101 = 191-byte frames, 215 on the wire: 10 Mb/s is 5813.95 frames/s. */
	assert_true(spec6.streams[0].pps > 5813.95 && spec6.streams[0].pps < 5813.96);
	gen_frame_build(&st);
	assert_int_equal(st.frame_len, 62 + 28 + 101);
	for (seq = 0; seq < 20; seq++) {
		gen_frame_fill(&st, buf, seq, 1000 + seq);
		assert_int_equal(buf[12] << 8 | buf[13], 0x86dd);
		assert_int_equal(rte_be_to_cpu_32(ip->vtc_flow) >> 28, 6);
		assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 8 + 28 + 101);
		assert_int_equal(ip->proto, IPPROTO_UDP);
		assert_memory_equal(ip->src_addr, gen6, 16);
		assert_memory_equal(ip->dst_addr, node6, 16);
		assert_int_equal(buf[56] << 8 | buf[57], 5001);
		assert_int_equal(buf[58] << 8 | buf[59], 8 + 28 + 101);
		assert_int_not_equal(buf[60] << 8 | buf[61], 0);
		/* Summed independently: the pseudo-header, then the datagram. */
		assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip, buf + 54), 0);
		assert_int_equal(inner->dst_addr,
				 rte_cpu_to_be_32(RTE_IPV4(10, 9, 0, 250) + (uint32_t)(seq % 8)));
		assert_int_equal(rte_ipv4_cksum(inner), 0);
		sig = gen_frame_sig(buf, st.frame_len);
		assert_non_null(sig);
		assert_int_equal(sig->stream, 4);
		assert_int_equal(sig->flow, seq % 8);
	}
	/* Another next header: not ours. */
	buf[20] = IPPROTO_TCP;
	assert_null(gen_frame_sig(buf, st.frame_len));
	/* Addresses of two families, a mapped one: refused, naming the field. */
	assert_int_equal(gen_spec_parse("{\"streams\": [{\"dst_mac\": \"02:00:00:00:00:10\","
					" \"src_ip\": \"10.0.0.2\", \"dst_ip\": \"2001:db8::1\","
					" \"dst_port\": 1, \"pps\": 1, \"inner_dst\": \"10.9.0.1\"}]}",
					&spec6, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"src_ip\" and \"dst_ip\" must be of one family"));
	assert_int_equal(gen_spec_parse("{\"streams\": [{\"dst_mac\": \"02:00:00:00:00:10\","
					" \"src_ip\": \"::ffff:10.0.0.2\", \"dst_ip\": \"10.0.0.1\","
					" \"dst_port\": 1, \"pps\": 1, \"inner_dst\": \"10.9.0.1\"}]}",
					&spec6, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "\"src_ip\""));
	assert_non_null(strstr(err, "is not an IPv4 or IPv6 address"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_defaults_and_rate),
		cmocka_unit_test(test_frame_round_trip),
		cmocka_unit_test(test_i3_frame_round_trip),
		cmocka_unit_test(test_ipv6_frame_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
