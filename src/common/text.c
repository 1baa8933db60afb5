/* SPDX-License-Identifier: BSD-3-Clause */
/* Text helpers for addresses, rates and hex (text.h): shared with the control plane. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <slicepath/proto.h>

#include "text.h"

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
sp_parse_hex_bytes(const char *s, uint8_t *out, size_t max, size_t *n)
{
	size_t i;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (i = 0; s[2 * i] != '\0'; i++) {
		int hi = hex_digit(s[2 * i]);
		int lo = hi < 0 ? -1 : hex_digit(s[2 * i + 1]);

		if (lo < 0 || i == max)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*n = i;
	return 0;
}

void
sp_format_hex(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

int
sp_parse_ipv4(const char *s, uint32_t *ip_be)
{
	struct in_addr a;

	/* glibc accepts exactly four decimal parts and no leading zeros here. */
	if (s == NULL || ip_be == NULL || inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*ip_be = a.s_addr;
	return 0;
}

int
sp_parse_ipv6(const char *s, uint8_t ip6[16])
{
	struct in6_addr a;

	if (s == NULL || ip6 == NULL || inet_pton(AF_INET6, s, &a) != 1)
		return -EINVAL;
	memcpy(ip6, a.s6_addr, sizeof(a.s6_addr));
	return 0;
}

const char *
sp_format_ip(const struct sp_ip *a, char *buf, size_t len)
{
	if (sp_ip_is_v4(a))
		return inet_ntop(AF_INET, a->b + SP_IP_V4_AT, buf, (socklen_t)len);
	return inet_ntop(AF_INET6, a->b, buf, (socklen_t)len);
}

int
sp_parse_mac(const char *s, uint8_t mac[6])
{
	uint8_t m[6];

	if (s == NULL || mac == NULL)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		const char *c = s + 3 * i;
		int hi = hex_digit(c[0]);
		int lo = hi < 0 ? -1 : hex_digit(c[1]);

		if (lo < 0 || c[2] != (i < 5 ? ':' : '\0'))
			return -EINVAL;
		m[i] = (uint8_t)(hi << 4 | lo);
	}
	memcpy(mac, m, sizeof(m));
	return 0;
}

/*
 * Decimal number with an optional fraction and an optional decimal suffix,
 * computed exactly in integers: "1.5k" is 1500, "1.5" (not a whole number of
 * bits) and anything that does not fit in 64 bits is refused.
 */
int
sp_parse_rate(const char *s, uint64_t *bps)
{
	static const char suffixes[] = "kKMGT";
	static const unsigned int exps[] = { 3, 3, 6, 9, 12 };
	unsigned int digits = 0, frac = 0, exp = 0;
	bool dot = false;
	uint64_t v = 0;
	const char *c;

	if (s == NULL || bps == NULL)
		return -EINVAL;
	for (c = s; *c != '\0'; c++) {
		if (*c >= '0' && *c <= '9') {
			uint64_t d = (uint64_t)(*c - '0');

			if (v > (UINT64_MAX - d) / 10)
				return -EINVAL;
			v = v * 10 + d;
			digits++;
			frac += dot;
		} else if (*c == '.' && !dot && digits > 0) {
			dot = true;
		} else {
			break;
		}
	}
	if (digits == 0 || (dot && frac == 0))
		return -EINVAL;
	if (*c != '\0') {
		const char *suffix = strchr(suffixes, *c);

		if (suffix == NULL || c[1] != '\0')
			return -EINVAL;
		exp = exps[suffix - suffixes];
	}
	for (; frac > exp; frac--) {
		if (v % 10 != 0)
			return -EINVAL;
		v /= 10;
	}
	for (; exp > frac; exp--) {
		if (v > UINT64_MAX / 10)
			return -EINVAL;
		v *= 10;
	}
	if (v == 0)
		return -EINVAL;
	*bps = v;
	return 0;
}

const char *
sp_format_rate(uint64_t bps, char *buf, size_t len)
{
	/* The suffixes sp_parse_rate reads, largest first ("k" and "K" are both 10^3). */
	static const struct {
		char suffix;
		unsigned int exp;
		uint64_t unit;
	} units[] = {
		{ 'T', 12, 1000000000000ULL }, { 'G', 9, 1000000000ULL },
		{ 'M', 6, 1000000ULL }, { 'k', 3, 1000ULL },
	};
	char best[SP_RATE_STR_LEN], c[48];
	size_t best_len;

	/*
	 * A candidate wins when shorter than best_len: a tie goes to the larger
	 * unit, and to a unit over the plain number (one longer to begin with).
	 */
	best_len = (size_t)snprintf(best, sizeof(best), "%" PRIu64, bps) + 1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t whole = bps / units[i].unit, rest = bps % units[i].unit;
		unsigned int decimals = units[i].exp;
		int n;

		if (whole == 0)
			continue;
		while (rest != 0 && rest % 10 == 0) {
			rest /= 10;
			decimals--;
		}
		if (rest == 0)
			n = snprintf(c, sizeof(c), "%" PRIu64 "%c", whole, units[i].suffix);
		else
			n = snprintf(c, sizeof(c), "%" PRIu64 ".%0*" PRIu64 "%c", whole,
				     (int)decimals, rest, units[i].suffix);
		if (n > 0 && (size_t)n < best_len) {
			memcpy(best, c, (size_t)n + 1);
			best_len = (size_t)n;
		}
	}
	if (len > 0)
		snprintf(buf, len, "%s", best);
	return buf;
}

int
sp_parse_hex_key(const char *s, struct sp_key *k)
{
	struct sp_key tmp = {{0}};
	size_t n;

	if (s == NULL || k == NULL || sp_parse_hex_bytes(s, tmp.b, SP_KEY_BYTES, &n) < 0 ||
	    n != SP_KEY_BYTES)
		return -EINVAL;
	*k = tmp;
	return 0;
}

int
sp_parse_next_hop(const char *s, struct sp_result *r)
{
	const char *colon = s != NULL ? strrchr(s, ':') : NULL;
	char ip[INET6_ADDRSTRLEN];
	bool bracket = s != NULL && s[0] == '[';
	size_t len;
	uint32_t port = 0;
	const char *c;

	if (colon == NULL || colon[1] == '\0')
		return -EINVAL;
	for (c = colon + 1; *c != '\0'; c++) {
		if (*c < '0' || *c > '9' || c - colon > 5)
			return -EINVAL;
		port = port * 10 + (uint32_t)(*c - '0');
	}
	if (port == 0 || port > 65535)
		return -EINVAL;
	/* An IPv6 address is bracketed (RFC 3986): its own colons are no port's. */
	if (bracket && (colon - s < 2 || colon[-1] != ']'))
		return -EINVAL;
	len = (size_t)(colon - s) - (bracket ? 2 : 0);
	if (len >= sizeof(ip))
		return -EINVAL;
	memcpy(ip, s + bracket, len);
	ip[len] = '\0';
	if (bracket ? sp_parse_ipv6(ip, r->nh_ip6) < 0 : sp_parse_ipv4(ip, &r->nh_ip) < 0)
		return -EINVAL;
	if (bracket)
		r->nh_ip = 0;
	else
		memset(r->nh_ip6, 0, sizeof(r->nh_ip6));
	r->nh_family = bracket ? SP_NH_IPV6 : SP_NH_IPV4;
	r->nh_port = htons((uint16_t)port);
	return 0;
}

const char *
sp_format_next_hop(const struct sp_result *r, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (r->nh_family == SP_NH_IPV6)
		snprintf(buf, len, "[%s]:%u", inet_ntop(AF_INET6, r->nh_ip6, ip, sizeof(ip)),
			 ntohs(r->nh_port));
	else
		snprintf(buf, len, "%s:%u", inet_ntop(AF_INET, &r->nh_ip, ip, sizeof(ip)),
			 ntohs(r->nh_port));
	return buf;
}

const char *
sp_unusable_next_hop(const struct sp_result *r)
{
	if (r->nh_family == SP_NH_IPV6)
		return sp_unusable_ipv6(r->nh_ip6);
	if (r->nh_family != SP_NH_IPV4)
		return "has no address family this node knows";
	return sp_unusable_ipv4(r->nh_ip);
}

const char *
sp_unusable_ipv4(uint32_t ip_be)
{
	uint32_t ip = ntohl(ip_be);

	if (ip == 0)
		return "is the unspecified address";
	if (ip == UINT32_MAX)
		return "is the broadcast address";
	if ((ip >> 28) == 0xe)
		return "is a multicast address";
	return NULL;
}

const char *
sp_unusable_ipv6(const uint8_t ip6[16])
{
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};
	static const uint8_t zero[15];

	if (ip6[0] == 0xff)
		return "is a multicast address";
	if (memcmp(ip6, zero, sizeof(zero)) == 0 && ip6[15] <= 1)
		return ip6[15] == 0 ? "is the unspecified address" : "is the loopback address";
	if (memcmp(ip6, mapped, sizeof(mapped)) == 0)
		return "is an IPv4-mapped address";
	return NULL;
}

const char *
sp_netns_name_problem(const char *name)
{
	size_t len = strlen(name);

	_Static_assert(SP_NETNS_NAME_LEN == 64, "the message below says 63");
	if (len == 0 || len >= SP_NETNS_NAME_LEN)
		return "must have 1 to 63 characters";
	if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != len)
		return "may hold only letters, digits, '_', '-' or '.'";
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return "must not be . or ..";
	return NULL;
}

const char *
sp_slice_name_problem(const char *name)
{
	size_t len = strlen(name);

	_Static_assert(SP_NAME_LEN == 32, "the message below says 31");
	if (len == 0 || len >= SP_NAME_LEN)
		return "must have 1 to 31 characters";
	if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != len)
		return "may hold only letters, digits or '_'";
	if (strspn(name, "0123456789") == len)
		return "must not be all digits (those stand for a slice id)";
	return NULL;
}

/* Edits from a to b: letters added, dropped, changed, or two neighbours swapped. */
static size_t
edits(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[3][SP_NAME_LEN + 1];

	if (la > SP_NAME_LEN || lb > SP_NAME_LEN)
		return SIZE_MAX;
	/* Three rows of the table: two back for a swap. */
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *row = d[i % 3], *up = d[(i - 1) % 3], *up2 = d[(i + 1) % 3];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = up[j - 1] + (a[i - 1] != b[j - 1]);

			if (up[j] + 1 < best)
				best = up[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    up2[j - 2] + 1 < best)
				best = up2[j - 2] + 1;
			row[j] = best;
		}
	}
	return d[la % 3][lb];
}

const char *
sp_closest(const char *word, const char *const *candidates, size_t n)
{
	size_t best = 3, len = strlen(word);
	const char *found = NULL;

	for (size_t i = 0; i < n; i++) {
		size_t e = edits(word, candidates[i]);

		if (e < best && e < len) {
			best = e;
			found = candidates[i];
		}
	}
	return found;
}
