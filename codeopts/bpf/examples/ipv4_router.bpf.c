/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ipv4 code option (codeopts/ipv4/) as an eBPF program for the
 * bpf code option: the same checks, key, exceptions and TTL rewrite, so a
 * slice running it forwards the same bytes. Build:
 *
 *   clang -O2 -target bpf -mcpu=v2 -I/usr/local/include -c ipv4_router.bpf.c -o ipv4_router.bpf.o
 *
 * No loops (the verifier refuses them: the checksum loop is unrolled), no
 * function calls (everything inline), no global data.
 */
#include <slicepath/bpf.h>
#include <slicepath/ipv4.h>

#define INLINE static inline __attribute__((always_inline))
#define IP_MIN 20
#define IP_MAX 60
#define PORTS 4
#define TCP 6
#define UDP 17

INLINE uint32_t
word(const struct sp_bpf_ctx *c, uint32_t at)
{
	return (uint32_t)c->pkt[at] << 8 | c->pkt[at + 1];
}

/* The header's one's complement sum is all ones when its checksum is right. */
INLINE int
checksum_ok(const struct sp_bpf_ctx *c, uint32_t hlen)
{
	uint32_t sum = 0;

#pragma unroll
	for (uint32_t at = 0; at < IP_MAX; at += 2)
		if (at < hlen)
			sum += word(c, at);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

SP_BPF_PARSE int
ipv4_parse(struct sp_bpf_ctx *c)
{
	uint32_t len = c->pkt_len, hlen, tlen, frag;
	uint8_t proto;

	if (len < IP_MIN)
		return SP_BPF_DROP(SP_REASON_MALFORMED);
	/* The header and ports must be in the window (the first segment). */
	if (c->win_len < (len < IP_MAX + PORTS ? len : IP_MAX + PORTS))
		return SP_BPF_EXCEPTION(SP_REASON_UNSUPPORTED);
	if (c->pkt[0] >> 4 != 4)
		return SP_BPF_DROP(SP_REASON_MALFORMED);
	hlen = (uint32_t)(c->pkt[0] & 0x0f) * 4;
	tlen = word(c, 2);
	if (hlen < IP_MIN || hlen > len || tlen < hlen || tlen > len)
		return SP_BPF_DROP(SP_REASON_BAD_HDR_LEN);
	if (!checksum_ok(c, hlen))
		return SP_BPF_DROP(SP_REASON_BAD_CHECKSUM);
	c->pkt_len = tlen; /* cut link-layer padding */
	if (hlen > IP_MIN)
		return SP_BPF_EXCEPTION(SP_REASON_OPTIONS);
	if (c->pkt[8] <= 1)
		return SP_BPF_EXCEPTION(SP_REASON_TTL_EXPIRED);
	proto = c->pkt[9];
#pragma unroll
	for (int i = 0; i < 4; i++) {
		c->key[SP_IPV4_KEY_DST + i] = c->pkt[16 + i];
		c->key[SP_IPV4_KEY_SRC + i] = c->pkt[12 + i];
	}
	frag = word(c, 6) & 0x1fff;
	if ((proto == TCP || proto == UDP) && frag == 0 && IP_MIN + PORTS <= tlen) {
#pragma unroll
		for (int i = 0; i < PORTS; i++)
			c->key[SP_IPV4_KEY_SPORT + i] = c->pkt[IP_MIN + i];
	}
	c->key[SP_IPV4_KEY_PROTO] = proto;
	return SP_BPF_FORWARD;
}

/* RFC 1624 equation 3: HC' = ~(~HC + ~m + m') on the word holding TTL and protocol. */
SP_BPF_FORMAT int
ipv4_format(struct sp_bpf_ctx *c)
{
	uint32_t old = word(c, 8), sum;

	c->pkt[8]--;
	sum = (~word(c, 10) & 0xffff) + (~old & 0xffff) + word(c, 8);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	c->pkt[10] = (uint8_t)(sum >> 8);
	c->pkt[11] = (uint8_t)sum;
	return SP_BPF_FORWARD;
}

char LICENSE[] __attribute__((section("license"), used)) = "BSD";
