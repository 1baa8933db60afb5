/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hs/hs.h>

#include <slicepath/dpi.h>

#include "patterns.h"

/* Every pattern reports once a packet: which class matched is all the key holds. */
#define ALWAYS HS_FLAG_SINGLEMATCH

static int
flag_of(char c, unsigned int *flag)
{
	switch (c) {
	case 'i':
		*flag = HS_FLAG_CASELESS;
		return 0;
	case 's':
		*flag = HS_FLAG_DOTALL;
		return 0;
	case 'm':
		*flag = HS_FLAG_MULTILINE;
		return 0;
	default:
		return -1;
	}
}

/* One "CLASS:/EXPRESSION/FLAGS" line (NUL-terminated, in place) as pattern i. */
static int
parse_line(char *l, unsigned int lineno, struct dpi_patterns *p, char *err, size_t errlen)
{
	unsigned int i = p->n, cls = 0, flags = ALWAYS;
	char *slash, *f;
	size_t digits = strspn(l, "0123456789");

	if (digits > 0 && digits <= 3)
		cls = (unsigned int)strtoul(l, NULL, 10);
	if (digits == 0 || digits > 3 || cls > SP_DPI_MAX_CLASS || l[digits] != ':' ||
	    l[digits + 1] != '/') {
		snprintf(err, errlen, "line %u: expected CLASS:/EXPRESSION/FLAGS with CLASS 0 to %d",
			 lineno, SP_DPI_MAX_CLASS);
		return -1;
	}
	slash = strrchr(l + digits + 2, '/');
	if (slash == NULL || slash == l + digits + 2) {
		snprintf(err, errlen, "line %u: %s", lineno, slash == NULL ?
			 "the expression has no closing '/'" : "the expression is empty");
		return -1;
	}
	for (f = slash + 1; *f != '\0'; f++) {
		unsigned int one;

		if (flag_of(*f, &one) < 0) {
			snprintf(err, errlen, "line %u: unknown flag '%c' (flags are i, s, m)",
				 lineno, *f);
			return -1;
		}
		flags |= one;
	}
	*slash = '\0';
	p->expr[i] = l + digits + 2;
	p->flags[i] = flags;
	p->cls[i] = cls;
	p->line[i] = lineno;
	p->n++;
	return 0;
}

int
dpi_patterns_parse(const char *text, size_t len, struct dpi_patterns *p, char *err, size_t errlen)
{
	unsigned int lineno = 0;
	char *l, *next;

	memset(p, 0, sizeof(*p));
	if (memchr(text, '\0', len) != NULL) {
		snprintf(err, errlen, "the patterns are text: they hold a NUL byte");
		return -1;
	}
	p->text = malloc(len + 1);
	p->expr = calloc(SP_DPI_MAX_PATTERNS, sizeof(*p->expr));
	p->flags = calloc(SP_DPI_MAX_PATTERNS, sizeof(*p->flags));
	p->cls = calloc(SP_DPI_MAX_PATTERNS, sizeof(*p->cls));
	p->line = calloc(SP_DPI_MAX_PATTERNS, sizeof(*p->line));
	if (p->text == NULL || p->expr == NULL || p->flags == NULL || p->cls == NULL ||
	    p->line == NULL) {
		snprintf(err, errlen, "out of memory");
		dpi_patterns_free(p);
		return -1;
	}
	memcpy(p->text, text, len);
	p->text[len] = '\0';
	for (l = p->text; l != NULL; l = next) {
		next = strchr(l, '\n');
		if (next != NULL)
			*next++ = '\0';
		lineno++;
		if (l[0] != '\0' && l[strlen(l) - 1] == '\r')
			l[strlen(l) - 1] = '\0';
		if (l[0] == '\0' || l[0] == '#')
			continue;
		if (p->n == SP_DPI_MAX_PATTERNS) {
			snprintf(err, errlen, "line %u: more than %d patterns", lineno,
				 SP_DPI_MAX_PATTERNS);
			dpi_patterns_free(p);
			return -1;
		}
		if (parse_line(l, lineno, p, err, errlen) < 0) {
			dpi_patterns_free(p);
			return -1;
		}
	}
	return 0;
}

void
dpi_patterns_free(struct dpi_patterns *p)
{
	free(p->text);
	free(p->expr);
	free(p->flags);
	free(p->cls);
	free(p->line);
	memset(p, 0, sizeof(*p));
}
