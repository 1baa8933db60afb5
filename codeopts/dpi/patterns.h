/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dpi code option's pattern list (slicepath/dpi.h) read from the text
 * its owner sent. No DPDK: the fuzzer and the tests use it alone.
 */
#ifndef SP_DPI_PATTERNS_H
#define SP_DPI_PATTERNS_H

#include <stddef.h>

struct dpi_patterns {
	unsigned int n;
	char **expr;          /* n NUL-terminated expressions */
	unsigned int *flags;  /* Hyperscan's compile flags */
	unsigned int *cls;    /* the class each reports */
	unsigned int *line;   /* where each was, for messages */
	char *text;           /* the copy the expressions point into */
};

/*
 * Read len bytes of pattern lines into p (none at all is a list: nothing
 * matches). 0, or -1 with the line and what is wrong with it in err (p is
 * then empty).
 */
int dpi_patterns_parse(const char *text, size_t len, struct dpi_patterns *p, char *err,
		       size_t errlen);
void dpi_patterns_free(struct dpi_patterns *p);

#endif
