/* SPDX-License-Identifier: BSD-3-Clause */
/* stats and mem: counters, and the slice's memory block. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/latency.h"
#include "common/text.h"

static const char *
num(json_t *o, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(o, key)));
	return buf;
}

/* The non-zero drop and exception reasons, a row each (REASON PKTS), or "reasons: none". */
static void
print_reasons(json_t *reasons)
{
	struct table *t = NULL;
	const char *name;
	json_t *v;

	json_object_foreach(reasons, name, v) {
		char pkts[24];

		if (json_integer_value(v) == 0)
			continue;
		if (t == NULL)
			t = table_new(2, "REASON", "PKTS");
		table_row(t, name, num(reasons, name, pkts, sizeof(pkts)));
	}
	if (t != NULL)
		table_print(t);
	else
		printf("reasons: none\n");
}

static void
print_slice(json_t *s)
{
	static const char *const counters[] = {SP_SLICE_COUNTERS(SP_COUNTER_NAME)};
	struct table *t = table_new(3, "COUNTER", "PKTS", "BYTES");

	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		char key[32], pkts[24], bytes[24];

		snprintf(key, sizeof(key), "%s_pkts", counters[i]);
		num(s, key, pkts, sizeof(pkts));
		snprintf(key, sizeof(key), "%s_bytes", counters[i]);
		table_row(t, counters[i], pkts, num(s, key, bytes, sizeof(bytes)));
	}
	table_print(t);
#define PRINT_COUNT(name, what)                                                                    \
	printf(#name ": %" JSON_INTEGER_FORMAT "\n", json_integer_value(json_object_get(s, #name)));
	SP_SLICE_COUNTS(PRINT_COUNT)
	print_reasons(json_object_get(s, "reasons"));
}

void
cli_print_residence(double p50_ns, double p99_ns, double p999_ns, double max_ns, double count)
{
	printf("residence: p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us (%.0f frames "
	       "sampled)\n", p50_ns / 1e3, p99_ns / 1e3, p999_ns / 1e3, max_ns / 1e3, count);
}

static void
print_residence(json_t *r)
{
	struct sp_latency_summary s;

	sp_latency_summary_from_json(r, &s);
	cli_print_residence((double)s.p50, (double)s.p99, (double)s.p999, (double)s.max,
			    (double)s.count);
}

static void
print_node(json_t *r)
{
	struct table *t = table_new(9, "IFACE", PORT_KEY(rx, "_pkts"), PORT_KEY(rx, "_bytes"),
				    PORT_KEY(tx, "_pkts"), PORT_KEY(tx, "_bytes"),
				    PORT_KEY(tx_drop, "_pkts"), PORT_KEY(tx_drop, "_bytes"),
				    PORT_KEY(to_host, "_pkts"), PORT_KEY(from_host, "_pkts"));
	const char *name;
	json_t *o;

	json_object_foreach(json_object_get(r, "ports"), name, o) {
		char b[8][24];

		table_row(t, name, num(o, PORT_KEY(rx, "_pkts"), b[0], 24),
			  num(o, PORT_KEY(rx, "_bytes"), b[1], 24),
			  num(o, PORT_KEY(tx, "_pkts"), b[2], 24),
			  num(o, PORT_KEY(tx, "_bytes"), b[3], 24),
			  num(o, PORT_KEY(tx_drop, "_pkts"), b[4], 24),
			  num(o, PORT_KEY(tx_drop, "_bytes"), b[5], 24),
			  num(o, PORT_KEY(to_host, "_pkts"), b[6], 24),
			  num(o, PORT_KEY(from_host, "_pkts"), b[7], 24));
	}
	table_print(t);
	print_reasons(json_object_get(r, "drops"));
	print_residence(json_object_get(r, SP_STATS_RESIDENCE));
	t = table_new(5, "SLICE", SLICE_KEY(rx, "_pkts"), SLICE_KEY(fwd, "_pkts"),
		      SLICE_KEY(exception, "_pkts"), SLICE_KEY(drop, "_pkts"));
	json_object_foreach(json_object_get(r, "slices"), name, o) {
		char b[4][24];

		table_row(t, name, num(o, SLICE_KEY(rx, "_pkts"), b[0], 24),
			  num(o, SLICE_KEY(fwd, "_pkts"), b[1], 24),
			  num(o, SLICE_KEY(exception, "_pkts"), b[2], 24),
			  num(o, SLICE_KEY(drop, "_pkts"), b[3], 24));
	}
	table_print(t);
}

/* Take "--interval N" and "--count M" out of argv; 0 if absent; -1 if malformed. */
static int
watch_options(int *argc, char **argv, double *interval, unsigned long *count)
{
	int kept = 0;

	*interval = 0;
	*count = 0;
	for (int i = 0; i < *argc; i++) {
		char *end;

		if (strcmp(argv[i], "--interval") == 0 && i + 1 < *argc) {
			*interval = strtod(argv[++i], &end);
			if (*end != '\0' || !(*interval >= 0.1 && *interval <= 3600))
				return -1;
		} else if (strcmp(argv[i], "--count") == 0 && i + 1 < *argc) {
			*count = strtoul(argv[++i], &end, 10);
			if (*end != '\0' || *count == 0)
				return -1;
		} else {
			argv[kept++] = argv[i];
		}
	}
	*argc = kept;
	if (*count > 0 && *interval == 0)
		*interval = 1;
	return 0;
}

static const char STATS_USAGE[] =
	"usage: slicectl stats [SLICE] [--interval SECONDS] [--count N] | stats queues SLICE | "
	"stats endpoints SLICE | stats missed SLICE\n"
	"  counters of the node, or of SLICE; with --interval, their rates every SECONDS (0.1 "
	"to 3600),\n"
	"  N times (default: until Ctrl-C); -j: one line of JSON a sample;\n"
	"  missed: SLICE's last missed keys, newest first, as filter add takes them";

/* Two words where a slice's name would be: a mistyped command, the one meant named. */
static int
unknown_command(const char *word)
{
	static const char *const commands[] = {"queues", "endpoints", "missed"};
	const char *close = sp_closest(word, commands, sizeof(commands) / sizeof(commands[0]));

	if (close == NULL)
		return cli_usage("%s", STATS_USAGE);
	return cli_usage("stats has no command \"%s\" (did you mean \"%s\"?)\n%s", word, close,
			 STATS_USAGE);
}

/*
 * stats [SLICE] [--interval N] [--count M] | stats queues SLICE | stats endpoints SLICE |
 * stats missed SLICE
 */
int
cmd_stats(struct cli *cli, int argc, char **argv)
{
	json_t *p = NULL, *r;
	unsigned long count;
	double interval;
	int status;

	if (argc >= 1 && strcmp(argv[0], "queues") == 0)
		return cmd_queue(cli, argc, (char *[]){"list", argc > 1 ? argv[1] : "", NULL});
	if (argc >= 1 && strcmp(argv[0], "endpoints") == 0)
		return cmd_endpoint(cli, argc, (char *[]){"list", argc > 1 ? argv[1] : "", NULL});
	if (argc >= 1 && strcmp(argv[0], "missed") == 0)
		return cmd_stats_missed(cli, argc - 1, argv + 1);
	if (argc == 1 && cli_is_help(argv[0]))
		return cli_help(STATS_USAGE);
	if (watch_options(&argc, argv, &interval, &count) < 0)
		return cli_usage("%s", STATS_USAGE);
	if (argc > 1)
		return unknown_command(argv[0]);
	if (interval > 0)
		return cmd_stats_watch(cli, argc == 1 ? argv[0] : NULL, interval, count);
	if (argc == 1)
		p = json_pack("{s:o}", "slice", cli_slice(argv[0]));
	r = cli_call(cli, SP_M_STATS_GET, p, &status);
	if (r == NULL)
		return status;
	if (cli->json)
		cli_print_json(r);
	else if (argc == 1)
		print_slice(json_object_get(r, "slice"));
	else
		print_node(r);
	json_decref(r);
	return 0;
}

/* Bytes as "offset: 16 hex bytes" lines. */
static void
print_hex(uint64_t offset, const char *hex)
{
	size_t len = strlen(hex) / 2;

	for (size_t i = 0; i < len; i += 16) {
		printf("%08" PRIx64 ":", offset + i);
		for (size_t j = i; j < i + 16 && j < len; j++)
			printf(" %.2s", hex + 2 * j);
		printf("\n");
	}
}

/* mem read SLICE OFFSET LENGTH | mem write SLICE OFFSET HEX */
int
cmd_mem(struct cli *cli, int argc, char **argv)
{
	bool reading = argc == 4 && strcmp(argv[0], "read") == 0;
	uint64_t offset;
	json_t *p, *r;
	int status;

	if (!reading && !(argc == 4 && strcmp(argv[0], "write") == 0))
		return cli_usage("usage: slicectl mem read SLICE OFFSET LENGTH | mem write SLICE "
				 "OFFSET HEX");
	if (cli_uint("offset", argv[2], UINT32_MAX, &offset) != 0)
		return EXIT_USAGE;
	p = json_pack("{s:o, s:I}", "slice", cli_slice(argv[1]), "offset", (json_int_t)offset);
	if (reading && cli_put_uint(p, "length", argv[3], SP_MAX_MEM_IO) != 0) {
		json_decref(p);
		return EXIT_USAGE;
	}
	if (!reading)
		json_object_set_new(p, "data", json_string(argv[3]));
	r = cli_call(cli, reading ? SP_M_MEM_READ : SP_M_MEM_WRITE, p, &status);
	if (r == NULL)
		return status;
	if (cli->json)
		cli_print_json(r);
	else if (reading)
		print_hex(offset, json_string_value(json_object_get(r, "data")));
	else
		printf("%" JSON_INTEGER_FORMAT " bytes written at offset %" PRIu64 "\n",
		       json_integer_value(json_object_get(r, "written")), offset);
	json_decref(r);
	return 0;
}

/* codeopt list: the code options a slice may name, one a line. */
static int
codeopt_list(struct cli *cli)
{
	int status;
	json_t *r = cli_call_for_table(cli, SP_M_CODEOPT_LIST, NULL, &status), *name;
	size_t i;

	if (r == NULL)
		return status;
	json_array_foreach(json_object_get(r, "codeopts"), i, name)
		printf("%s\n", json_string_value(name));
	json_decref(r);
	return 0;
}

/* codeopt list, or codeopt load SLICE FILE: the file's bytes to the slice's code option. */
int
cmd_codeopt(struct cli *cli, int argc, char **argv)
{
	uint8_t *data;
	char *text;
	size_t n;
	FILE *f;
	int rc;

	if (argc == 1 && strcmp(argv[0], "list") == 0)
		return codeopt_list(cli);
	if (argc != 3 || strcmp(argv[0], "load") != 0)
		return cli_usage("usage: slicectl codeopt list | codeopt load SLICE FILE");
	f = fopen(argv[2], "rb");
	if (f == NULL) {
		fprintf(stderr, "slicectl: cannot read %s: %s\n", argv[2], strerror(errno));
		return EXIT_USAGE;
	}
	data = malloc(SP_MAX_CODEOPT_DATA + 1);
	n = data != NULL ? fread(data, 1, SP_MAX_CODEOPT_DATA + 1, f) : 0;
	fclose(f);
	if (data == NULL || n > SP_MAX_CODEOPT_DATA) {
		fprintf(stderr, "slicectl: %s is over %u bytes\n", argv[2], SP_MAX_CODEOPT_DATA);
		free(data);
		return EXIT_USAGE;
	}
	text = malloc(2 * n + 1);
	if (text != NULL)
		sp_format_hex(text, data, n);
	free(data);
	if (text == NULL) {
		fprintf(stderr, "slicectl: out of memory\n");
		return EXIT_USAGE;
	}
	rc = cli_call_and_say(cli, SP_M_CODEOPT_LOAD,
			      json_pack("{s:o, s:s}", "slice", cli_slice(argv[1]), "data", text),
			      "loaded");
	free(text);
	return rc;
}
