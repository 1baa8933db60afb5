/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dpi code option: its pattern lines (good and every kind of bad, with
 * the line named), Hyperscan's refusals, and packets classified by content:
 * a pattern spanning the whole payload, none matching, the lowest class of
 * several, TCP options and fragments, the ipv4 key and TTL kept.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include <slicepath/codeopt.h>
#include <slicepath/dpi.h>
#include <slicepath/ipv4.h>

#include "dpi/patterns.h"
#include "sp_test.h"
#include "sp_test_frame.h"
#include "npe/slice.h"

#define MAX_PKT 1600

static const struct sp_codeopt *dpi, *native;
static struct sp_slice slice = {.id = 1};
static struct sp_slice slice_native = {.id = 2};

static const char PATTERNS[] =
	"# classes by content\r\n"
	"3:/evil.*payload/s\n"
	"1:/attack/i\n"
	"\n"
	"2:/^GET \\//\n"
	"5:/^BEGIN[a-z ]*END$/\n";

static int
load(const char *text, char *err, size_t errlen)
{
	void *old = NULL;
	int rc = dpi->load(&slice, text, strlen(text), &old, err, errlen);

	dpi->release(old);
	return rc;
}

/* An IPv4 packet: protocol proto, a 20-byte TCP header (with opt_words more) or an 8-byte
 * UDP one, then payload; fragment offset frag (8-byte units). */
static size_t
packet(uint8_t *p, uint8_t proto, unsigned int opt_words, uint16_t frag, const char *payload)
{
	const struct sp_test_ip ip = {.src = RTE_IPV4(192, 0, 2, 1),
				      .dst = RTE_IPV4(198, 51, 100, 7), .proto = proto, .ttl = 64,
				      .frag = frag};
	/* Later fragments carry no transport header. */
	size_t l4 = frag != 0 ? 0 : proto == IPPROTO_TCP ? 20 + 4 * opt_words
			     : proto == IPPROTO_UDP ? 8 : 0;
	size_t hlen = sp_test_ipv4(p, &ip, l4 + strlen(payload));

	memset(p + hlen, 0, l4);
	if (proto == IPPROTO_TCP && frag == 0) {
		p[20] = 0x30; /* source port 12345, destination 80 */
		p[21] = 0x39;
		p[23] = 80;
		p[32] = (uint8_t)((5 + opt_words) << 4);
		/* What sits in TCP options must not count as payload. */
		if (opt_words > 0)
			memcpy(p + 40, "attack", RTE_MIN(6u, 4 * opt_words));
	}
	memcpy(p + hlen + l4, payload, strlen(payload));
	return hlen + l4 + strlen(payload);
}

static struct rte_mbuf *
parse1(struct sp_slice *s, const struct sp_codeopt *co, const uint8_t *bytes, size_t len)
{
	struct rte_mbuf *m = sp_test_pkt(bytes, len, 0);

	memset(sp_meta(m), 0, sizeof(struct sp_meta));
	co->parse(s, &m, 1);
	return m;
}

static void
expect_class(uint8_t proto, unsigned int opt_words, uint16_t frag, const char *payload,
	     uint8_t cls)
{
	uint8_t p[MAX_PKT];
	size_t len = packet(p, proto, opt_words, frag, payload);
	struct rte_mbuf *m = parse1(&slice, dpi, p, len), *n = parse1(&slice_native, native, p, len);

	assert_int_equal(sp_meta(m)->verdict, SP_FORWARD);
	if (sp_meta(m)->key.b[SP_DPI_KEY_CLASS] != cls)
		fail_msg("payload \"%s\": class %u, expected %u", payload,
			 sp_meta(m)->key.b[SP_DPI_KEY_CLASS], cls);
	/* The rest of the key is the ipv4 code option's. */
	assert_memory_equal(sp_meta(m)->key.b, sp_meta(n)->key.b, SP_DPI_KEY_CLASS);
	rte_pktmbuf_free(m);
	rte_pktmbuf_free(n);
}

static void
test_pattern_lines(void **state)
{
	static const struct {
		const char *text, *error;
	} bad[] = {
		{"1:/a/\n255:/b/", "line 2: expected CLASS:/EXPRESSION/FLAGS with CLASS 0 to 254"},
		{"x:/a/", "line 1: expected CLASS"},
		{"1:a/", "line 1: expected CLASS"},
		{"1:/abc", "line 1: the expression has no closing '/'"},
		{"1://", "line 1: the expression is empty"},
		{"\n\n1:/a/q", "line 3: unknown flag 'q' (flags are i, s, m)"},
		{"1:/a/\0", "they hold a NUL byte"},
	};
	struct dpi_patterns p;
	char err[256];

	(void)state;
	assert_int_equal(dpi_patterns_parse(PATTERNS, strlen(PATTERNS), &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 4);
	assert_string_equal(p.expr[0], "evil.*payload");
	assert_int_equal(p.cls[0], 3);
	assert_string_equal(p.expr[2], "^GET \\/");
	assert_int_equal(p.line[2], 5);
	dpi_patterns_free(&p);
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		size_t len = strlen(bad[i].text) + (strstr(bad[i].error, "NUL") != NULL);

		err[0] = '\0';
		assert_int_equal(dpi_patterns_parse(bad[i].text, len, &p, err, sizeof(err)), -1);
		if (strstr(err, bad[i].error) == NULL)
			fail_msg("\"%s\": said \"%s\", not \"%s\"", bad[i].text, err, bad[i].error);
		assert_int_equal(p.n, 0);
	}
}

static void
test_hyperscan_refusal_names_the_line(void **state)
{
	char err[512] = "";

	(void)state;
	assert_int_equal(load("1:/fine/\n# next\n2:/a(b/\n", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 3 (/a(b/): Hyperscan cannot compile it: "));
	assert_non_null(strstr(err, "parenthes"));
}

static void
test_payloads_classified(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(load(PATTERNS, err, sizeof(err)), 0);
	expect_class(IPPROTO_UDP, 0, 0, "an ATTACK here", 1);
	expect_class(IPPROTO_UDP, 0, 0, "GET /index.html", 2);
	/* A pattern across the whole payload, anchored at both ends. */
	expect_class(IPPROTO_UDP, 0, 0, "BEGIN the whole payload END", 5);
	expect_class(IPPROTO_UDP, 0, 0, "BEGIN the whole payload END.", SP_DPI_NO_CLASS);
	/* None at all, and an empty payload. */
	expect_class(IPPROTO_UDP, 0, 0, "harmless bytes", SP_DPI_NO_CLASS);
	expect_class(IPPROTO_UDP, 0, 0, "", SP_DPI_NO_CLASS);
	/* Several classes: the lowest. "evil ... payload" is 3, "attack" 1. */
	expect_class(IPPROTO_UDP, 0, 0, "evil\nmultiline payload", 3);
	expect_class(IPPROTO_UDP, 0, 0, "evil payload with an attack", 1);
	/* TCP: the payload starts after the options ("attack" in them does not count). */
	expect_class(IPPROTO_TCP, 2, 0, "GET /x", 2);
	expect_class(IPPROTO_TCP, 2, 0, "nothing", SP_DPI_NO_CLASS);
	/* A later fragment has no transport header: all after the IPv4 header is payload. */
	expect_class(IPPROTO_UDP, 0, 100, "GET /y", 2);
	/* Another protocol: the payload follows the IPv4 header. */
	expect_class(IPPROTO_ICMP, 0, 0, "attack", 1);
	/* An empty list: nothing matches. */
	assert_int_equal(load("# none\n", err, sizeof(err)), 0);
	expect_class(IPPROTO_UDP, 0, 0, "an attack", SP_DPI_NO_CLASS);
}

static void
test_router_checks_and_ttl_kept(void **state)
{
	uint8_t p[MAX_PKT];
	size_t len = packet(p, IPPROTO_UDP, 0, 0, "attack");
	struct rte_mbuf *m, *tail;
	char err[256] = "";

	(void)state;
	assert_int_equal(load(PATTERNS, err, sizeof(err)), 0);
	/* TTL 1: to the slow path, as the ipv4 code option does. */
	((struct rte_ipv4_hdr *)p)->time_to_live = 1;
	((struct rte_ipv4_hdr *)p)->hdr_checksum = 0;
	((struct rte_ipv4_hdr *)p)->hdr_checksum = rte_ipv4_cksum((struct rte_ipv4_hdr *)p);
	m = parse1(&slice, dpi, p, len);
	assert_int_equal(sp_meta(m)->verdict, SP_EXCEPTION);
	assert_int_equal(sp_meta(m)->reason, SP_REASON_TTL_EXPIRED);
	rte_pktmbuf_free(m);
	/* format() lowers the TTL and keeps the checksum right. */
	len = packet(p, IPPROTO_UDP, 0, 0, "attack");
	m = parse1(&slice, dpi, p, len);
	dpi->format(&slice, &m, 1);
	assert_int_equal(rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *)->time_to_live, 63);
	assert_int_equal(rte_ipv4_cksum(rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *)), 0);
	rte_pktmbuf_free(m);
	/* A payload over two segments (the headers in the first): the slow path's. */
	len = packet(p, IPPROTO_UDP, 0, 0, "a payload of some length, longer than the split");
	m = sp_test_pkt(p, 70, 0);
	tail = sp_test_pkt(p + 70, len - 70, 0);
	assert_int_equal(rte_pktmbuf_chain(m, tail), 0);
	memset(sp_meta(m), 0, sizeof(struct sp_meta));
	dpi->parse(&slice, &m, 1);
	assert_int_equal(sp_meta(m)->verdict, SP_EXCEPTION);
	assert_int_equal(sp_meta(m)->reason, SP_REASON_UNSUPPORTED);
	rte_pktmbuf_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern_lines),
		cmocka_unit_test(test_hyperscan_refusal_names_the_line),
		cmocka_unit_test(test_payloads_classified),
		cmocka_unit_test(test_router_checks_and_ttl_kept),
	};

	sp_test_eal_init();
	dpi = sp_codeopt_find("dpi");
	native = sp_codeopt_find("ipv4");
	assert_non_null(dpi);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
