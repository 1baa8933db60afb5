/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Live views: stats sampled every N seconds (for scripts: one line of JSON
 * a sample with the counters and their rates), and top, a screen of rates
 * refreshed in place: ports, slices (busiest first), queues.
 */
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common/clock.h"
#include "common/latency.h"

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* top's terminal as it was, while keys are read one at a time without echo. */
static struct termios saved_tty;
static bool keys_on;

/* On a terminal, keys as they are typed (q quits top); elsewhere none are read. */
static void
keys_start(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tty) != 0)
		return;
	t = saved_tty;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	keys_on = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
}

static void
keys_stop(void)
{
	if (keys_on)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	keys_on = false;
}

/* Wait interval seconds, less if q is typed (then stop) or a signal stops it. */
static void
wait_or_key(double interval)
{
	double end = sp_mono_seconds() + interval;

	while (!stop) {
		double left = end - sp_mono_seconds();
		struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
		char key;

		if (left <= 0)
			return;
		if (!keys_on) {
			struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};

			nanosleep(&ts, NULL);
			continue;
		}
		if (poll(&p, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		if (read(STDIN_FILENO, &key, 1) != 1)
			keys_stop(); /* the terminal went: wait out the rest */
		else if (key == 'q' || key == 'Q')
			stop = 1;
	}
}

/*
 * The mirror of cur with each integer replaced by its rate per second since
 * prev (dt 0: the first sample). What prev lacks was 0 then: a slice created
 * meanwhile, a residence bucket that had no sample yet.
 */
static json_t *
rates(json_t *cur, json_t *prev, double dt)
{
	const char *key;
	json_t *v, *out;

	if (json_is_integer(cur))
		return json_real(dt <= 0 ? 0.0 :
				 (double)(json_integer_value(cur) - json_integer_value(prev)) / dt);
	if (!json_is_object(cur))
		return NULL;
	out = json_object();
	json_object_foreach(cur, key, v) {
		json_t *r = rates(v, json_object_get(prev, key), dt);

		if (r != NULL)
			json_object_set_new(out, key, r);
	}
	return out;
}

/* "12.3M" */
static const char *
human(double v, char *buf, size_t len)
{
	static const char units[] = " kMGT";
	int u = 0;

	while (fabs(v) >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.1f%c", v, units[u]);
	return buf;
}

static double
rate(json_t *o, const char *key)
{
	return json_real_value(json_object_get(o, key));
}

/* What one sample shows; r and dr: the answer and its rates. */
typedef void (*show_fn)(struct cli *cli, json_t *r, json_t *dr, double dt, void *arg);

/*
 * Sample what get() fetches every interval seconds, count times (0: until
 * Ctrl-C); keys: q typed on the terminal stops it too.
 */
static int
sample(struct cli *cli, json_t *(*get)(struct cli *cli, void *arg, int *status), void *arg,
       double interval, unsigned long count, show_fn show, bool keys)
{
	struct sigaction sa = {.sa_handler = on_signal};
	json_t *prev = NULL;
	double t_prev = 0;
	int status = 0;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (keys)
		keys_start();
	for (unsigned long n = 0; !stop && (count == 0 || n < count); n++) {
		json_t *r = get(cli, arg, &status), *dr;
		double t = sp_mono_seconds(), dt = prev != NULL ? t - t_prev : 0;

		if (r == NULL)
			break;
		dr = rates(r, prev, dt);
		show(cli, r, dr, dt, arg);
		fflush(stdout);
		json_decref(dr);
		json_decref(prev);
		prev = r;
		t_prev = t;
		if (count == 0 || n + 1 < count)
			wait_or_key(interval);
	}
	keys_stop();
	json_decref(prev);
	return status;
}

/* ---- stats --interval N [--count M] */

static json_t *
get_stats(struct cli *cli, void *arg, int *status)
{
	const char *slice = arg;

	return cli_call(cli, SP_M_STATS_GET, slice != NULL ? json_pack("{s:s}", "slice", slice) : NULL,
			status);
}

struct bucket_rate {
	unsigned long long top; /* the largest value the bucket holds, ns */
	double rate;            /* its new samples a second */
};

static int
by_top(const void *a, const void *b)
{
	const struct bucket_rate *x = a, *y = b;

	return (x->top > y->top) - (x->top < y->top);
}

/* The value (ns) at or below which fraction q of the samples lie (n > 0 buckets, by top). */
static double
quantile_ns(const struct bucket_rate *b, size_t n, double total, double q)
{
	double seen = 0;

	for (size_t i = 0; i < n; i++) {
		seen += b[i].rate;
		if (seen >= q * total)
			return (double)b[i].top;
	}
	return (double)b[n - 1].top;
}

/*
 * The interval's residence times, from the rates of stats.get's buckets: a
 * bucket's rate is its new samples over the interval, so the rates'
 * percentiles are the interval's samples'.
 */
static void
show_residence(json_t *dr, double dt)
{
	static struct bucket_rate b[SP_LAT_BUCKETS];
	double total = 0;
	const char *key;
	size_t n = 0;
	json_t *v;

	json_object_foreach(json_object_get(dr, SP_LATENCY_BUCKETS), key, v) {
		if (n == SP_LAT_BUCKETS || json_real_value(v) <= 0)
			continue;
		b[n].top = strtoull(key, NULL, 10);
		b[n].rate = json_real_value(v);
		total += b[n++].rate;
	}
	if (n == 0) {
		printf("residence: no frames sampled\n");
		return;
	}
	qsort(b, n, sizeof(b[0]), by_top);
	cli_print_residence(quantile_ns(b, n, total, 0.5), quantile_ns(b, n, total, 0.99),
			    quantile_ns(b, n, total, 0.999), (double)b[n - 1].top, total * dt);
}

static void
show_stats(struct cli *cli, json_t *r, json_t *dr, double dt, void *arg)
{
	const char *const stages[] = {SLICE_KEY(rx, ""), SLICE_KEY(fwd, ""),
				      SLICE_KEY(exception, ""), SLICE_KEY(drop, "")};
	const char *slice = arg, *name;
	char b[8][16];
	json_t *o;

	if (cli->json) {
		json_t *line = json_pack("{s:f, s:f, s:O, s:O}", "time", (double)time(NULL),
					 "interval", dt, "counters", r, "rates", dr);

		char *text = json_dumps(line, JSON_COMPACT);

		/* One object a line, for scripts that read as it comes. */
		if (text != NULL)
			printf("%s\n", text);
		free(text);
		json_decref(line);
		return;
	}
	if (slice != NULL) {
		o = json_object_get(dr, "slice");
		printf("%s:", slice);
		for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
			char key[32];

			snprintf(key, sizeof(key), "%s_pkts", stages[i]);
			printf(" %s %s pkt/s", stages[i], human(rate(o, key), b[i], sizeof(b[i])));
		}
		printf(", fwd %s bit/s\n",
		       human(8 * rate(o, SLICE_KEY(fwd, "_bytes")), b[4], sizeof(b[4])));
		return;
	}
	json_object_foreach(json_object_get(dr, "ports"), name, o)
		printf("%s: rx %s pkt/s %s bit/s, tx %s pkt/s %s bit/s, tx_drop %s pkt/s\n", name,
		       human(rate(o, PORT_KEY(rx, "_pkts")), b[0], 16),
		       human(8 * rate(o, PORT_KEY(rx, "_bytes")), b[1], 16),
		       human(rate(o, PORT_KEY(tx, "_pkts")), b[2], 16),
		       human(8 * rate(o, PORT_KEY(tx, "_bytes")), b[3], 16),
		       human(rate(o, PORT_KEY(tx_drop, "_pkts")), b[4], 16));
	show_residence(json_object_get(dr, SP_STATS_RESIDENCE), dt);
}

int
cmd_stats_watch(struct cli *cli, const char *slice, double interval, unsigned long count)
{
	return sample(cli, get_stats, (void *)slice, interval, count, show_stats, false);
}

/* ---- top [SLICE...] */

struct top {
	int argc;
	char **argv; /* the slices to show; none: all */
	double interval;
};

static bool
wanted(const struct top *t, const char *name)
{
	if (t->argc == 0)
		return true;
	for (int i = 0; i < t->argc; i++)
		if (strcmp(t->argv[i], name) == 0)
			return true;
	return false;
}

/* {"node": stats.get, "slices": {name: stats.get of it}} */
static json_t *
get_all(struct cli *cli, void *arg, int *status)
{
	const struct top *t = arg;
	json_t *node = cli_call(cli, SP_M_STATS_GET, NULL, status), *all, *s;
	const char *name;

	if (node == NULL)
		return NULL;
	all = json_pack("{s:o, s:{}}", "node", node, "slices");
	json_object_foreach(json_object_get(node, "slices"), name, s) {
		json_t *one;

		if (!wanted(t, name))
			continue;
		one = cli_call(cli, SP_M_STATS_GET, json_pack("{s:s}", "slice", name), status);
		if (one != NULL)
			json_object_set_new(json_object_get(all, "slices"), name, one);
	}
	*status = 0;
	return all;
}

struct ranked {
	const char *name;
	double fwd;
};

static int
busiest_first(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	return (x->fwd < y->fwd) - (x->fwd > y->fwd);
}

static void
show_top(struct cli *cli, json_t *r, json_t *dr, double dt, void *arg)
{
	const struct top *t = arg;
	json_t *sl = json_object_get(dr, "slices"), *o, *q;
	struct ranked *rank = calloc(json_object_size(sl) + 1, sizeof(*rank));
	size_t n = 0;
	const char *name, *id;
	struct table *tb;
	char b[8][16], tm[32];
	time_t wall = time(NULL);

	(void)cli;
	(void)r;
	strftime(tm, sizeof(tm), "%H:%M:%S", localtime(&wall));
	/* Home and clear: the screen is redrawn in place. */
	printf("\033[H\033[2J");
	printf("slicectl top  %s  every %g s%s  (q or Ctrl-C quits)\n\n", tm, t->interval,
	       dt == 0 ? ", rates from the next refresh" : "");
	tb = table_new(6, "IFACE", PORT_KEY(rx, "_pps"), PORT_KEY(rx, "_bit/s"),
		       PORT_KEY(tx, "_pps"), PORT_KEY(tx, "_bit/s"), PORT_KEY(tx_drop, "_pps"));
	json_object_foreach(json_object_get(json_object_get(dr, "node"), "ports"), name, o)
		table_row(tb, name, human(rate(o, PORT_KEY(rx, "_pkts")), b[0], 16),
			  human(8 * rate(o, PORT_KEY(rx, "_bytes")), b[1], 16),
			  human(rate(o, PORT_KEY(tx, "_pkts")), b[2], 16),
			  human(8 * rate(o, PORT_KEY(tx, "_bytes")), b[3], 16),
			  human(rate(o, PORT_KEY(tx_drop, "_pkts")), b[4], 16));
	table_print(tb);
	show_residence(json_object_get(json_object_get(dr, "node"), SP_STATS_RESIDENCE), dt);
	printf("\n");
	json_object_foreach(sl, name, o)
		if (rank != NULL)
			rank[n++] = (struct ranked){name, rate(json_object_get(o, "slice"),
							       SLICE_KEY(fwd, "_pkts"))};
	if (rank != NULL)
		qsort(rank, n, sizeof(*rank), busiest_first);
	tb = table_new(6, "SLICE", SLICE_KEY(rx, "_pps"), SLICE_KEY(fwd, "_pps"),
		       SLICE_KEY(fwd, "_bit/s"), SLICE_KEY(exception, "_pps"),
		       SLICE_KEY(drop, "_pps"));
	for (size_t i = 0; i < n; i++) {
		o = json_object_get(json_object_get(sl, rank[i].name), "slice");
		table_row(tb, rank[i].name, human(rate(o, SLICE_KEY(rx, "_pkts")), b[0], 16),
			  human(rate(o, SLICE_KEY(fwd, "_pkts")), b[1], 16),
			  human(8 * rate(o, SLICE_KEY(fwd, "_bytes")), b[2], 16),
			  human(rate(o, SLICE_KEY(exception, "_pkts")), b[3], 16),
			  human(rate(o, SLICE_KEY(drop, "_pkts")), b[4], 16));
	}
	table_print(tb);
	printf("\n");
	tb = table_new(7, "SLICE", "QUEUE", QUEUE_KEY(sent, "_pps"), QUEUE_KEY(sent, "_bit/s"),
		       QUEUE_LENGTH_KEY(len, "_pkts"), QUEUE_LENGTH_KEY(len, "_bytes"),
		       SP_QUEUE_DROP "_pps");
	for (size_t i = 0; i < n; i++) {
		json_t *counts = json_object_get(json_object_get(json_object_get(r, "slices"),
								 rank[i].name), "queues");

		json_object_foreach(json_object_get(json_object_get(sl, rank[i].name), "queues"), id, q) {
			json_t *c = json_object_get(counts, id), *d;
			const char *why;
			double drops = 0;

			json_object_foreach(json_object_get(q, "drops"), why, d)
				drops += rate(d, "pkts");
			snprintf(b[2], 16, "%" JSON_INTEGER_FORMAT, json_integer_value(
				 json_object_get(c, QUEUE_LENGTH_KEY(len, "_pkts"))));
			snprintf(b[3], 16, "%" JSON_INTEGER_FORMAT, json_integer_value(
				 json_object_get(c, QUEUE_LENGTH_KEY(len, "_bytes"))));
			table_row(tb, rank[i].name, id,
				  human(rate(q, QUEUE_KEY(sent, "_pkts")), b[0], 16),
				  human(8 * rate(q, QUEUE_KEY(sent, "_bytes")), b[1], 16),
				  b[2], b[3], human(drops, b[4], 16));
		}
	}
	table_print(tb);
	free(rank);
}

static const char TOP_USAGE[] =
	"usage: slicectl top [--interval SECONDS] [SLICE...]\n"
	"  the ports', slices' and queues' rates, refreshed every SECONDS (0.1 to 3600, default "
	"1);\n"
	"  the given slices only, else all; q or Ctrl-C quits";

int
cmd_top(struct cli *cli, int argc, char **argv)
{
	struct top t = {.argc = argc, .argv = argv, .interval = 1.0};

	for (int i = 0; i < argc; i++)
		if (cli_is_help(argv[i]))
			return cli_help(TOP_USAGE);
	if (argc >= 2 && strcmp(argv[0], "--interval") == 0) {
		t.interval = strtod(argv[1], NULL);
		t.argc -= 2;
		t.argv += 2;
	}
	if (!(t.interval >= 0.1 && t.interval <= 3600))
		return cli_usage("%s", TOP_USAGE);
	return sample(cli, get_all, &t, t.interval, 0, show_top, true);
}
