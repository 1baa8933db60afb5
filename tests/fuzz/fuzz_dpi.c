/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the dpi code option's pattern lines (codeopts/dpi/patterns.c),
 * what a slice's owner sends with codeopt.load, on any bytes.
 *
 * Invariants: 0 or -1. -1: a non-empty one-line message and an empty list.
 * 0: at most SP_DPI_MAX_PATTERNS patterns, each a non-empty expression
 * with no newline, a class of at most 254, lines in increasing order, and
 * only the flags the line format offers (plus single-match, always).
 */
#include <string.h>

#include <hs/hs.h>

#include <slicepath/dpi.h>

#include "dpi/patterns.h"
#include "fuzz_pkt.h"

#define FLAGS (HS_FLAG_CASELESS | HS_FLAG_DOTALL | HS_FLAG_MULTILINE | HS_FLAG_SINGLEMATCH)

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dpi_patterns p;
	char err[256] = "";

	if (dpi_patterns_parse((const char *)data, size, &p, err, sizeof(err)) < 0) {
		SP_TEST_CHECK(err[0] != '\0' && strchr(err, '\n') == NULL, "bad message \"%s\"", err);
		SP_TEST_CHECK(p.n == 0 && p.expr == NULL, "a refused list holds %u patterns", p.n);
		return 0;
	}
	SP_TEST_CHECK(p.n <= SP_DPI_MAX_PATTERNS, "%u patterns", p.n);
	for (unsigned int i = 0; i < p.n; i++) {
		SP_TEST_CHECK(p.expr[i][0] != '\0' && strchr(p.expr[i], '\n') == NULL,
			      "pattern %u: expression \"%s\"", i, p.expr[i]);
		SP_TEST_CHECK(p.cls[i] <= SP_DPI_MAX_CLASS, "pattern %u: class %u", i, p.cls[i]);
		SP_TEST_CHECK((p.flags[i] & ~FLAGS) == 0 && (p.flags[i] & HS_FLAG_SINGLEMATCH),
			      "pattern %u: flags %#x", i, p.flags[i]);
		SP_TEST_CHECK(i == 0 || p.line[i] > p.line[i - 1], "pattern %u: line %u after %u", i,
			      p.line[i], p.line[i - 1]);
	}
	dpi_patterns_free(&p);
	return 0;
}
