/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * i3-slowpath: the slow path of an i3 slice (docs/i3.md).
 *
 *   i3-slowpath [-s SOCKET] -r RING_FILE [-e ENDPOINT] [-q QUEUE] [-m TRIGGERS]
 *               [-t SECONDS] SLICE
 *
 * Writes the ring from RING_FILE into the slice's memory (again on SIGHUP),
 * then serves the slice's exception channel until SIGINT or SIGTERM, when
 * it removes its filters and prints what it did.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "slowpath.h"

#define DEFAULT_TIMEOUT 30 /* seconds: i3's trigger timeout */
#define DEFAULT_TRIGGERS 256
#define MAX_TRIGGERS 131072
#define TICK_MS 1000

static volatile sig_atomic_t stop, reload;

static void
on_signal(int sig)
{
	if (sig == SIGHUP)
		reload = 1;
	else
		stop = 1;
}

static int
usage(void)
{
	fprintf(stderr, "usage: i3-slowpath [-s SOCKET] -r RING_FILE [-e ENDPOINT] [-q QUEUE] "
		"[-m TRIGGERS] [-t SECONDS] SLICE\n");
	return 2;
}

static bool
number(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno == 0 && end != s && *end == 0 && *out <= max;
}

/* Slice memory holds the ring and a record per trigger slot: check the last one is there. */
static int
check_memory(struct i3sp *sp)
{
	uint8_t probe;
	size_t need = SP_I3_TRIGGERS_OFFSET + (size_t)sp->nb_slots * sizeof(struct sp_i3_trigger_rec);

	if (sp_ctl_mem_read(sp->ctl, sp->slice, (uint32_t)(need - 1), &probe, 1) == 0)
		return 0;
	fprintf(stderr, "i3-slowpath: slice %s: %s (%u triggers need %zu bytes of slice memory)\n",
		sp->slice, sp_ctl_error(sp->ctl), sp->nb_slots, need);
	return -1;
}

static void
serve(struct i3sp *sp, const char *ring_file)
{
	static uint8_t pkt[65536];
	struct pollfd pfd = {.fd = sp->fd, .events = POLLIN};

	while (!stop) {
		struct sp_exc_hdr h;
		ssize_t n;

		if (reload) {
			reload = 0;
			i3sp_ring_load(sp, ring_file);
		}
		i3sp_trigger_expire(sp, time(NULL));
		if (poll(&pfd, 1, TICK_MS) <= 0)
			continue;
		n = sp_ctl_channel_recv(sp->fd, &h, pkt, sizeof(pkt));
		if (n == -EINTR || n == -EAGAIN)
			continue;
		if (n < 0) {
			fprintf(stderr, "i3-slowpath: the exception channel: %s\n", strerror((int)-n));
			break;
		}
		if ((size_t)n > sizeof(pkt))
			continue; /* cut short: not a packet to act on */
		i3sp_exception(sp, h.reason, pkt, (size_t)n);
	}
}

static void
report(const struct i3sp *sp)
{
	const struct i3sp_counters *c = &sp->n;

	printf("i3-slowpath: %lu exceptions: %lu delivered, %lu forwarded over the ring, "
	       "%lu without trigger, %lu malformed, %lu unsupported; triggers: %lu inserted, "
	       "%lu refreshed, %lu removed, %lu expired, %lu challenged, %lu refused\n",
	       c->exceptions, c->delivered, c->forwarded, c->no_trigger, c->malformed,
	       c->unsupported, c->inserted, c->refreshed, c->removed, c->expired, c->challenged,
	       c->refused);
}

int
main(int argc, char **argv)
{
	struct i3sp sp = {.timeout = DEFAULT_TIMEOUT, .nb_slots = DEFAULT_TRIGGERS};
	struct sigaction sa = {.sa_handler = on_signal};
	const char *path = NULL, *ring_file = NULL;
	unsigned long v;
	int opt, rc = 1;

	while ((opt = getopt(argc, argv, "s:r:e:q:m:t:")) != -1) {
		if (opt == 's')
			path = optarg;
		else if (opt == 'r')
			ring_file = optarg;
		else if (opt == 'e' && number(optarg, UINT16_MAX, &v))
			sp.endpoint = (uint16_t)v;
		else if (opt == 'q' && number(optarg, UINT16_MAX, &v))
			sp.queue = (uint16_t)v;
		else if (opt == 'm' && number(optarg, MAX_TRIGGERS, &v) && v > 0)
			sp.nb_slots = (uint32_t)v;
		else if (opt == 't' && number(optarg, 86400, &v) && v > 0)
			sp.timeout = (unsigned int)v;
		else
			return usage();
	}
	if (optind + 1 != argc || ring_file == NULL)
		return usage();
	sp.slice = argv[optind];
	sp.max_trig = sp.nb_slots;
	sp.trig = calloc(sp.max_trig, sizeof(*sp.trig));
	sp.slots = calloc(sp.nb_slots, sizeof(*sp.slots));
	if (sp.trig == NULL || sp.slots == NULL ||
	    getrandom(sp.secret, sizeof(sp.secret), 0) != sizeof(sp.secret)) {
		fprintf(stderr, "i3-slowpath: %s\n", strerror(errno));
		return 1;
	}
	sp.ctl = sp_ctl_open(path);
	if (sp.ctl == NULL) {
		fprintf(stderr, "i3-slowpath: cannot reach slicectld: %s\n", strerror(errno));
		return 1;
	}
	if (check_memory(&sp) < 0 || i3sp_ring_load(&sp, ring_file) < 0)
		goto out;
	sp.fd = sp_ctl_channel_open(sp.ctl, sp.slice);
	if (sp.fd < 0) {
		fprintf(stderr, "i3-slowpath: %s\n", sp_ctl_error(sp.ctl));
		goto out;
	}
	/* No SA_RESTART: a signal ends the wait. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	printf("i3-slowpath: slice %s: waiting for exceptions\n", sp.slice);
	fflush(stdout);
	serve(&sp, ring_file);
	i3sp_triggers_drop_all(&sp);
	report(&sp);
	close(sp.fd);
	rc = 0;
out:
	sp_ctl_close(sp.ctl);
	free(sp.trig);
	free(sp.slots);
	return rc;
}
