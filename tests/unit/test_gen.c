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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_defaults_and_rate),
		cmocka_unit_test(test_frame_round_trip),
		cmocka_unit_test(test_i3_frame_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
