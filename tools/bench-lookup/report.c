/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The results as Markdown tables (one per set, then a summary) and as CSV.
 * A figure that was not measured is "-" in the tables and empty in CSV.
 */
#include "bench.h"

#include <errno.h>
#include <string.h>

#define CELL 32

static double
bytes_per_entry(const struct bench_result *r)
{
	return r->entries != 0 ? (double)r->mem_bytes / r->entries : 0;
}

static double
mlookups(const struct bench_result *r)
{
	return r->ns_per_lookup > 0 ? 1e3 / r->ns_per_lookup : 0;
}

/* The reader's rate while writing, in % of its rate without. */
static double
busy_pct(const struct bench_result *r)
{
	return r->idle_lookups_per_s > 0 ? 100 * r->busy_lookups_per_s / r->idle_lookups_per_s : 0;
}

/* An update figure: fmt applied to v, or none if r has no update figures. */
static const char *
upd(char buf[CELL], const struct bench_result *r, const char *none, const char *fmt, double v)
{
	if (!r->updated)
		return none;
	snprintf(buf, CELL, fmt, v);
	return buf;
}

void
report_set(FILE *out, const struct bench_set *s, const struct bench_result *r, size_t n)
{
	char c[8][CELL];
	size_t i;

	fprintf(out, "\n%s: %zu filters of %zu rules in %u slice(s), %zu %s keys\n\n", s->name,
		s->x.n, s->x.nb_rules, s->nb_slices, s->nb_keys, s->from_trace ? "trace" : "random");
	fprintf(out, "| engine | alg | entries | build s | memory MB | B/entry | verified | "
		     "mismatches | ns/lookup | Mlookups/s | p99 burst ns | writes/s | "
		     "write p99 us | write max us | thread held max us | machine gap max us | "
		     "reader Mlookups/s | while writing | %% of idle |\n");
	fprintf(out, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
		     "---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (i = 0; i < n; i++)
		fprintf(out,
			"| %s | %s | %u | %.4f | %.2f | %.0f | %zu | %zu | %.1f | %.3g | %.0f | %s | "
			"%s | %s | %s | %s | %s | %s | %s |\n",
			r[i].engine, r[i].alg[0] != '\0' ? r[i].alg : "-", r[i].entries,
			r[i].build_s, r[i].mem_bytes / 1e6, bytes_per_entry(&r[i]), r[i].verified,
			r[i].mismatches, r[i].ns_per_lookup, mlookups(&r[i]), r[i].p99_burst_ns,
			upd(c[0], &r[i], "-", "%.1f", r[i].writes_per_s),
			upd(c[4], &r[i], "-", "%.0f", r[i].write_p99_us),
			upd(c[5], &r[i], "-", "%.0f", r[i].write_max_us),
			upd(c[6], &r[i], "-", "%.0f", r[i].held_max_us),
			upd(c[7], &r[i], "-", "%.0f", r[i].gap_max_us),
			upd(c[1], &r[i], "-", "%.3g", r[i].idle_lookups_per_s / 1e6),
			upd(c[2], &r[i], "-", "%.3g", r[i].busy_lookups_per_s / 1e6),
			upd(c[3], &r[i], "-", "%.0f%%", busy_pct(&r[i])));
}

/* The acl row of r's set, or NULL. */
static const struct bench_result *
acl_of(const struct bench_result *r, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(r[i].set, set) == 0 && strcmp(r[i].engine, acl_engine_ops.name) == 0)
			return &r[i];
	return NULL;
}

void
report_summary(FILE *out, const struct bench_result *r, size_t n)
{
	const struct bench_result *acl;
	char c[5][CELL];
	size_t i;

	fprintf(out, "\nSummary\n\n| set | filters | engine | ns/lookup | Mlookups/s | "
		     "p99 burst ns | B/entry | build s | writes/s | write max us | thread held max "
		     "us | machine gap max us | lookups while writing (%% of idle) |\n");
	fprintf(out, "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
		     "---: | ---: | ---: |\n");
	for (i = 0; i < n; i++)
		fprintf(out, "| %s | %zu | %s | %.1f | %.3g | %.0f | %.0f | %.4f | %s | %s | %s | "
			"%s | %s |\n",
			r[i].set, r[i].filters, r[i].engine, r[i].ns_per_lookup, mlookups(&r[i]),
			r[i].p99_burst_ns,
			bytes_per_entry(&r[i]), r[i].build_s,
			upd(c[0], &r[i], "-", "%.1f", r[i].writes_per_s),
			upd(c[2], &r[i], "-", "%.0f", r[i].write_max_us),
			upd(c[3], &r[i], "-", "%.0f", r[i].held_max_us),
			upd(c[4], &r[i], "-", "%.0f", r[i].gap_max_us),
			upd(c[1], &r[i], "-", "%.0f%%", busy_pct(&r[i])));

	fprintf(out, "\n| set | sp/acl ns/lookup | sp/acl B/entry |\n| --- | ---: | ---: |\n");
	for (i = 0; i < n; i++) {
		if (strcmp(r[i].engine, sp_engine_ops.name) != 0)
			continue;
		acl = acl_of(r, n, r[i].set);
		if (acl == NULL || acl->ns_per_lookup <= 0 || bytes_per_entry(acl) <= 0)
			continue;
		fprintf(out, "| %s | %.2f | %.2f |\n", r[i].set,
			r[i].ns_per_lookup / acl->ns_per_lookup,
			bytes_per_entry(&r[i]) / bytes_per_entry(acl));
	}
}

int
report_csv(const char *path, const struct bench_result *r, size_t n)
{
	FILE *f = fopen(path, "w");
	char c[8][CELL];
	size_t i;
	int rc;

	if (f == NULL) {
		fprintf(stderr, "sp-bench-lookup: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "set,filters,engine,alg,entries,build_s,mem_bytes,bytes_per_entry,"
		   "verified_keys,mismatches,ns_per_lookup,mlookups_per_s,p99_burst_ns,writes_per_s,"
		   "write_p99_us,write_max_us,held_max_us,gap_max_us,reader_idle_mlookups_per_s,reader_writing_mlookups_per_s,writing_pct_of_idle\n");
	for (i = 0; i < n; i++)
		fprintf(f, "%s,%zu,%s,%s,%u,%.6f,%zu,%.1f,%zu,%zu,%.2f,%.6g,%.0f,%s,%s,%s,%s,%s,%s,%s,%s\n",
			r[i].set, r[i].filters, r[i].engine, r[i].alg, r[i].entries, r[i].build_s,
			r[i].mem_bytes, bytes_per_entry(&r[i]), r[i].verified, r[i].mismatches,
			r[i].ns_per_lookup, mlookups(&r[i]), r[i].p99_burst_ns,
			upd(c[0], &r[i], "", "%.1f", r[i].writes_per_s),
			upd(c[4], &r[i], "", "%.1f", r[i].write_p99_us),
			upd(c[5], &r[i], "", "%.1f", r[i].write_max_us),
			upd(c[6], &r[i], "", "%.1f", r[i].held_max_us),
			upd(c[7], &r[i], "", "%.1f", r[i].gap_max_us),
			upd(c[1], &r[i], "", "%.6g", r[i].idle_lookups_per_s / 1e6),
			upd(c[2], &r[i], "", "%.6g", r[i].busy_lookups_per_s / 1e6),
			upd(c[3], &r[i], "", "%.1f", busy_pct(&r[i])));
	rc = ferror(f) ? -1 : 0;
	if (fclose(f) != 0 || rc != 0) {
		fprintf(stderr, "sp-bench-lookup: %s: write error\n", path);
		return -1;
	}
	return 0;
}
