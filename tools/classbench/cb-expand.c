/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sp-cb-expand: how many ternary filters ClassBench rule sets take once
 * their port ranges are expanded into prefixes, as a Markdown table; or,
 * with -f, the filters themselves, for configs and scripts.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classbench.h"

static void
usage(FILE *out)
{
	fprintf(out, "usage: sp-cb-expand RULES...\n"
		     "       sp-cb-expand -t TRACE RULES\n"
		     "       sp-cb-expand -f [-m MAX] RULES\n"
		     "Print rules, ternary filters and filters per rule for each ClassBench\n"
		     "rule file; with -t, also the packets of TRACE, whose MATCH_IDs must\n"
		     "name rules of RULES. With -f, print the filters of RULES instead, one\n"
		     "a line in position order: RULE KEY MASK (rule index from 0, key and\n"
		     "mask as 28 hex digits in the ipv4 code option's layout), the first\n"
		     "whole rules that fit in MAX filters (default: all).\n");
}

/* Packets of trace, all naming one of nb_rules rules; -1 with a message if not. */
static long
count_packets(const char *trace, size_t nb_rules)
{
	struct cb_packet *p;
	char err[CB_ERR_LEN];
	size_t n, i;

	if (cb_trace_load(trace, &p, &n, err) != 0) {
		fprintf(stderr, "sp-cb-expand: %s\n", err);
		return -1;
	}
	for (i = 0; i < n && p[i].match_id <= nb_rules; i++)
		;
	if (i < n)
		fprintf(stderr,
			"sp-cb-expand: %s: packet %zu has MATCH_ID %u, but there are %zu rules\n",
			trace, i + 1, p[i].match_id, nb_rules);
	free(p);
	return i < n ? -1 : (long)n;
}

/* The rules of file rules, expanded into x; *n: how many rules. -1 after a message on error. */
static int
load_expanded(const char *rules, struct cb_expansion *x, size_t *n)
{
	struct cb_rule *r;
	char err[CB_ERR_LEN];
	int rc;

	if (cb_rules_load(rules, &r, n, err) != 0) {
		fprintf(stderr, "sp-cb-expand: %s\n", err);
		return -1;
	}
	rc = cb_expand(r, *n, x);
	free(r);
	if (rc != 0) {
		fprintf(stderr, "sp-cb-expand: %s: cannot expand: %s\n", rules, strerror(-rc));
		return -1;
	}
	return 0;
}

/* One table row for rules (and trace, if not NULL); -1 after a message on error. */
static int
row(const char *rules, const char *trace)
{
	struct cb_expansion x;
	size_t n;
	long packets = 0;

	if (load_expanded(rules, &x, &n) != 0)
		return -1;
	if (trace != NULL)
		packets = count_packets(trace, n);
	if (packets >= 0) {
		printf("| %s | %zu | %zu | %.2f |", rules, n, x.n, cb_expansion_factor(&x));
		if (trace != NULL)
			printf(" %ld |", packets);
		printf("\n");
	}
	cb_expansion_free(&x);
	return packets < 0 ? -1 : 0;
}

static void
print_hex(const uint8_t *b)
{
	for (unsigned int i = 0; i < SP_KEY_BYTES; i++)
		printf("%02x", b[i]);
}

/* The filters of rules, at most max (whole rules); -1 after a message on error. */
static int
print_filters(const char *rules, size_t max)
{
	struct cb_expansion x;
	size_t n, i;

	if (load_expanded(rules, &x, &n) != 0)
		return -1;
	cb_expansion_keep(&x, max);
	for (i = 0; i < x.n; i++) {
		printf("%u ", x.rule[i]);
		print_hex(x.filters[i].key.b);
		putchar(' ');
		print_hex(x.filters[i].mask.b);
		putchar('\n');
	}
	cb_expansion_free(&x);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *trace = NULL;
	bool filters = false;
	size_t max = SIZE_MAX;
	char *end;
	int opt, i, rc = 0;

	while ((opt = getopt(argc, argv, "hft:m:")) != -1) {
		switch (opt) {
		case 't':
			trace = optarg;
			break;
		case 'f':
			filters = true;
			break;
		case 'm':
			max = strtoul(optarg, &end, 10);
			if (*optarg == '\0' || *end != '\0' || max == 0) {
				fprintf(stderr, "sp-cb-expand: -m %s: give a number of filters, 1 or more\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* One trace belongs to one rule set; filters come from one. */
	if (optind == argc || ((trace != NULL || filters) && argc - optind != 1) ||
	    (trace != NULL && filters)) {
		usage(stderr);
		return 2;
	}
	if (filters)
		return print_filters(argv[optind], max) == 0 ? 0 : 1;
	printf("| set | rules | filters | factor |%s\n", trace != NULL ? " packets |" : "");
	printf("| --- | ---: | ---: | ---: |%s\n", trace != NULL ? " ---: |" : "");
	for (i = optind; i < argc; i++)
		if (row(argv[i], trace) != 0)
			rc = 1;
	return rc;
}
