/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sp-cb-gen: a ClassBench-like rule set and its trace (tools/classbench/
 * generate.c), for the lookup benchmarks and tests on a machine without the
 * public ClassBench data.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classbench.h"

static void
usage(FILE *out)
{
	fprintf(out, "usage: sp-cb-gen [-s SEED] [-p PACKETS] RULES OUT\n"
		     "Write RULES ClassBench-like rules to OUT (the ClassBench filter format,\n"
		     "the last rule a wildcard) and a trace of PACKETS headers (default 10 a\n"
		     "rule) to OUT_trace, each with the 1-based index of its first matching\n"
		     "rule. The same SEED (default 1) makes the same files on every machine.\n");
}

static unsigned long long
number(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0 || *s == '\0' || *end != '\0' || *s == '-') {
		fprintf(stderr, "sp-cb-gen: %s: not a number: '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int
main(int argc, char **argv)
{
	unsigned long long seed = 1, packets = 0, rules;
	struct cb_packet *p;
	struct cb_rule *r;
	char trace[4096];
	int opt, rc;

	while ((opt = getopt(argc, argv, "s:p:h")) != -1) {
		switch (opt) {
		case 's':
			seed = number(optarg, "-s");
			break;
		case 'p':
			packets = number(optarg, "-p");
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	rules = number(argv[optind], "RULES");
	if (rules == 0 || rules > 10000000) {
		fprintf(stderr, "sp-cb-gen: RULES: 1 to 10000000, not %llu\n", rules);
		return 2;
	}
	packets = packets != 0 ? packets : rules * 10;
	r = calloc(rules, sizeof(*r));
	p = calloc(packets, sizeof(*p));
	if (r == NULL || p == NULL) {
		fprintf(stderr, "sp-cb-gen: out of memory\n");
		return 1;
	}
	cb_generate_rules(r, rules, seed);
	cb_generate_trace(r, rules, p, packets, seed);
	snprintf(trace, sizeof(trace), "%s_trace", argv[optind + 1]);
	rc = cb_rules_write(argv[optind + 1], r, rules);
	if (rc != 0)
		fprintf(stderr, "sp-cb-gen: %s: %s\n", argv[optind + 1], strerror(-rc));
	else if ((rc = cb_trace_write(trace, p, packets)) != 0)
		fprintf(stderr, "sp-cb-gen: %s: %s\n", trace, strerror(-rc));
	free(r);
	free(p);
	return rc == 0 ? 0 : 1;
}
