/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bpf code option: the eBPF IPv4 router (codeopts/bpf/examples) against
 * the native ipv4 code option on the same packets (verdict, reason, key,
 * bytes after format), programs the verifier refuses and why, each slice's
 * program seeing its own memory only, no program loaded.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include <slicepath/codeopt.h>

#include "sp_test.h"
#include "npe/slice.h"

#define MAX_PKT 256
#define MEM 4096

static const struct sp_codeopt *bpf, *native;
static uint8_t mem_a[2 * MEM], mem_b[MEM];
static struct sp_slice slice_a = {.id = 1, .mem = mem_a, .mem_size = MEM};
static struct sp_slice slice_b = {.id = 2, .mem = mem_b, .mem_size = MEM};
static struct sp_slice slice_native = {.id = 3};

/* Load the object named (built into SP_BPF_DIR or SP_BPF_EXAMPLES) into s; its rc. */
static int
load_file(struct sp_slice *s, const char *env, const char *name, char *err, size_t errlen)
{
	static uint8_t buf[1 << 16];
	char path[512];
	void *old = NULL;
	size_t n;
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", getenv(env), name);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	rc = bpf->load(s, buf, n, &old, err, errlen);
	bpf->release(old);
	return rc;
}

/* parse, then format if it goes on (with a filter at position 0), on a copy of bytes. */
static struct rte_mbuf *
through(const struct sp_codeopt *co, struct sp_slice *s, const uint8_t *bytes, size_t len)
{
	struct rte_mbuf *m = sp_test_pkt(bytes, len, 0);
	struct sp_meta *meta = sp_meta(m);

	memset(meta, 0, sizeof(*meta));
	co->parse(s, &m, 1);
	if (meta->verdict == SP_FORWARD) {
		meta->filter = 0;
		co->format(s, &m, 1);
	}
	return m;
}

static void
expect_same(const uint8_t *bytes, size_t len)
{
	struct rte_mbuf *a = through(native, &slice_native, bytes, len);
	struct rte_mbuf *b = through(bpf, &slice_a, bytes, len);
	const struct sp_meta *ma = sp_meta(a), *mb = sp_meta(b);

	assert_int_equal(mb->verdict, ma->verdict);
	assert_int_equal(mb->reason, ma->reason);
	if (ma->verdict == SP_FORWARD) {
		assert_memory_equal(mb->key.b, ma->key.b, SP_KEY_BYTES);
		assert_int_equal(rte_pktmbuf_pkt_len(b), rte_pktmbuf_pkt_len(a));
		assert_memory_equal(rte_pktmbuf_mtod(b, void *), rte_pktmbuf_mtod(a, void *),
				    rte_pktmbuf_pkt_len(a));
	}
	rte_pktmbuf_free(a);
	rte_pktmbuf_free(b);
}

static uint8_t
rnd8(void)
{
	return (uint8_t)(sp_test_rnd() >> 32);
}

/* A random IPv4 packet: mostly valid, sometimes not, in every way parse() checks. */
static size_t
rnd_packet(uint8_t *p)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;
	uint32_t hlen = rnd8() % 8 == 0 ? 24 : 20, payload = rnd8() % 64;
	size_t len = hlen + payload + (rnd8() % 4 == 0 ? rnd8() % 20 : 0); /* padding */

	for (size_t i = 0; i < len; i++)
		p[i] = rnd8();
	ip->version_ihl = (uint8_t)(0x40 | hlen / 4);
	ip->total_length = rte_cpu_to_be_16((uint16_t)(hlen + payload));
	ip->next_proto_id = (uint8_t[]){6, 17, 1, 47}[rnd8() % 4];
	ip->fragment_offset = rnd8() % 4 == 0 ? ip->fragment_offset : 0;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	switch (rnd8() % 16) {
	case 0:
		ip->hdr_checksum ^= 1;
		break;
	case 1:
		ip->version_ihl = 0x65;
		break;
	case 2:
		ip->total_length = rte_cpu_to_be_16((uint16_t)(len + 1));
		break;
	case 3:
		return rnd8() % 20; /* shorter than a header */
	default:
		break;
	}
	return len;
}

static void
test_ipv4_router_matches_native(void **state)
{
	uint8_t p[MAX_PKT];
	char err[512] = "";

	(void)state;
	assert_int_equal(load_file(&slice_a, "SP_BPF_EXAMPLES", "ipv4_router.bpf.o", err,
				   sizeof(err)), 0);
	for (int i = 0; i < 20000; i++)
		expect_same(p, rnd_packet(p));
	/* TTL 1 and 0, and 2 (the last forwarded): the same verdicts and bytes. */
	for (uint8_t ttl = 0; ttl < 3; ttl++) {
		size_t len;

		do
			len = rnd_packet(p);
		while (len < 20 || (p[0] & 0x0f) != 5);
		((struct rte_ipv4_hdr *)p)->time_to_live = ttl;
		((struct rte_ipv4_hdr *)p)->hdr_checksum = 0;
		((struct rte_ipv4_hdr *)p)->hdr_checksum = rte_ipv4_cksum((struct rte_ipv4_hdr *)p);
		expect_same(p, len);
	}
}

static void
expect_refused(const char *object, size_t mem, const char *reason)
{
	struct sp_slice s = {.id = 4, .mem = mem_a, .mem_size = mem};
	char err[512] = "";

	assert_int_equal(load_file(&s, "SP_BPF_DIR", object, err, sizeof(err)), -EINVAL);
	if (strstr(err, reason) == NULL)
		fail_msg("%s: \"%s\" does not say \"%s\"", object, err, reason);
	bpf->slice_fini(&s);
}

static void
test_verifier_refusals_say_why(void **state)
{
	struct sp_slice s = {.id = 4, .mem = mem_a, .mem_size = 2 * MEM};
	char err[512] = "";
	void *old = NULL;

	(void)state;
	expect_refused("loop.bpf.o", MEM, "\"parse\" refused by the verifier: ");
	expect_refused("loop.bpf.o", MEM, "loops detected");
	expect_refused("oob.bpf.o", MEM, "memory boundary violation");
	expect_refused("helper.bpf.o", MEM, "invalid external function index");
	/* Byte 4096 is beyond a slice of 4096 bytes, within one of 8192. */
	expect_refused("memkey_past.bpf.o", MEM, "memory boundary violation");
	assert_int_equal(load_file(&s, "SP_BPF_DIR", "memkey_past.bpf.o", err, sizeof(err)), 0);
	bpf->slice_fini(&s);
	/* Without memory the helper gives no pointer at all. */
	expect_refused("memkey.bpf.o", 0, "destination is not a pointer");
	/* Not an object: refused, the program in force (none here) stays. */
	s.priv = NULL;
	assert_int_equal(bpf->load(&s, "\x7f" "ELF junk", 9, &old, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an eBPF object libbpf can open"));
	assert_null(s.priv);
}

static void
test_each_slice_sees_its_own_memory(void **state)
{
	static const uint8_t pkt[] = {0x11, 0x22, 0x33, 0x44, 0x55};
	struct sp_slice *slices[] = {&slice_a, &slice_b};
	char err[512] = "";

	(void)state;
	memcpy(mem_a, "AAAAa", 5);
	memcpy(mem_b, "BBBBb", 5);
	for (int i = 0; i < 2; i++) {
		struct rte_mbuf *m;

		assert_int_equal(load_file(slices[i], "SP_BPF_DIR", "memkey.bpf.o", err,
					   sizeof(err)), 0);
		m = through(bpf, slices[i], pkt, sizeof(pkt));
		assert_int_equal(sp_meta(m)->verdict, SP_FORWARD);
		assert_memory_equal(sp_meta(m)->key.b, i == 0 ? "AAAA" : "BBBB", 4);
		assert_memory_equal(sp_meta(m)->key.b + 4, pkt, 4);
		/* format() wrote memory byte 4 into the packet. */
		assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[0], i == 0 ? 'a' : 'b');
		assert_memory_equal(rte_pktmbuf_mtod(m, uint8_t *) + 1, pkt + 1, sizeof(pkt) - 1);
		rte_pktmbuf_free(m);
	}
}

static void
test_no_program_goes_to_the_slow_path(void **state)
{
	static const uint8_t pkt[] = {0x45, 0, 0, 20};
	struct sp_slice s = {.id = 5, .mem = mem_b, .mem_size = MEM};
	struct rte_mbuf *m;

	(void)state;
	m = through(bpf, &s, pkt, sizeof(pkt));
	assert_int_equal(sp_meta(m)->verdict, SP_EXCEPTION);
	assert_int_equal(sp_meta(m)->reason, SP_REASON_UNSUPPORTED);
	rte_pktmbuf_free(m);
	bpf->slice_fini(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv4_router_matches_native),
		cmocka_unit_test(test_verifier_refusals_say_why),
		cmocka_unit_test(test_each_slice_sees_its_own_memory),
		cmocka_unit_test(test_no_program_goes_to_the_slow_path),
	};

	sp_test_eal_init();
	bpf = sp_codeopt_find("bpf");
	native = sp_codeopt_find("ipv4");
	assert_non_null(bpf);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
