/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ClassBench-like rule sets and traces made here, so that the trace tests
 * and the lookup benchmarks run from a clone alone. The shapes follow
 * ClassBench's (prefix lengths clustered at 0/8/16/24/32, port fields
 * wildcard, exact, the 1024-65535 range or an arbitrary range, protocol
 * exact or wildcard), and addresses come from a small pool so that rules
 * nest and overlap: first match by position matters, as in real sets.
 * A trace's MATCH_ID is found by a linear first-match search over the
 * rules' own definition (cb_rule_matches), not taken from the rule a
 * header was drawn from.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "classbench.h"

/* splitmix64: a seed gives the same set on every machine. */
static uint64_t
next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t
below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(next(s) % n);
}

static uint32_t
mask_of(uint8_t len)
{
	return len == 0 ? 0 : ~0u << (32 - len);
}

/* The addresses rules are cut from: few, so that prefixes of rules nest. */
#define POOL 48

static uint8_t
prefix_len(uint64_t *s)
{
	static const uint8_t common[] = {0, 8, 16, 24, 32, 32};
	uint32_t pick = below(s, 8);

	return pick < sizeof(common) ? common[pick] : (uint8_t)below(s, 33);
}

static void
port_field(uint64_t *s, bool dst, uint16_t *lo, uint16_t *hi)
{
	uint32_t pick = below(s, 10), a = below(s, 65536), b = below(s, 65536);

	if (pick < (dst ? 3u : 5u)) { /* wildcard */
		*lo = 0, *hi = 65535;
	} else if (pick < 8) { /* exact */
		*lo = *hi = (uint16_t)(dst ? below(s, 1024) : a);
	} else if (pick < 9) { /* the ephemeral ports */
		*lo = 1024, *hi = 65535;
	} else {
		*lo = (uint16_t)(a < b ? a : b), *hi = (uint16_t)(a < b ? b : a);
	}
}

void
cb_generate_rules(struct cb_rule *r, size_t n, uint64_t seed)
{
	static const uint8_t protos[] = {6, 6, 17, 17, 1};
	uint32_t pool[POOL];
	size_t i;

	for (i = 0; i < POOL; i++)
		pool[i] = (uint32_t)next(&seed);
	for (i = 0; i + 1 < n; i++) {
		r[i].src_len = prefix_len(&seed);
		r[i].dst_len = prefix_len(&seed);
		r[i].src = pool[below(&seed, POOL)] & mask_of(r[i].src_len);
		r[i].dst = pool[below(&seed, POOL)] & mask_of(r[i].dst_len);
		port_field(&seed, false, &r[i].sport_lo, &r[i].sport_hi);
		port_field(&seed, true, &r[i].dport_lo, &r[i].dport_hi);
		r[i].proto_mask = below(&seed, 5) == 0 ? 0 : 0xff;
		r[i].proto = protos[below(&seed, sizeof(protos))] & r[i].proto_mask;
	}
	/* The last rule matches everything, as ClassBench sets end: every header has a MATCH_ID. */
	if (n > 0)
		r[n - 1] = (struct cb_rule){.sport_hi = 65535, .dport_hi = 65535};
}

static uint16_t
in(uint64_t *s, uint16_t lo, uint16_t hi)
{
	return (uint16_t)(lo + below(s, (uint32_t)hi - lo + 1));
}

void
cb_generate_trace(const struct cb_rule *r, size_t nr, struct cb_packet *p, size_t np,
		  uint64_t seed)
{
	size_t i, k;

	for (i = 0; i < np; i++) {
		/* Most headers inside a drawn rule (which an earlier rule may shadow), some anywhere. */
		const struct cb_rule *from = &r[below(&seed, (uint32_t)nr)];
		uint32_t any = below(&seed, 10) == 0;

		p[i].src = any ? (uint32_t)next(&seed)
			       : from->src | ((uint32_t)next(&seed) & ~mask_of(from->src_len));
		p[i].dst = any ? (uint32_t)next(&seed)
			       : from->dst | ((uint32_t)next(&seed) & ~mask_of(from->dst_len));
		p[i].sport = any ? (uint16_t)next(&seed) : in(&seed, from->sport_lo, from->sport_hi);
		p[i].dport = any ? (uint16_t)next(&seed) : in(&seed, from->dport_lo, from->dport_hi);
		p[i].proto = any ? (uint8_t)next(&seed)
				 : (uint8_t)(from->proto | ((uint8_t)next(&seed) & ~from->proto_mask));
		for (k = 0; k < nr && !cb_rule_matches(&r[k], &p[i]); k++)
			;
		p[i].match_id = k < nr ? (uint32_t)k + 1 : 0;
	}
}

static void
dotted(FILE *f, uint32_t a, uint8_t len)
{
	fprintf(f, "%u.%u.%u.%u/%u", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff, len);
}

static void
rule_line(FILE *f, const void *items, size_t i)
{
	const struct cb_rule *r = (const struct cb_rule *)items + i;

	fputc('@', f);
	dotted(f, r->src, r->src_len);
	fputc(' ', f);
	dotted(f, r->dst, r->dst_len);
	fprintf(f, " %u : %u %u : %u 0x%02x/0x%02x\n", r->sport_lo, r->sport_hi, r->dport_lo,
		r->dport_hi, r->proto, r->proto_mask);
}

static void
trace_line(FILE *f, const void *items, size_t i)
{
	const struct cb_packet *p = (const struct cb_packet *)items + i;

	fprintf(f, "%u %u %u %u %u %u\n", p->src, p->dst, p->sport, p->dport, p->proto,
		p->match_id);
}

/* n lines of items to path, each written by line(): 0 or a negative errno. */
static int
write_lines(const char *path, const void *items, size_t n,
	    void (*line)(FILE *f, const void *items, size_t i))
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	for (size_t i = 0; i < n; i++)
		line(f, items, i);
	return fclose(f) == 0 ? 0 : -errno;
}

int
cb_rules_write(const char *path, const struct cb_rule *r, size_t n)
{
	return write_lines(path, r, n, rule_line);
}

int
cb_trace_write(const char *path, const struct cb_packet *p, size_t n)
{
	return write_lines(path, p, n, trace_line);
}
