/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the ipv4 code option, parse() then format(), on an arbitrary
 * inner packet (what a slice receives after substrate decap).
 *
 * Input: one control byte, then the packet.
 *   bit 0     write a correct IPv4 header checksum first
 *   bits 1-7  k: if 0 < k < packet length, the packet is a chain of two
 *             segments, the first k bytes long
 *
 * Invariants: parse() leaves verdict FORWARD, EXCEPTION or DROP, the last two
 * with a reason. A forwarded packet has a checked option-less header with a
 * TTL above one, is cut to the IPv4 total length and keyed on its addresses
 * and protocol; after format() its header checksum verifies, its TTL is one
 * less and nothing else in the packet changed.
 */
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "fuzz_pkt.h"
#include "npe/slice.h"

#define FIX_CKSUM 0x01
#define IPV4_HDR_LEN 20
#define OFF_TTL 8
#define OFF_CKSUM 10
#define SLICE_ID 7

static struct rte_mempool *pool;
static const struct sp_codeopt *co;
static struct sp_slice slice;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	pool = sp_test_eal_init();
	co = sp_codeopt_find("ipv4");
	SP_TEST_CHECK(co != NULL, "no ipv4 code option registered");
	slice.id = SLICE_ID;
	slice.co = co;
	if (co->slice_init != NULL)
		SP_TEST_CHECK(co->slice_init(&slice) == 0, "ipv4 slice_init failed");
	return 0;
}

/* Key: destination, source, ports (TCP and UDP first fragments), protocol, zero. */
static void
check_key(const struct sp_key *k, const uint8_t *ip)
{
	static const uint8_t no_ports[4];
	uint16_t tlen = (uint16_t)(ip[2] << 8 | ip[3]);
	bool ports = (ip[9] == IPPROTO_TCP || ip[9] == IPPROTO_UDP) &&
		     ((ip[6] & 0x1f) | ip[7]) == 0 && tlen >= IPV4_HDR_LEN + 4;

	SP_TEST_CHECK(memcmp(&k->b[0], ip + 16, 4) == 0 && memcmp(&k->b[4], ip + 12, 4) == 0 &&
			      k->b[12] == ip[9] && k->b[13] == 0,
		      "key does not hold the packet's addresses and protocol");
	SP_TEST_CHECK(memcmp(&k->b[8], ports ? ip + IPV4_HDR_LEN : no_ports, 4) == 0,
		      "key ports wrong (protocol %u, fragment field %02x%02x, length %u)", ip[9],
		      ip[6], ip[7], tlen);
}

/* A forwarded packet, before format(): what parse() promised. */
static void
check_parsed(struct rte_mbuf *m, const uint8_t *pkt, size_t len)
{
	const struct sp_meta *meta = sp_meta(m);
	uint16_t tlen;

	SP_TEST_CHECK(meta->reason == SP_REASON_NONE, "forwarded with reason %u", meta->reason);
	SP_TEST_CHECK(len >= IPV4_HDR_LEN && rte_pktmbuf_data_len(m) >= IPV4_HDR_LEN,
		      "forwarded %zu bytes, %u in the first segment", len,
		      rte_pktmbuf_data_len(m));
	tlen = (uint16_t)(pkt[2] << 8 | pkt[3]);
	SP_TEST_CHECK(pkt[0] == 0x45, "forwarded with version/IHL byte 0x%02x", pkt[0]);
	SP_TEST_CHECK(sp_test_ipv4_cksum_ok(pkt), "forwarded with a wrong header checksum");
	SP_TEST_CHECK(pkt[OFF_TTL] > 1, "forwarded with TTL %u", pkt[OFF_TTL]);
	SP_TEST_CHECK(tlen >= IPV4_HDR_LEN && tlen <= len && rte_pktmbuf_pkt_len(m) == tlen,
		      "forwarded %u bytes, IPv4 total length %u, received %zu",
		      rte_pktmbuf_pkt_len(m), tlen, len);
	check_key(&meta->key, pkt);
}

/* After format(): TTL one less, checksum right, every other byte as received. */
static void
check_formatted(struct rte_mbuf *m, const uint8_t *pkt)
{
	uint32_t len = rte_pktmbuf_pkt_len(m);
	uint8_t copy[SP_FUZZ_MAX_PKT + 1];
	const uint8_t *now = rte_pktmbuf_read(m, 0, len, copy);

	SP_TEST_CHECK(now != NULL, "cannot read the formatted packet");
	SP_TEST_CHECK(sp_test_ipv4_cksum_ok(rte_pktmbuf_mtod(m, const void *)),
		      "header checksum wrong after format()");
	SP_TEST_CHECK(now[OFF_TTL] == pkt[OFF_TTL] - 1, "TTL %u became %u", pkt[OFF_TTL],
		      now[OFF_TTL]);
	SP_TEST_CHECK(memcmp(now, pkt, OFF_TTL) == 0 && now[OFF_TTL + 1] == pkt[OFF_TTL + 1] &&
			      memcmp(now + OFF_CKSUM + 2, pkt + OFF_CKSUM + 2,
				     len - OFF_CKSUM - 2) == 0,
		      "format() changed more than the TTL and the checksum");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int in_use = rte_mempool_in_use_count(pool);
	uint8_t pkt[SP_FUZZ_MAX_PKT + 1];
	size_t len = size > 0 ? RTE_MIN(size - 1, (size_t)SP_FUZZ_MAX_PKT) : 0;
	struct rte_mbuf *m;
	struct sp_meta *meta;

	if (len > 0)
		memcpy(pkt, data + 1, len);
	if (size > 0 && (data[0] & FIX_CKSUM))
		sp_test_fix_ipv4_cksum(pkt, len);
	m = sp_fuzz_mbuf(pkt, len, size > 0 ? data[0] >> 1 : 0, 0);
	meta = sp_meta(m);
	/* What the framework hands a code option: verdict SP_FORWARD, the rest zero. */
	meta->slice = SLICE_ID;

	co->parse(&slice, &m, 1);

	switch (meta->verdict) {
	case SP_FORWARD:
		check_parsed(m, pkt, len);
		co->format(&slice, &m, 1);
		SP_TEST_CHECK(meta->verdict == SP_FORWARD, "format() changed the verdict");
		check_formatted(m, pkt);
		break;
	default:
		sp_fuzz_check_left(meta);
	}
	sp_fuzz_free_all(pool, m, in_use);
	return 0;
}
