/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sp-bench-lookup: for each ClassBench rule set, the slicepath lookup
 * engine and rte_acl built from the same filters, every answer checked,
 * lookups timed on one core and, with -u, lookups on a second thread while
 * this one writes. docs/lookup.md ("Benchmark") explains the figures.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_vect.h>

#include "bench.h"

#define MAX_SETS 64

struct options {
	const char *rules[MAX_SETS];
	size_t nb_sets;
	const char *trace;
	size_t nb_keys;
	uint16_t nb_slices;
	uint16_t burst;
	bool rounds;
	double seconds;
	bool updates;
	bool profile; /* -P */
	bool ipv6;    /* -6 */
	struct update_opts how; /* -w, -W */
	uint32_t adversary; /* -A */
	bool sp, acl;
	const char *csv;
};

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: sp-bench-lookup [EAL options] -- -r RULES [-r RULES]... [-t TRACE]\n"
		"           [-n KEYS] [-S SLICES [-R]] [-b KEYS] [-d SECONDS] [-u [-w RATE]]\n"
		"           [-W] [-A FILTERS] [-P] [-6] [--engine sp|acl|both]\n"
		"           [--csv FILE]\n"
		"  -r RULES   a ClassBench rule file (repeatable)\n"
		"  -t TRACE   its trace (one -r only); without, KEYS random keys (-n, default "
		"100000)\n"
		"  -S SLICES  the rules dealt to SLICES tables taking turns, a burst each "
		"(default 1)\n"
		"  -R         a lookup call a round of every slice's burst (sp's, as the NPE calls;\n"
		"             rte_acl's still a call a slice)\n"
		"  -b KEYS    keys a burst (default %d, at most %d)\n"
		"  -d SECONDS time per measurement (default 3)\n"
		"  -u         also measure lookups on a second thread while this one writes\n"
		"  -w RATE    with -u, RATE writes a second at most (default: as fast as they go)\n"
		"  -W         with -u, write only the widest tenth of the first tenth of the filters\n"
		"             (the worst case)\n"
		"  -A FILTERS with -u, sp only: the writes rewrite an adversary slice of FILTERS\n"
		"             random-mask filters, not the set's (cost isolation)\n"
		"  -P         profile: a pass over every key counted by the CPU (and callgrind,\n"
		"             under valgrind), and what sp's walks read\n"
		"  -6         the sets in IPv6 (a.b.c.d/n as 2001:db8:ab:cd::/(32 + n)), 37-byte\n"
		"             keys, the engine's 40-byte build (--engine sp)\n"
		"  --engine   the slicepath engine, rte_acl (ternary and native ranges) or both\n"
		"  --csv FILE one line per set and engine\n",
		BENCH_BURST, BENCH_BURST);
}

/* A whole number from 1 to max in text: 0, or -1. */
static int
count_of(const char *text, unsigned long max, unsigned long *v)
{
	char *end;

	*v = strtoul(text, &end, 10);
	return *end != '\0' || *v == 0 || *v > max ? -1 : 0;
}

/* A number above 0 in text: 0, or -1. */
static int
positive_of(const char *text, double *v)
{
	char *end;

	*v = strtod(text, &end);
	return *end != '\0' || !(*v > 0) ? -1 : 0;
}

static int
parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"engine", required_argument, NULL, 'e'},
		{"csv", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	unsigned long v;
	int opt, rc = 0;

	*o = (struct options){.nb_keys = 100000, .nb_slices = 1, .burst = BENCH_BURST,
			      .seconds = 3, .sp = true, .acl = true};
	optind = 1;
	while (rc == 0 &&
	       (opt = getopt_long(argc, argv, "r:t:n:S:Rb:d:uw:WA:P6h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (o->nb_sets == MAX_SETS) {
				fprintf(stderr, "sp-bench-lookup: at most %d rule files\n", MAX_SETS);
				return -1;
			}
			o->rules[o->nb_sets++] = optarg;
			break;
		case 't':
			o->trace = optarg;
			break;
		case 'n':
			rc = count_of(optarg, SIZE_MAX, &v);
			o->nb_keys = v;
			break;
		case 'S':
			rc = count_of(optarg, SP_MAX_SLICES, &v);
			o->nb_slices = (uint16_t)v;
			break;
		case 'R':
			o->rounds = true;
			break;
		case 'b':
			rc = count_of(optarg, BENCH_BURST, &v);
			o->burst = (uint16_t)v;
			break;
		case 'd':
			rc = positive_of(optarg, &o->seconds);
			break;
		case 'u':
			o->updates = true;
			break;
		case 'A':
			rc = count_of(optarg, BENCH_MAX_FILTERS, &v);
			o->adversary = (uint32_t)v;
			break;
		case 'w':
			rc = positive_of(optarg, &o->how.rate);
			break;
		case 'W':
			o->how.wide = true;
			break;
		case 'P':
			o->profile = true;
			break;
		case '6':
			o->ipv6 = true;
			break;
		case 'e':
			o->sp = strcmp(optarg, "sp") == 0 || strcmp(optarg, "both") == 0;
			o->acl = strcmp(optarg, "acl") == 0 || strcmp(optarg, "both") == 0;
			if (!o->sp && !o->acl)
				return -1;
			break;
		case 'c':
			o->csv = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	if (rc != 0)
		return -1;
	/* A trace belongs to one rule set. */
	if (optind != argc || o->nb_sets == 0 || (o->trace != NULL && o->nb_sets != 1))
		return -1;
	/* A round is of several slices' bursts. */
	if (o->rounds && o->nb_slices < 2)
		return -1;
	/* rte_acl has no slice to rewrite alone: a write rebuilds the set's. */
	if (o->adversary > 0 && (!o->updates || o->acl))
		return -1;
	/* rte_acl's engines here take the ipv4 option's key. */
	if (o->ipv6 && o->acl)
		return -1;
	return 0;
}

/* Build and verify one engine on s into e; r gets the figures. 0, or -1 after a message. */
static int
prepare_engine(const struct engine_ops *ops, const struct bench_set *s, struct rte_rcu_qsbr *qsbr,
	       uint32_t adversary, struct engine *e, struct bench_result *r)
{
	int rc;

	*e = (struct engine){.ops = ops, .set = s, .qsbr = qsbr, .adversary = adversary};
	memset(r, 0, sizeof(*r));
	snprintf(r->set, sizeof(r->set), "%s", s->name);
	snprintf(r->engine, sizeof(r->engine), "%s", ops->name);
	r->filters = s->x.n;
	rc = ops->build(e);
	if (rc != 0) {
		fprintf(stderr, "sp-bench-lookup: %s on %s: build failed: %s\n", ops->name, s->name,
			strerror(-rc));
		ops->free(e);
		return -1;
	}
	snprintf(r->alg, sizeof(r->alg), "%s", e->alg);
	r->entries = e->entries;
	r->build_s = e->build_s;
	r->mem_bytes = e->mem_bytes;
	printf("  %s: %u entries, built in %.4f s, %.2f MB (%.0f B/entry)%s%s\n", ops->name,
	       e->entries, e->build_s, e->mem_bytes / 1e6,
	       e->entries != 0 ? (double)e->mem_bytes / e->entries : 0,
	       e->alg[0] != '\0' ? ", classify " : "", e->alg);
	r->verified = s->nb_keys;
	r->mismatches = measure_verify(e);
	printf("  %s: %zu of %zu keys verified, %zu mismatches\n", ops->name, r->verified,
	       s->nb_keys, r->mismatches);
	return r->mismatches != 0 ? -1 : 0;
}

/*
 * Every engine on s: built and verified side by side, lookups timed in
 * alternated rounds, then (with -u) updates one engine at a time. Returns
 * the results written to r; *failed is set on any failure.
 */
static size_t
run_engines(const struct engine_ops *const *ops, size_t nb, const struct bench_set *s,
	    struct rte_rcu_qsbr *qsbr, const struct options *o, struct bench_result *r,
	    bool *failed)
{
	struct engine e[MAX_ENGINES], *built[MAX_ENGINES];
	double ns[MAX_ENGINES], p99[MAX_ENGINES];
	size_t n = 0, j;

	for (j = 0; j < nb; j++) {
		if (prepare_engine(ops[j], s, qsbr, o->adversary, &e[n], &r[n]) != 0) {
			*failed = true;
			if (r[n].entries == 0)
				continue;
		}
		built[n] = &e[n];
		n++;
	}
	measure_lookups(built, n, o->seconds, ns, p99);
	for (j = 0; j < n; j++) {
		r[j].ns_per_lookup = ns[j];
		r[j].p99_burst_ns = p99[j];
		printf("  %s: %.1f ns/lookup, %.3g Mlookups/s, a call %.0f ns at the 99th "
		       "percentile (calls of %d keys, %g s, rounds alternated with the other "
		       "engines)\n",
		       e[j].ops->name, ns[j], 1e3 / ns[j], p99[j], s->call, o->seconds);
	}
	for (j = 0; j < n && o->profile; j++)
		profile_engine(&e[j]);
	for (j = 0; j < n; j++) {
		if (o->updates && e[j].ops->write != NULL) {
			if (measure_updates(&e[j], o->seconds, &o->how, &r[j]) != 0)
				*failed = true;
			else
				printf("  %s: reader %.3g Mlookups/s idle; %.1f writes/s, reader %.3g "
				       "Mlookups/s meanwhile (%.0f%% of idle)\n",
				       e[j].ops->name, r[j].idle_lookups_per_s / 1e6, r[j].writes_per_s,
				       r[j].busy_lookups_per_s / 1e6,
				       100 * r[j].busy_lookups_per_s / r[j].idle_lookups_per_s);
		}
		e[j].ops->free(&e[j]);
	}
	return n;
}

int
main(int argc, char **argv)
{
	const struct engine_ops *engines[MAX_ENGINES];
	static struct bench_result results[MAX_SETS * MAX_ENGINES];
	struct rte_rcu_qsbr *qsbr;
	struct bench_set set;
	struct options o;
	size_t nb_engines = 0, nb_results = 0, i, first;
	bool failed = false;
	int ret, status = 0;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "sp-bench-lookup: EAL initialisation failed\n");
		return 1;
	}
	if (parse_args(argc - ret, argv + ret, &o) != 0) {
		usage(stderr);
		rte_eal_cleanup();
		return 2;
	}
	if (o.sp)
		engines[nb_engines++] = o.ipv6 ? &sp_wide_engine_ops : &sp_engine_ops;
	if (o.acl) {
		engines[nb_engines++] = &acl_engine_ops;
		engines[nb_engines++] = &acl_ranges_engine_ops;
	}
	/* One reader thread: the one measure_updates() starts. */
	qsbr = rte_zmalloc(NULL, rte_rcu_qsbr_get_memsize(1), RTE_CACHE_LINE_SIZE);
	if (qsbr == NULL || rte_rcu_qsbr_init(qsbr, 1) != 0) {
		fprintf(stderr, "sp-bench-lookup: no memory for the RCU state\n");
		rte_eal_cleanup();
		return 1;
	}
	printf("sp-bench-lookup: %u lcores, SIMD up to %u bits, %g s per measurement%s\n",
	       rte_lcore_count(), rte_vect_get_max_simd_bitwidth(), o.seconds,
	       o.updates ? ", updates under lookups" : "");

	for (i = 0; i < o.nb_sets; i++) {
		if (bench_set_load(&set, o.rules[i], o.trace, o.nb_keys, o.nb_slices, o.burst,
				   o.rounds) != 0) {
			bench_set_free(&set);
			status = 1;
			continue;
		}
		if (o.ipv6)
			bench_set_to_ipv6(&set);
		first = nb_results;
		nb_results += run_engines(engines, nb_engines, &set, qsbr, &o, &results[first],
					  &failed);
		report_set(stdout, &set, &results[first], nb_results - first);
		fflush(stdout);
		bench_set_free(&set);
	}
	if (failed)
		status = 1;
	report_summary(stdout, results, nb_results);
	if (o.csv != NULL && report_csv(o.csv, results, nb_results) != 0)
		status = 1;
	rte_free(qsbr);
	rte_eal_cleanup();
	return status;
}
