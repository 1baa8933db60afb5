/* SPDX-License-Identifier: BSD-3-Clause */
#include "lcore_cpus.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>

/*
 * One set as --lcores writes it: a number, a range a-b, or a group
 * "(a,b-c,...)". Adds its members to *set, leaves *s after it; *group
 * tells whether it was a group. -1 if it does not parse.
 */
static int
parse_set(const char **s, cpu_set_t *set, bool *group)
{
	const char *p = *s;

	*group = *p == '(';
	if (*group)
		p++;
	do {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p || !isdigit((unsigned char)*p))
			return -1;
		p = end;
		if (*p == '-') {
			b = strtoul(++p, &end, 10);
			if (end == p || b < a)
				return -1;
			p = end;
		}
		if (b >= CPU_SETSIZE)
			return -1;
		for (unsigned long i = a; i <= b; i++)
			CPU_SET(i, set);
	} while (*group && *p == ',' && p++);
	if (*group && *p++ != ')')
		return -1;
	*s = p;
	return 0;
}

int
sp_lcore_cpus(const char *map, unsigned int lcore, cpu_set_t *cpus)
{
	const char *p = map;
	int found = 0;

	while (*p != '\0') {
		cpu_set_t lcores, on;
		bool group, cpu_group;

		CPU_ZERO(&lcores);
		CPU_ZERO(&on);
		if (parse_set(&p, &lcores, &group) < 0)
			return -1;
		if (*p == '@') {
			p++;
			if (parse_set(&p, &on, &cpu_group) < 0)
				return -1;
		} else if (group) {
			on = lcores; /* "(1,2)": both lcores float over CPUs 1 and 2 */
		} else if (lcore < CPU_SETSIZE && CPU_ISSET(lcore, &lcores)) {
			CPU_SET(lcore, &on); /* "1-3": each lcore on its own CPU */
		}
		if (*p != ',' && *p != '\0')
			return -1;
		if (*p == ',')
			p++;
		if (lcore < CPU_SETSIZE && CPU_ISSET(lcore, &lcores)) {
			*cpus = on;
			found = 1;
		}
	}
	return found;
}
