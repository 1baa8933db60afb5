/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tables for people: headings (in capitals, so a counter's key is its heading),
 * then rows, columns as wide as their widest cell.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct table {
	unsigned int columns;
	size_t rows, cap;
	char **cells; /* rows * columns, row 0 the headings */
};

static void
add_row(struct table *t, va_list ap)
{
	if (t->rows == t->cap) {
		size_t cap = t->cap == 0 ? 16 : 2 * t->cap;
		char **grown = realloc(t->cells, cap * t->columns * sizeof(*grown));

		if (grown == NULL)
			return;
		t->cells = grown;
		t->cap = cap;
	}
	for (unsigned int c = 0; c < t->columns; c++) {
		const char *cell = va_arg(ap, const char *);

		t->cells[t->rows * t->columns + c] = strdup(cell != NULL ? cell : "-");
	}
	t->rows++;
}

struct table *
table_new(unsigned int columns, ...)
{
	struct table *t = calloc(1, sizeof(*t));
	va_list ap;

	if (t == NULL)
		abort();
	t->columns = columns;
	va_start(ap, columns);
	add_row(t, ap);
	va_end(ap);
	for (unsigned int c = 0; t->rows == 1 && c < columns; c++)
		for (char *h = t->cells[c]; h != NULL && *h != '\0'; h++)
			*h = (char)toupper((unsigned char)*h);
	return t;
}

void
table_row(struct table *t, ...)
{
	va_list ap;

	va_start(ap, t);
	add_row(t, ap);
	va_end(ap);
}

void
table_print(struct table *t)
{
	size_t width[32] = {0};

	for (size_t r = 0; r < t->rows; r++)
		for (unsigned int c = 0; c < t->columns && c < 32; c++) {
			size_t w = t->cells[r * t->columns + c] != NULL
					   ? strlen(t->cells[r * t->columns + c]) : 0;

			if (w > width[c])
				width[c] = w;
		}
	for (size_t r = 0; r < t->rows; r++) {
		for (unsigned int c = 0; c < t->columns; c++) {
			const char *cell = t->cells[r * t->columns + c];

			if (c + 1 < t->columns)
				printf("%-*s  ", (int)width[c], cell != NULL ? cell : "");
			else
				printf("%s\n", cell != NULL ? cell : "");
			free(t->cells[r * t->columns + c]);
		}
	}
	free(t->cells);
	free(t);
}
