/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading slicectl's arguments, and rates written for people. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/text.h"

int
cli_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("slicectl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

bool
cli_is_help(const char *arg)
{
	return strcmp(arg, "help") == 0 || strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

int
cli_help(const char *usage)
{
	printf("%s\n", usage);
	return 0;
}

int
cli_pairs(int argc, char **argv, const char *const *keys, const char **values)
{
	unsigned int n = 0;

	while (keys[n] != NULL)
		values[n++] = NULL;
	for (int i = 0; i < argc; i += 2) {
		unsigned int k = 0;

		while (keys[k] != NULL && strcmp(keys[k], argv[i]) != 0)
			k++;
		if (keys[k] == NULL) {
			char list[256] = "";

			for (unsigned int j = 0; j < n; j++)
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 j > 0 ? ", " : "", keys[j]);
			return cli_usage("unknown argument \"%s\"; this command takes %s", argv[i],
					 n > 0 ? list : "no more arguments");
		}
		if (i + 1 >= argc)
			return cli_usage("\"%s\" needs a value", argv[i]);
		values[k] = argv[i + 1];
	}
	return 0;
}

int
cli_uint(const char *what, const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	if (s[0] == '-' || s[0] == '\0' || *end != '\0' || errno != 0 || *v > max)
		return cli_usage("%s: \"%s\" is not a whole number from 0 to %" PRIu64, what, s,
				 max);
	return 0;
}

/* A rate ("10M"): 0, or EXIT_USAGE after a message. */
static int
cli_rate(const char *what, const char *s, uint64_t *v)
{
	/* As tc: a bare number above 0 is a unit forgotten far more often than bits/s. */
	if (s[0] != '\0' && strspn(s, "0123456789") == strlen(s) && strspn(s, "0") != strlen(s))
		return cli_usage("%s: \"%s\" has no unit: write %sk, %sM or %sG (bits/s)", what, s,
				 s, s, s);
	if (sp_parse_rate(s, v) == 0)
		return 0;
	return cli_usage("%s: \"%s\" is not a rate (bits/s, like 100k, 10M or 1.5G)", what,
			 s);
}

int
cli_put_uint(json_t *params, const char *key, const char *s, uint64_t max)
{
	uint64_t v;

	if (s == NULL)
		return 0;
	if (cli_uint(key, s, max, &v) != 0)
		return EXIT_USAGE;
	json_object_set_new(params, key, json_integer((json_int_t)v));
	return 0;
}

int
cli_put_rate(json_t *params, const char *key, const char *s)
{
	uint64_t v;

	if (s == NULL)
		return 0;
	if (cli_rate(key, s, &v) != 0)
		return EXIT_USAGE;
	json_object_set_new(params, key, json_integer((json_int_t)v));
	return 0;
}

json_t *
cli_slice(const char *s)
{
	if (s[0] != '\0' && strspn(s, "0123456789") == strlen(s))
		return json_integer(strtoll(s, NULL, 10));
	return json_string(s);
}

const char *
cli_fmt_rate(uint64_t bps, char *buf, size_t len)
{
	static const char units[] = " kMGT";
	unsigned int u = 0;
	double v = (double)bps;

	while (v >= 1000 && u < sizeof(units) - 2) {
		v /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64, bps);
	else if (v == (double)(uint64_t)v)
		snprintf(buf, len, "%" PRIu64 "%c", (uint64_t)v, units[u]);
	else
		snprintf(buf, len, "%.3g%c", v, units[u]);
	return buf;
}

int
cli_run(struct cli *cli, const char *object, const struct cli_command *cmds, int argc, char **argv)
{
	const char *name = argc > 0 ? argv[0] : cmds[0].name;
	char list[512] = "";

	for (const struct cli_command *c = cmds; c->name != NULL; c++) {
		if (strcmp(c->name, name) == 0)
			return c->fn(cli, argc > 0 ? argc - 1 : 0, argc > 0 ? argv + 1 : argv);
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "\n  slicectl %s %s %s",
			 object, c->name, c->usage);
	}
	if (cli_is_help(name)) {
		printf("%s commands:%s\n", object, list);
		return 0;
	}
	return cli_usage("%s has no command \"%s\"; it has:%s", object, name, list);
}

json_t *
cli_list(const char *s)
{
	json_t *list = json_array();

	while (*s != '\0') {
		size_t n = strcspn(s, ",");

		if (n > 0)
			json_array_append_new(list, json_stringn(s, n));
		s += n + (s[n] == ',');
	}
	return list;
}

const char *
cli_joined(json_t *list)
{
	static char buf[4096];
	size_t i, used = 0;
	json_t *v;

	buf[0] = '\0';
	json_array_foreach(list, i, v)
		used += (size_t)snprintf(buf + used, used < sizeof(buf) ? sizeof(buf) - used : 0,
					 "%s%s", i > 0 ? ", " : "", json_string_value(v) ?: "?");
	return buf;
}
