/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: what the LD_PRELOAD shim reads from a program
 * (control/libslicectl/preload_args.c): bind()'s address and the rate
 * variables, without slicectld.
 *
 * Input: byte 0 picks the socket type (% 3: stream, datagram, raw) and, in
 * bit 7, the rate's default; byte 1 is bind()'s length n, the next n bytes
 * (fewer if the input ends) the address, in a buffer of exactly that size;
 * the rest is one rate variable's value (cut at a NUL; none left: unset).
 *
 * Invariants: a bind is the slice's exactly when it is TCP or UDP to a
 * non-zero port of AF_INET (16 bytes or more) or of AF_INET6 (28 or more,
 * the wildcard or an IPv4-mapped address), not 127.0.0.1; then its port,
 * address and protocol are the bytes'. A rate is its default when unset or
 * empty, else taken exactly when it is decimal digits worth at most
 * INT64_MAX, and then it is their value.
 */
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "fuzz_pkt.h"
#include "preload_args.h"

static const int types[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_RAW};
static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* What preload_bind_wanted() should say of these bytes, worked out from the layouts. */
static bool
expect_bind(const uint8_t *sa, size_t n, int type, struct preload_bind *want)
{
	sa_family_t family;

	if (n < sizeof(family) || (type != SOCK_STREAM && type != SOCK_DGRAM))
		return false;
	memcpy(&family, sa, sizeof(family));
	want->tcp = type == SOCK_STREAM;
	if (family == AF_INET && n >= sizeof(struct sockaddr_in)) {
		want->port = (uint16_t)(sa[2] << 8 | sa[3]);
		memcpy(&want->addr, sa + 4, 4);
	} else if (family == AF_INET6 && n >= sizeof(struct sockaddr_in6)) {
		const uint8_t *a6 = sa + offsetof(struct sockaddr_in6, sin6_addr);
		static const uint8_t zero[16];

		want->port = (uint16_t)(sa[2] << 8 | sa[3]);
		want->addr = 0;
		if (memcmp(a6, mapped, sizeof(mapped)) == 0)
			memcpy(&want->addr, a6 + 12, 4);
		else if (memcmp(a6, zero, sizeof(zero)) != 0)
			return false;
	} else {
		return false;
	}
	return want->port != 0 && want->addr != htonl(INADDR_LOOPBACK);
}

static void
check_bind(const uint8_t *bytes, size_t n, int type)
{
	/* The address alone in its own buffer: a read past n bytes is caught. */
	uint8_t *sa = malloc(n > 0 ? n : 1);
	struct preload_bind got, want;
	bool wanted, expected;

	memcpy(sa, bytes, n);
	expected = expect_bind(sa, n, type, &want);
	wanted = preload_bind_wanted((const struct sockaddr *)sa, (socklen_t)n, type, &got);
	SP_TEST_CHECK(wanted == expected, "a bind of %zu bytes, type %d: %s, should be %s", n, type,
		      wanted ? "the slice's" : "not", expected ? "the slice's" : "not");
	SP_TEST_CHECK(!wanted || (got.tcp == want.tcp && got.port == want.port &&
				  got.addr == want.addr),
		      "a bind read as %s port %u address %#x, the bytes say %s port %u address %#x",
		      got.tcp ? "TCP" : "UDP", got.port, ntohl(got.addr), want.tcp ? "TCP" : "UDP",
		      want.port, ntohl(want.addr));
	free(sa);
}

static void
check_rate(const char *value, uint64_t dflt)
{
	unsigned __int128 want = 0;
	bool number = value != NULL && *value != '\0';
	uint64_t got = UINT64_MAX - 1;
	int rc = preload_rate(value, dflt, &got);

	for (const char *p = value; number && *p != '\0'; p++) {
		number = *p >= '0' && *p <= '9' && want <= INT64_MAX;
		want = want * 10 + (unsigned int)(*p - '0');
	}
	if (value == NULL || *value == '\0') {
		SP_TEST_CHECK(rc == 0 && got == dflt, "an unset rate gives %d, %lu", rc,
			      (unsigned long)got);
		return;
	}
	number = number && want <= INT64_MAX;
	SP_TEST_CHECK((rc == 0) == number, "rate \"%s\" %s", value, rc == 0 ? "taken" : "refused");
	SP_TEST_CHECK(rc < 0 || got == (uint64_t)want, "rate \"%s\" read as %lu", value,
		      (unsigned long)got);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n, off;
	char *value;

	if (size < 2)
		return 0;
	n = RTE_MIN((size_t)data[1], size - 2);
	check_bind(data + 2, n, types[data[0] % RTE_DIM(types)]);
	off = 2 + n;
	value = off < size ? strndup((const char *)data + off, size - off) : NULL;
	check_rate(value, data[0] & 0x80 ? 0 : 10000000);
	free(value);
	return 0;
}
