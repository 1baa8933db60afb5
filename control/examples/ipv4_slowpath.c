/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An IPv4 slice's slow path (docs/slowpath.md): it takes the exceptions of
 * its slice's fast path from the exception channel and answers those whose
 * TTL expired with an ICMP time exceeded message from the slice's router
 * address, injected back into the fast path, which routes it to the
 * sender like any other packet; so traceroute through the slice works.
 * Other exceptions are counted by reason and left.
 *
 *   ipv4-slowpath [-s SOCKET] -a ROUTER_ADDRESS SLICE
 *
 * Build against an installed libslicectl:
 *   cc -o ipv4-slowpath ipv4_slowpath.c $(pkg-config --cflags --libs libslicectl)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slicepath/ctl.h>

#define IP_HDR 20
#define ICMP_HDR 8
#define ICMP_TIME_EXCEEDED 11
#define QUOTED_PAYLOAD 8 /* RFC 792: the header and the first 8 bytes of what expired */

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* The Internet checksum (RFC 1071) of len bytes. */
static uint16_t
checksum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

static void
put16(uint8_t *p, uint16_t v_be)
{
	memcpy(p, &v_be, sizeof(v_be));
}

/* ICMP errors are not answered with ICMP errors (RFC 1122 3.2.2). */
static bool
is_icmp_error(const uint8_t *ip, size_t len)
{
	size_t hlen = (size_t)(ip[0] & 0x0f) * 4;

	if (ip[9] != IPPROTO_ICMP || len < hlen + 1)
		return false;
	return ip[hlen] != 0 && ip[hlen] != 8; /* neither echo reply nor request */
}

/*
 * The time exceeded message for the expired IPv4 packet pkt, from router
 * (network order) into out; its length, or 0 when none is due.
 */
static size_t
time_exceeded(const uint8_t *pkt, size_t len, uint32_t router, uint16_t ident, uint8_t *out)
{
	size_t hlen = (size_t)(pkt[0] & 0x0f) * 4, quoted;
	uint8_t *icmp = out + IP_HDR;
	size_t total;

	if (len < IP_HDR || (pkt[0] >> 4) != 4 || hlen < IP_HDR || hlen > len ||
	    is_icmp_error(pkt, len))
		return 0;
	quoted = hlen + QUOTED_PAYLOAD < len ? hlen + QUOTED_PAYLOAD : len;
	total = IP_HDR + ICMP_HDR + quoted;
	memset(out, 0, IP_HDR + ICMP_HDR);
	out[0] = 0x45;
	put16(out + 2, htons((uint16_t)total));
	put16(out + 4, htons(ident));
	out[8] = 64;           /* TTL */
	out[9] = IPPROTO_ICMP;
	memcpy(out + 12, &router, 4);
	memcpy(out + 16, pkt + 12, 4); /* back to the expired packet's source */
	put16(out + 10, checksum(out, IP_HDR));
	icmp[0] = ICMP_TIME_EXCEEDED;
	icmp[1] = 0; /* TTL exceeded in transit */
	memcpy(icmp + ICMP_HDR, pkt, quoted);
	put16(icmp + 2, checksum(icmp, ICMP_HDR + quoted));
	return total;
}

static int
usage(void)
{
	fprintf(stderr, "usage: ipv4-slowpath [-s SOCKET] -a ROUTER_ADDRESS SLICE\n");
	return 1;
}

int
main(int argc, char **argv)
{
	uint8_t pkt[65536], reply[IP_HDR + ICMP_HDR + 60 + QUOTED_PAYLOAD];
	unsigned long exceptions = 0, answered = 0, other = 0, left[256] = {0};
	const char *path = NULL, *slice;
	struct in_addr router = {0};
	struct sp_ctl *ctl;
	struct sigaction sa = {.sa_handler = on_signal};
	int opt, fd;

	while ((opt = getopt(argc, argv, "s:a:")) != -1) {
		if (opt == 's')
			path = optarg;
		else if (opt == 'a' && inet_pton(AF_INET, optarg, &router) == 1)
			continue;
		else
			return usage();
	}
	if (optind + 1 != argc || router.s_addr == 0)
		return usage();
	slice = argv[optind];
	ctl = sp_ctl_open(path);
	if (ctl == NULL) {
		fprintf(stderr, "ipv4-slowpath: cannot reach slicectld: %s\n", strerror(errno));
		return 1;
	}
	fd = sp_ctl_channel_open(ctl, slice);
	if (fd < 0) {
		fprintf(stderr, "ipv4-slowpath: %s\n", sp_ctl_error(ctl));
		sp_ctl_close(ctl);
		return 1;
	}
	/* No SA_RESTART: a signal ends the wait for the next exception. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	printf("ipv4-slowpath: slice %s, router %s: waiting for exceptions\n", slice,
	       inet_ntoa(router));
	fflush(stdout);
	while (!stop) {
		struct sp_exc_hdr h;
		ssize_t n = sp_ctl_channel_recv(fd, &h, pkt, sizeof(pkt));
		size_t len;

		if (n == -EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "ipv4-slowpath: the exception channel: %s\n", strerror((int)-n));
			break;
		}
		exceptions++;
		len = h.reason == SP_REASON_TTL_EXPIRED
			      ? time_exceeded(pkt, (size_t)n, router.s_addr,
					      (uint16_t)answered, reply) : 0;
		if (len == 0) {
			other++;
			left[h.reason]++;
			continue;
		}
		/* Taken as arrived where the expired packet did: routed back like any packet. */
		if (sp_ctl_channel_inject(fd, h.endpoint, reply, len) == 0)
			answered++;
	}
	printf("ipv4-slowpath: %lu exceptions, %lu answered with time exceeded, %lu left\n",
	       exceptions, answered, other);
	for (unsigned int r = 0; r < 256; r++)
		if (left[r] != 0)
			printf("ipv4-slowpath: left %lu %s\n", left[r], sp_ctl_reason_name((uint8_t)r));
	close(fd);
	sp_ctl_close(ctl);
	return 0;
}
