/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ClassBench loader, and the lookup engine against ClassBench traces:
 * every trace packet, looked up in the real engine loaded with the expanded
 * rules, must land on a filter of the rule the trace names. Sets made
 * here (tools/classbench/generate.c, fixed seeds) always run; the public
 * ClassBench data (SP_CLASSBENCH_DIR, set by meson) lives outside the
 * repository and adds its sets where it is present (else "shared sets"
 * says it skipped).
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_common.h>

#include "classbench.h"
#include "sp_test.h"
#include "lookup/lookup.h"

#define BURST 32
#define MAX_SETS 64
#define SLICE 0
#define TRACE_SUFFIX "_trace"

/* One rule file and, for the trace tests, its trace. */
struct set {
	char name[NAME_MAX + 1];
	char rules[PATH_MAX];
	char trace[PATH_MAX];
};

static const char *
data_dir(void)
{
	const char *dir = getenv("SP_CLASSBENCH_DIR");
	struct stat st;

	return dir != NULL && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- files in a temporary directory, for the parser tests ---- */

static char tmp_path[64];

static const char *
write_tmp(const char *text)
{
	int fd;

	strcpy(tmp_path, "/tmp/sp_test_classbench_XXXXXX");
	fd = mkstemp(tmp_path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return tmp_path;
}

static struct cb_rule *
rules_from(const char *text, size_t *n)
{
	struct cb_rule *r = NULL;
	char err[CB_ERR_LEN] = "";
	int rc = cb_rules_load(write_tmp(text), &r, n, err);

	unlink(tmp_path);
	if (rc != 0)
		fail_msg("%s", err);
	return r;
}

/* The error for a one-line rule (or trace) file must name the file, line 1, and contain want. */
static void
assert_refused(bool trace, const char *text, const char *want)
{
	char err[CB_ERR_LEN] = "", where[128];
	struct cb_packet *p;
	struct cb_rule *r;
	size_t n;
	int rc;

	write_tmp(text);
	rc = trace ? cb_trace_load(tmp_path, &p, &n, err) : cb_rules_load(tmp_path, &r, &n, err);
	unlink(tmp_path);
	assert_int_equal(rc, -EINVAL);
	snprintf(where, sizeof(where), "%s:1: ", tmp_path);
	if (strncmp(err, where, strlen(where)) != 0 || strstr(err, want) == NULL)
		fail_msg("for '%s': got '%s', want '%s...%s'", text, err, where, want);
}

static void
test_rules_both_formats(void **state)
{
	size_t n;
	struct cb_rule *r = rules_from(
		"@15.1.2.3/8 0.0.0.0/0 0 : 65535 1024 : 65535 0x06/0xFF\n"
		"\n"
		"@54.215.230.107/32\t238.108.233.229/31\t0 : 65535\t5555 : 5555\t0x00/0x00\t"
		"0x1000/0x1000\t\n",
		&n);

	(void)state;
	assert_int_equal(n, 2);
	assert_int_equal(r[0].src, 0x0f000000); /* host bits cleared */
	assert_int_equal(r[0].src_len, 8);
	assert_int_equal(r[0].dst, 0);
	assert_int_equal(r[0].dst_len, 0);
	assert_int_equal(r[0].sport_lo, 0);
	assert_int_equal(r[0].sport_hi, 65535);
	assert_int_equal(r[0].dport_lo, 1024);
	assert_int_equal(r[0].dport_hi, 65535);
	assert_int_equal(r[0].proto, 6);
	assert_int_equal(r[0].proto_mask, 0xff);
	assert_int_equal(r[1].src, (54u << 24) | (215 << 16) | (230 << 8) | 107);
	assert_int_equal(r[1].dst, (238u << 24) | (108 << 16) | (233 << 8) | 228);
	assert_int_equal(r[1].dst_len, 31);
	assert_int_equal(r[1].dport_lo, 5555);
	assert_int_equal(r[1].dport_hi, 5555);
	assert_int_equal(r[1].proto_mask, 0);
	free(r);
}

static void
test_rules_refused(void **state)
{
	(void)state;
	assert_refused(false, "@1.2.3.4/32 5.6.7.8/32 0 : 65535 80 : 80\n", "want 9 or 10");
	assert_refused(false, "1.2.3.4/32 5.6.7.8/32 0 : 65535 80 : 80 0x06/0xFF\n", "'@'");
	assert_refused(false, "@1.2.3.4/33 5.6.7.8/32 0 : 65535 80 : 80 0x06/0xFF\n",
		       "source prefix '1.2.3.4/33'");
	assert_refused(false, "@1.2.3.4/32 5.6.7/32 0 : 65535 80 : 80 0x06/0xFF\n",
		       "destination prefix");
	assert_refused(false, "@1.2.3.4/32 5.6.7.8/32 9 : 8 80 : 80 0x06/0xFF\n",
		       "source port range '9 : 8'");
	assert_refused(false, "@1.2.3.4/32 5.6.7.8/32 0 : 65535 80 - 80 0x06/0xFF\n",
		       "destination port range");
	assert_refused(false, "@1.2.3.4/32 5.6.7.8/32 0 : 65536 80 : 80 0x06/0xFF\n",
		       "source port range");
	assert_refused(false, "@1.2.3.4/32 5.6.7.8/32 0 : 65535 80 : 80 0x106/0xFF\n",
		       "protocol '0x106/0xFF'");
	assert_refused(false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t0x1000\t\n",
		       "TCP flags '0x1000'");
}

static void
test_trace(void **state)
{
	struct cb_packet *p;
	char err[CB_ERR_LEN];
	size_t n;

	(void)state;
	assert_int_equal(cb_trace_load(write_tmp("16909060 84281096 1 65535 17 3\n"
						 "0 4294967295 0 0 0 1\n"),
				       &p, &n, err),
			 0);
	unlink(tmp_path);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].src, 0x01020304);
	assert_int_equal(p[0].dst, 0x05060708);
	assert_int_equal(p[0].sport, 1);
	assert_int_equal(p[0].dport, 65535);
	assert_int_equal(p[0].proto, 17);
	assert_int_equal(p[0].match_id, 3);
	assert_int_equal(p[1].dst, UINT32_MAX);
	free(p);

	assert_refused(true, "1 2 3 4 6 0\n", "MATCH_ID (1-based) '0'");
	assert_refused(true, "1 2 65536 4 6 1\n", "source port '65536'");
	assert_refused(true, "1 -2 3 4 6 1\n", "destination address '-2'");
	assert_refused(true, "1 2 3 4 256 1\n", "protocol");
	assert_refused(true, "1 2 3 4 6\n", "want 6");
	assert_int_equal(cb_trace_load("/nonexistent/trace", &p, &n, err), -ENOENT);
	assert_string_equal(err, "/nonexistent/trace: No such file or directory");
}

/* docs/codeopt.md: dst, src, sport, dport, proto, zero; network byte order. */
static void
test_key_layout(void **state)
{
	const struct cb_packet p = {.src = 0x01020304, .dst = 0x05060708, .sport = 0x0a0b,
				    .dport = 0x0c0d, .proto = 6, .match_id = 1};
	const uint8_t want[SP_KEY_BYTES] = {5, 6, 7, 8, 1, 2, 3, 4, 0x0a, 0x0b, 0x0c, 0x0d, 6, 0};
	struct sp_key k;

	(void)state;
	memset(&k, 0xff, sizeof(k));
	cb_packet_key(&p, &k);
	assert_memory_equal(k.b, want, sizeof(want));
}

static void
test_expand_small(void **state)
{
	size_t n;
	struct cb_rule *r = rules_from("@10.0.0.0/8 20.1.0.0/16 0 : 65535 1024 : 65535 0x11/0xFF\n"
				       "@0.0.0.0/0 0.0.0.0/0 1 : 65534 1 : 65534 0x00/0x00\n",
				       &n);
	const uint8_t key0[SP_KEY_BYTES] = {20, 1, 0, 0, 10, 0, 0, 0, 0, 0, 0x04, 0, 0x11, 0};
	const uint8_t mask0[SP_KEY_BYTES] = {0xff, 0xff, 0, 0, 0xff, 0,    0,
					     0,    0,    0, 0xfc, 0, 0xff, 0};
	struct cb_expansion x;
	size_t i;

	(void)state;
	assert_int_equal(cb_expand(r, n, &x), 0);
	/* [1024, 65535] is 6 prefixes; [1, 65534] 30, squared for two such ranges. */
	assert_int_equal(x.n, 6 + 30 * 30);
	assert_int_equal(x.nb_rules, 2);
	assert_true(cb_expansion_factor(&x) == (6.0 + 900.0) / 2);
	assert_memory_equal(x.filters[0].key.b, key0, SP_KEY_BYTES);
	assert_memory_equal(x.filters[0].mask.b, mask0, SP_KEY_BYTES);
	for (i = 0; i < x.n; i++)
		assert_int_equal(x.rule[i], i < 6 ? 0 : 1);
	cb_expansion_free(&x);
	free(r);
}

/* ---- expansion against the rules' own ranges, on every rule file ---- */

static bool
filter_matches(const struct sp_filter *f, const struct sp_key *k)
{
	unsigned int i;

	for (i = 0; i < SP_KEY_BYTES; i++)
		if ((k->b[i] & f->mask.b[i]) != f->key.b[i])
			return false;
	return true;
}

static uint32_t
in_prefix(uint32_t addr, unsigned int len)
{
	uint32_t host = len == 32 ? 0 : UINT32_MAX >> len;

	return (addr & ~host) | ((uint32_t)sp_test_rnd() & host);
}

static uint16_t
in_range(uint16_t lo, uint16_t hi)
{
	return (uint16_t)(lo + sp_test_rnd() % ((uint32_t)hi - lo + 1));
}

/* A port at or just beyond a bound (wrapping at the ends of 0..65535). */
static uint16_t
near_bound(uint16_t lo, uint16_t hi)
{
	static const int delta[] = {-1, 0, 1};

	return (uint16_t)((sp_test_rnd() & 1 ? lo : hi) + delta[sp_test_rnd() % 3]);
}

/*
 * Packets around r: inside it, then with one field moved to a range bound,
 * just past it, or to a random value, so that both answers occur.
 */
static struct cb_packet
sample_packet(const struct cb_rule *r)
{
	struct cb_packet p = {
		.src = in_prefix(r->src, r->src_len),
		.dst = in_prefix(r->dst, r->dst_len),
		.sport = in_range(r->sport_lo, r->sport_hi),
		.dport = in_range(r->dport_lo, r->dport_hi),
		.proto = (uint8_t)(r->proto | (sp_test_rnd() & (uint8_t)~r->proto_mask)),
	};

	switch (sp_test_rnd() % 6) {
	case 0:
		p.sport = near_bound(r->sport_lo, r->sport_hi);
		break;
	case 1:
		p.dport = near_bound(r->dport_lo, r->dport_hi);
		break;
	case 2:
		p.src ^= 1u << (sp_test_rnd() % 32);
		break;
	case 3:
		p.dst ^= 1u << (sp_test_rnd() % 32);
		break;
	case 4:
		p.proto = (uint8_t)sp_test_rnd();
		break;
	default: /* unchanged: inside */
		break;
	}
	return p;
}

#define SAMPLES_PER_RULE 16

/*
 * Each rule's filters are consecutive, their keys carry no bits outside
 * their masks, and a sample packet matches exactly one of them if the rule
 * matches it by its ranges, none otherwise (disjoint and exact).
 */
static void
check_expansion(const struct set *set)
{
	struct cb_expansion x;
	struct cb_packet p;
	struct cb_rule *r;
	struct sp_key k;
	char err[CB_ERR_LEN];
	size_t n, first = 0, end, i, s, f;
	unsigned int hits;

	if (cb_rules_load(set->rules, &r, &n, err) != 0)
		fail_msg("%s", err);
	assert_int_equal(cb_expand(r, n, &x), 0);
	for (i = 0; i < n; i++, first = end) {
		for (end = first; end < x.n && x.rule[end] == i; end++)
			assert_true(filter_matches(&x.filters[end], &x.filters[end].key));
		assert_true(end > first);
		for (s = 0; s < SAMPLES_PER_RULE; s++) {
			p = sample_packet(&r[i]);
			cb_packet_key(&p, &k);
			hits = 0;
			for (f = first; f < end; f++)
				hits += filter_matches(&x.filters[f], &k);
			if (hits != cb_rule_matches(&r[i], &p))
				fail_msg("%s rule %zu: %u filters match %08x %08x %u %u %u",
					 set->name, i + 1, hits, p.src, p.dst, p.sport, p.dport,
					 p.proto);
		}
	}
	assert_int_equal(first, x.n);
	cb_expansion_free(&x);
	free(r);
}

/* Calls add(dir path, file name, sets + n) for every file of root/dir. */
static size_t
find_sets(const char *root, const char *dir,
	  bool (*add)(const char *, const char *, struct set *), struct set *sets, size_t max)
{
	char path[PATH_MAX];
	struct dirent **e;
	size_t n = 0;
	int i, nb;

	snprintf(path, sizeof(path), "%s/%s", root, dir);
	nb = scandir(path, &e, NULL, alphasort);
	for (i = 0; i < nb; i++) {
		if (e[i]->d_name[0] != '.' && n < max && add(path, e[i]->d_name, &sets[n]))
			n++;
		free(e[i]);
	}
	if (nb >= 0)
		free(e);
	return n;
}

static bool
add_rules(const char *dir, const char *file, struct set *set)
{
	snprintf(set->name, sizeof(set->name), "%s", file);
	snprintf(set->rules, sizeof(set->rules), "%s/%s", dir, file);
	return true;
}

/* traces/X_trace, if rules/X exists beside traces/; named "trace X", as its test. */
static bool
add_trace(const char *dir, const char *file, struct set *set)
{
	size_t len = strlen(file), base = len - strlen(TRACE_SUFFIX);
	struct stat st;

	if (len <= strlen(TRACE_SUFFIX) || strcmp(file + base, TRACE_SUFFIX) != 0)
		return false;
	snprintf(set->name, sizeof(set->name), "trace %.*s", (int)base, file);
	snprintf(set->rules, sizeof(set->rules), "%s/../rules/%.*s", dir, (int)base, file);
	snprintf(set->trace, sizeof(set->trace), "%s/%s", dir, file);
	return stat(set->rules, &st) == 0;
}

/* The sets made here, in a temporary directory laid out as hypersplit/: rules/ and traces/. */
static char gen_dir[] = "/tmp/sp_test_classbench_sets_XXXXXX";

static const struct {
	const char *name;
	size_t rules, packets;
	uint64_t seed;
} generated[] = {
	{"gen_100", 100, 2000, 1},
	{"gen_1K", 1000, 10000, 2},
	{"gen_4K", 4000, 20000, 3},
};

static void
write_generated(void)
{
	char path[PATH_MAX];
	size_t i;

	if (mkdtemp(gen_dir) == NULL)
		abort();
	snprintf(path, sizeof(path), "%s/rules", gen_dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/traces", gen_dir);
	mkdir(path, 0700);
	for (i = 0; i < RTE_DIM(generated); i++) {
		struct cb_rule *r = calloc(generated[i].rules, sizeof(*r));
		struct cb_packet *p = calloc(generated[i].packets, sizeof(*p));

		if (r == NULL || p == NULL)
			abort();
		cb_generate_rules(r, generated[i].rules, generated[i].seed);
		cb_generate_trace(r, generated[i].rules, p, generated[i].packets, generated[i].seed);
		snprintf(path, sizeof(path), "%s/rules/%s", gen_dir, generated[i].name);
		if (cb_rules_write(path, r, generated[i].rules) != 0)
			abort();
		snprintf(path, sizeof(path), "%s/traces/%s%s", gen_dir, generated[i].name,
			 TRACE_SUFFIX);
		if (cb_trace_write(path, p, generated[i].packets) != 0)
			abort();
		free(r);
		free(p);
	}
}

static int
remove_generated(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", gen_dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Every rule file of root/dir expands exactly; the directory must hold some. */
static void
check_expansions(const char *root, const char *dir)
{
	static struct set sets[MAX_SETS];
	size_t i, n = find_sets(root, dir, add_rules, sets, MAX_SETS);

	if (n == 0)
		fail_msg("no rule files in %s/%s", root, dir);
	for (i = 0; i < n; i++)
		check_expansion(&sets[i]);
}

static void
test_expansion_exact_generated(void **state)
{
	(void)state;
	check_expansions(gen_dir, "rules");
}

static void
test_expansion_exact_shared(void **state)
{
	(void)state;
	if (data_dir() == NULL) {
		print_message("the public ClassBench sets (%s) are absent\n",
			      getenv("SP_CLASSBENCH_DIR"));
		skip();
	}
	check_expansions(data_dir(), "hypersplit/rules");
	check_expansions(data_dir(), "large");
	check_expansions(data_dir(), "neurocuts");
}

/* ---- traces through the real lookup engine ---- */

static struct sp_lookup *
engine_with(const struct cb_expansion *x, enum sp_lookup_form form)
{
	struct sp_lookup_params params = {
		.name = "classbench",
		.capacity = (uint32_t)x->n,
		.max_slices = 1,
		.socket = SOCKET_ID_ANY,
		.form = form,
	};
	struct sp_lookup *t = sp_lookup_create(&params);
	uint32_t *pos = malloc(x->n * sizeof(*pos)), i;

	assert_non_null(t);
	assert_non_null(pos);
	for (i = 0; i < x->n; i++)
		pos[i] = i;
	assert_int_equal(sp_lookup_slice_add(t, SLICE, (uint32_t)x->n), 0);
	assert_int_equal(sp_lookup_write_bulk(t, SLICE, pos, x->filters, (uint32_t)x->n), 0);
	assert_int_equal(sp_lookup_sync(t, SLICE), 0);
	free(pos);
	return t;
}

/* Look up p[0..n) in one burst; each must hit a filter of the rule its MATCH_ID names. */
static void
check_burst(struct sp_lookup *t, const struct cb_expansion *x, const struct cb_packet *p,
	    uint16_t n, size_t first, const char *name)
{
	struct sp_key k[BURST];
	struct sp_result res[BURST];
	const struct sp_key *keys[BURST];
	struct sp_result *results[BURST];
	uint32_t pos[BURST];
	uint16_t i;

	for (i = 0; i < n; i++) {
		cb_packet_key(&p[i], &k[i]);
		keys[i] = &k[i];
		results[i] = &res[i];
	}
	assert_int_equal(sp_lookup_bulk(t, SLICE, keys, results, pos, n), n);
	/* Rules are numbered from 1 in the messages, as MATCH_ID counts them. */
	for (i = 0; i < n; i++) {
		if (pos[i] == SP_LOOKUP_MISS)
			fail_msg("%s packet %zu: no filter matched, want rule %u", name,
				 first + i + 1, p[i].match_id);
		if (x->rule[pos[i]] != p[i].match_id - 1)
			fail_msg("%s packet %zu: position %u (rule %u) matched, want rule %u", name,
				 first + i + 1, pos[i], x->rule[pos[i]] + 1, p[i].match_id);
	}
}

static void
test_trace_set(void **state)
{
	const struct set *set = *state;
	struct cb_expansion x;
	struct cb_packet *p;
	struct cb_rule *r;
	struct sp_lookup *t;
	char err[CB_ERR_LEN];
	size_t nr, np, i;
	double start = now();

	if (cb_rules_load(set->rules, &r, &nr, err) != 0)
		fail_msg("%s", err);
	if (cb_trace_load(set->trace, &p, &np, err) != 0)
		fail_msg("%s", err);
	/* The trace is right about its rules: the oracle the engine is held to. */
	for (i = 0; i < np; i++)
		assert_true(p[i].match_id <= nr && cb_rule_matches(&r[p[i].match_id - 1], &p[i]));
	assert_int_equal(cb_expand(r, nr, &x), 0);
	/* Every way of compiling: the tree, and rte_acl's two forms. */
	for (enum sp_lookup_form form = SP_LOOKUP_FORM_TERNARY; form <= SP_LOOKUP_FORM_TREE;
	     form++) {
		struct sp_lookup_info info;

		t = engine_with(&x, form);
		assert_int_equal(sp_lookup_info(t, SLICE, &info), 0);
		assert_int_equal(strcmp(info.form, "ranges") == 0, form == SP_LOOKUP_FORM_RANGES);
		assert_int_equal(strcmp(info.form, "tree") == 0, form == SP_LOOKUP_FORM_TREE);
		for (i = 0; i < np; i += BURST)
			check_burst(t, &x, &p[i], (uint16_t)RTE_MIN((size_t)BURST, np - i), i,
				    set->name);
		print_message("%s: %zu rules, %zu filters in %u rte_acl rules, %zu packets\n",
			      set->name, nr, x.n, info.rules, np);
		sp_lookup_free(t);
	}
	print_message("%s: %.2f s\n", set->name, now() - start);
	cb_expansion_free(&x);
	free(p);
	free(r);
}

int
main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_rules_both_formats),
		cmocka_unit_test(test_rules_refused),
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_key_layout),
		cmocka_unit_test(test_expand_small),
		cmocka_unit_test(test_expansion_exact_generated),
		cmocka_unit_test(test_expansion_exact_shared),
	};
	static struct set sets[MAX_SETS];
	struct CMUnitTest tests[RTE_DIM(fixed) + MAX_SETS];
	size_t nb = RTE_DIM(fixed), n, i;

	memcpy(tests, fixed, sizeof(fixed));
	write_generated();
	n = find_sets(gen_dir, "traces", add_trace, sets, MAX_SETS);
	if (data_dir() != NULL)
		n += find_sets(data_dir(), "hypersplit/traces", add_trace, sets + n, MAX_SETS - n);
	for (i = 0; i < n; i++)
		tests[nb++] = (struct CMUnitTest){.name = sets[i].name,
						  .test_func = test_trace_set,
						  .initial_state = &sets[i]};
	sp_test_eal_init();
	return _cmocka_run_group_tests("classbench", tests, nb, NULL, remove_generated);
}
