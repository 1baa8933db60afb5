/* SPDX-License-Identifier: BSD-3-Clause */
#include "preload_args.h"

#include <stddef.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

bool
preload_bind_wanted(const struct sockaddr *sa, socklen_t len, int type, struct preload_bind *b)
{
	sa_family_t family;

	if (sa == NULL || len < sizeof(family) || (type != SOCK_STREAM && type != SOCK_DGRAM))
		return false;
	memcpy(&family, sa, sizeof(family));
	b->tcp = type == SOCK_STREAM;
	if (family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		b->port = ntohs(in->sin_port);
		b->addr = in->sin_addr.s_addr;
	} else if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		b->port = ntohs(in6->sin6_port);
		b->addr = 0;
		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
			memcpy(&b->addr, &in6->sin6_addr.s6_addr[12], sizeof(b->addr));
		else if (!IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
			return false;
	} else {
		return false;
	}
	return b->port != 0 && b->addr != htonl(INADDR_LOOPBACK);
}

int
preload_rate(const char *value, uint64_t dflt, uint64_t *rate)
{
	uint64_t v = 0;

	if (value == NULL || *value == '\0') {
		*rate = dflt;
		return 0;
	}
	/* By hand, not strtoull: no sign, no blanks, no wrap past the limit. */
	for (const char *p = value; *p != '\0'; p++) {
		if (*p < '0' || *p > '9' || v > ((uint64_t)INT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*rate = v;
	return 0;
}
