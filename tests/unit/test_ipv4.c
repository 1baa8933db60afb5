/* SPDX-License-Identifier: BSD-3-Clause */
/* The ipv4 code option, packet by packet: keys, drops, exceptions, TTL and checksum. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include <slicepath/codeopt.h>

#include "sp_test.h"
#include "npe/slice.h"

static const struct sp_codeopt *co;
static struct sp_slice slice = {.id = 1};

/* 198.51.100.7 <- 192.0.2.1, UDP 12345 -> 53, 4 bytes of payload. */
static const uint8_t udp_pkt[] = {
	0x45, 0x00, 0x00, 0x20, /* version 4, IHL 5, total length 32 */
	0x12, 0x34, 0x00, 0x00, /* id, no fragmentation */
	0x40, 0x11, 0x00, 0x00, /* TTL 64, UDP, checksum (seal() fills it) */
	192,  0,    2,    1,    /* source */
	198,  51,   100,  7,    /* destination */
	0x30, 0x39, 0x00, 0x35, /* source port 12345, destination port 53 */
	0x00, 0x0c, 0x00, 0x00, /* UDP length 12, no checksum */
	'p',  'i',  'n',  'g',
};

static const uint8_t udp_key[SP_KEY_BYTES] = {
	198, 51, 100, 7, 192, 0, 2, 1, 0x30, 0x39, 0x00, 0x35, 17, 0,
};

#define MAX_PKT 128

/* Set the header checksum of the packet in buf to the correct value. */
static void
seal(uint8_t *buf)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)buf;

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* A copy of udp_pkt to modify, sealed. */
static size_t
udp_copy(uint8_t *buf)
{
	memcpy(buf, udp_pkt, sizeof(udp_pkt));
	seal(buf);
	return sizeof(udp_pkt);
}

/* Run parse() on one packet made of bytes; the key is pre-filled with junk. */
static struct rte_mbuf *
parse1(const uint8_t *bytes, size_t len)
{
	struct rte_mbuf *m = sp_test_pkt(bytes, len, 0);

	assert_non_null(m);
	memset(&sp_meta(m)->key, 0xee, sizeof(sp_meta(m)->key));
	co->parse(&slice, &m, 1);
	return m;
}

static void
expect_key(const uint8_t *bytes, size_t len, const uint8_t *key)
{
	struct rte_mbuf *m = parse1(bytes, len);

	assert_int_equal(sp_meta(m)->verdict, SP_FORWARD);
	assert_memory_equal(sp_meta(m)->key.b, key, SP_KEY_BYTES);
	rte_pktmbuf_free(m);
}

static void
expect_verdict(const uint8_t *bytes, size_t len, enum sp_verdict v, enum sp_reason reason)
{
	struct rte_mbuf *m = parse1(bytes, len);

	assert_int_equal(sp_meta(m)->verdict, v);
	assert_int_equal(sp_meta(m)->reason, reason);
	rte_pktmbuf_free(m);
}

static void
test_registered(void **state)
{
	(void)state;
	assert_non_null(co);
	assert_string_equal(co->name, "ipv4");
	assert_int_equal(co->abi_version, SP_CODEOPT_ABI);
	assert_non_null(co->parse);
	assert_non_null(co->format);
	assert_null(co->slice_init);
	assert_null(co->slice_fini);
}

static void
test_key_udp(void **state)
{
	uint8_t buf[MAX_PKT];

	(void)state;
	expect_key(buf, udp_copy(buf), udp_key);
}

static void
test_key_tcp(void **state)
{
	static const uint8_t tcp_key[SP_KEY_BYTES] = {
		10, 0, 0, 2, 10, 0, 0, 1, 0xc3, 0x50, 0x01, 0xbb, 6, 0,
	};
	uint8_t buf[MAX_PKT] = {
		0x45, 0x00, 0x00, 0x28, 0xab, 0xcd, 0x40, 0x00, /* total 40, DF */
		0x05, 0x06, 0x00, 0x00, 10,   0,    0,    1,    /* TTL 5, TCP */
		10,   0,    0,    2,    0xc3, 0x50, 0x01, 0xbb, /* ports 50000 -> 443 */
		0,    0,    0,    1,    0,    0,    0,    0,    /* seq, ack */
		0x50, 0x02, 0xff, 0xff, 0,    0,    0,    0,    /* SYN */
	};

	(void)state;
	seal(buf);
	expect_key(buf, 40, tcp_key);
}

static void
test_key_icmp_has_no_ports(void **state)
{
	static const uint8_t icmp_key[SP_KEY_BYTES] = {
		198, 51, 100, 7, 192, 0, 2, 1, 0, 0, 0, 0, 1, 0,
	};
	uint8_t buf[MAX_PKT];
	size_t len = udp_copy(buf);

	(void)state;
	buf[9] = 1; /* ICMP: the bytes after the header are type, code, checksum */
	seal(buf);
	expect_key(buf, len, icmp_key);
}

static void
test_key_fragments(void **state)
{
	uint8_t key[SP_KEY_BYTES], buf[MAX_PKT];
	size_t len = udp_copy(buf);

	(void)state;
	/* First fragment (MF set, offset 0): the UDP header is there. */
	buf[6] = 0x20;
	seal(buf);
	expect_key(buf, len, udp_key);

	/* A later fragment: its first bytes are payload, not ports. */
	memcpy(key, udp_key, sizeof(key));
	memset(&key[8], 0, 4);
	buf[6] = 0x20;
	buf[7] = 0x03; /* offset 3 * 8 bytes */
	seal(buf);
	expect_key(buf, len, key);
	buf[6] = 0x00; /* the last fragment */
	seal(buf);
	expect_key(buf, len, key);

	/* An unfragmented UDP packet too short to hold both ports. */
	buf[7] = 0x00;
	buf[3] = 22;
	seal(buf);
	expect_key(buf, 22, key);
	buf[3] = 24; /* exactly the ports */
	seal(buf);
	expect_key(buf, 24, udp_key);
}

struct bad_case {
	const char *what;
	size_t len;     /* bytes given to the code option */
	uint8_t off;    /* one byte changed... */
	uint8_t val;    /* ...to this */
	bool reseal;    /* checksum recomputed after the change */
	enum sp_reason reason;
};

static void
test_drops(void **state)
{
	static const struct bad_case cases[] = {
		{"19 bytes", 19, 1, 0x00, true, SP_REASON_MALFORMED},
		{"empty", 0, 1, 0x00, true, SP_REASON_MALFORMED},
		{"version 6", 32, 0, 0x65, true, SP_REASON_MALFORMED},
		{"version 6, bad checksum", 32, 0, 0x65, false, SP_REASON_MALFORMED},
		{"IHL 4", 32, 0, 0x44, true, SP_REASON_BAD_HDR_LEN},
		{"IHL 0", 32, 0, 0x40, true, SP_REASON_BAD_HDR_LEN},
		{"IHL 15 > 32 bytes", 32, 0, 0x4f, true, SP_REASON_BAD_HDR_LEN},
		{"IHL 6 > 20 bytes", 20, 0, 0x46, true, SP_REASON_BAD_HDR_LEN},
		{"total length 19", 32, 3, 19, true, SP_REASON_BAD_HDR_LEN},
		{"total length 0", 32, 3, 0, true, SP_REASON_BAD_HDR_LEN},
		{"total length 33 > 32 bytes", 32, 3, 33, true, SP_REASON_BAD_HDR_LEN},
		{"total length 32 > 31 bytes", 31, 1, 0x00, true, SP_REASON_BAD_HDR_LEN},
		{"source changed after checksum", 32, 15, 2, false, SP_REASON_BAD_CHECKSUM},
		{"options, bad checksum", 32, 0, 0x46, false, SP_REASON_BAD_CHECKSUM},
		{"TTL 1, bad checksum", 32, 8, 1, false, SP_REASON_BAD_CHECKSUM},
	};
	uint8_t buf[MAX_PKT];
	unsigned int i;

	(void)state;
	for (i = 0; i < RTE_DIM(cases); i++) {
		udp_copy(buf);
		buf[cases[i].off] = cases[i].val;
		if (cases[i].reseal)
			seal(buf);
		print_message("%s\n", cases[i].what);
		expect_verdict(buf, cases[i].len, SP_DROP, cases[i].reason);
	}
	udp_copy(buf);
	buf[11] ^= 0x01;
	expect_verdict(buf, sizeof(udp_pkt), SP_DROP, SP_REASON_BAD_CHECKSUM);
}

static void
test_options_exception(void **state)
{
	uint8_t buf[MAX_PKT];

	(void)state;
	/* udp_pkt with four NOP option bytes after the addresses. */
	memcpy(buf, udp_pkt, 20);
	memset(buf + 20, 1, 4);
	memcpy(buf + 24, udp_pkt + 20, sizeof(udp_pkt) - 20);
	buf[0] = 0x46;
	buf[3] = sizeof(udp_pkt) + 4;
	seal(buf);
	expect_verdict(buf, sizeof(udp_pkt) + 4, SP_EXCEPTION, SP_REASON_OPTIONS);
	/* Options are looked at before the TTL. */
	buf[8] = 1;
	seal(buf);
	expect_verdict(buf, sizeof(udp_pkt) + 4, SP_EXCEPTION, SP_REASON_OPTIONS);
}

static void
test_ttl(void **state)
{
	uint8_t buf[MAX_PKT];
	size_t len = udp_copy(buf);

	(void)state;
	buf[8] = 1;
	seal(buf);
	expect_verdict(buf, len, SP_EXCEPTION, SP_REASON_TTL_EXPIRED);
	buf[8] = 0;
	seal(buf);
	expect_verdict(buf, len, SP_EXCEPTION, SP_REASON_TTL_EXPIRED);
	buf[8] = 2;
	seal(buf);
	expect_key(buf, len, udp_key);
	buf[8] = 255;
	seal(buf);
	expect_key(buf, len, udp_key);
}

static void
test_padding_trimmed(void **state)
{
	uint8_t buf[MAX_PKT] = {0};
	struct rte_mbuf *m;

	(void)state;
	udp_copy(buf);
	/* Ethernet pads short frames to 46 bytes of payload. */
	m = parse1(buf, 46);
	assert_int_equal(sp_meta(m)->verdict, SP_FORWARD);
	assert_int_equal(rte_pktmbuf_pkt_len(m), sizeof(udp_pkt));
	assert_int_equal(rte_pktmbuf_data_len(m), sizeof(udp_pkt));
	assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *), buf, sizeof(udp_pkt));
	rte_pktmbuf_free(m);
	/* Exact packets stay as they are. */
	m = parse1(buf, sizeof(udp_pkt));
	assert_int_equal(rte_pktmbuf_pkt_len(m), sizeof(udp_pkt));
	rte_pktmbuf_free(m);
}

static void
test_split_header_to_slow_path(void **state)
{
	uint8_t buf[MAX_PKT];
	size_t len = udp_copy(buf);
	struct rte_mbuf *m = sp_test_pkt(buf, 10, 0);
	struct rte_mbuf *tail = sp_test_pkt(buf + 10, len - 10, 0);

	(void)state;
	assert_int_equal(rte_pktmbuf_chain(m, tail), 0);
	co->parse(&slice, &m, 1);
	assert_int_equal(sp_meta(m)->verdict, SP_EXCEPTION);
	assert_int_equal(sp_meta(m)->reason, SP_REASON_UNSUPPORTED);
	rte_pktmbuf_free(m);
}

static void
test_burst(void **state)
{
	uint8_t good[MAX_PKT], bad[MAX_PKT], old[MAX_PKT];
	size_t len = udp_copy(good);
	struct rte_mbuf *m[4];
	unsigned int i;

	(void)state;
	udp_copy(bad);
	bad[10] ^= 0xff;
	udp_copy(old);
	old[8] = 1;
	seal(old);
	m[0] = sp_test_pkt(good, len, 0);
	m[1] = sp_test_pkt(bad, len, 0);
	m[2] = sp_test_pkt(old, len, 0);
	m[3] = sp_test_pkt(good, len, 0);
	co->parse(&slice, m, 4);
	assert_int_equal(sp_meta(m[0])->verdict, SP_FORWARD);
	assert_int_equal(sp_meta(m[1])->verdict, SP_DROP);
	assert_int_equal(sp_meta(m[1])->reason, SP_REASON_BAD_CHECKSUM);
	assert_int_equal(sp_meta(m[2])->verdict, SP_EXCEPTION);
	assert_int_equal(sp_meta(m[2])->reason, SP_REASON_TTL_EXPIRED);
	assert_int_equal(sp_meta(m[3])->verdict, SP_FORWARD);
	assert_memory_equal(sp_meta(m[3])->key.b, udp_key, SP_KEY_BYTES);

	/* parse then format, as the pipeline does: TTL 63, header still valid. */
	rte_pktmbuf_free(m[1]);
	m[1] = m[3];
	co->format(&slice, m, 2);
	for (i = 0; i < 2; i++) {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m[i], const struct rte_ipv4_hdr *);

		assert_int_equal(ip->time_to_live, 63);
		assert_int_equal(rte_raw_cksum(ip, sizeof(*ip)), 0xffff);
	}
	rte_pktmbuf_free(m[0]);
	rte_pktmbuf_free(m[1]);
	rte_pktmbuf_free(m[2]);
}

/* ---- format: incremental checksum against full recomputation ---- */

/* A random option-less header with TTL >= 2, checksum correct. */
static void
rnd_header(struct rte_ipv4_hdr *ip)
{
	uint8_t *b = (uint8_t *)ip;
	size_t i;

	for (i = 0; i < sizeof(*ip); i++)
		b[i] = (uint8_t)(uint32_t)(sp_test_rnd() >> 32);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(sizeof(*ip));
	ip->time_to_live = (uint8_t)(2 + (uint32_t)(sp_test_rnd() >> 32) % 254);
	seal(b);
}

/*
 * Choose the id so that the header's checksum, after the TTL is lowered by
 * `lower`, comes out 0x0000: the one's complement sum of the other words is
 * then 0xffff. Storing a checksum value c in a word adds c to that sum.
 */
static void
force_zero_checksum(struct rte_ipv4_hdr *ip, uint8_t lower)
{
	ip->packet_id = 0;
	ip->time_to_live -= lower;
	seal((uint8_t *)ip);
	ip->packet_id = ip->hdr_checksum;
	ip->time_to_live += lower;
	seal((uint8_t *)ip);
}

/* format() one packet holding *ip; check TTL, checksum and that nothing else changed. */
static void
check_format(const struct rte_ipv4_hdr *ip)
{
	struct rte_ipv4_hdr want = *ip, *got;
	struct rte_mbuf *m = sp_test_pkt(ip, sizeof(*ip), 0);

	assert_non_null(m);
	co->format(&slice, &m, 1);
	got = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	want.time_to_live--;
	want.hdr_checksum = 0;
	want.hdr_checksum = rte_ipv4_cksum(&want);
	assert_memory_equal(got, &want, sizeof(want));
	rte_pktmbuf_free(m);
}

static void
test_format_random(void **state)
{
	struct rte_ipv4_hdr ip;
	int i;

	(void)state;
	for (i = 0; i < 20000; i++) {
		rnd_header(&ip);
		check_format(&ip);
	}
}

static void
test_format_checksum_edges(void **state)
{
	struct rte_ipv4_hdr ip;
	int i;

	(void)state;
	for (i = 0; i < 2000; i++) {
		/* The new checksum is 0x0000. */
		rnd_header(&ip);
		force_zero_checksum(&ip, 1);
		check_format(&ip);

		/* The old checksum is 0x0000... */
		rnd_header(&ip);
		force_zero_checksum(&ip, 0);
		assert_int_equal(ip.hdr_checksum, 0);
		check_format(&ip);
		/* ...or its other one's complement form 0xffff, which parse() accepts. */
		ip.hdr_checksum = 0xffff;
		expect_verdict((const uint8_t *)&ip, sizeof(ip), SP_FORWARD, SP_REASON_NONE);
		check_format(&ip);
	}
	/* TTL 2 -> 1 and 255 -> 254: the word's high byte crossing values. */
	rnd_header(&ip);
	ip.time_to_live = 2;
	seal((uint8_t *)&ip);
	check_format(&ip);
	ip.time_to_live = 255;
	ip.next_proto_id = 255;
	seal((uint8_t *)&ip);
	check_format(&ip);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registered),
		cmocka_unit_test(test_key_udp),
		cmocka_unit_test(test_key_tcp),
		cmocka_unit_test(test_key_icmp_has_no_ports),
		cmocka_unit_test(test_key_fragments),
		cmocka_unit_test(test_drops),
		cmocka_unit_test(test_options_exception),
		cmocka_unit_test(test_ttl),
		cmocka_unit_test(test_padding_trimmed),
		cmocka_unit_test(test_split_header_to_slow_path),
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_format_random),
		cmocka_unit_test(test_format_checksum_edges),
	};

	sp_test_eal_init();
	co = sp_codeopt_find("ipv4");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
