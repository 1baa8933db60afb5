/* SPDX-License-Identifier: BSD-3-Clause */
/* nat SLICE: a host slice's NAT range, its counts and its entries. */
#include <stdio.h>

#include "cli.h"

int
cmd_nat(struct cli *cli, int argc, char **argv)
{
	json_t *r, *in_use, *o;
	struct table *t;
	int status;
	size_t i;

	if (argc != 1)
		return cli_usage("usage: slicectl nat SLICE");
	r = cli_call_for_table(cli, SP_M_NAT_LIST, json_pack("{s:o}", "slice", cli_slice(argv[0])),
			       &status);
	if (r == NULL)
		return status;
	in_use = json_object_get(r, "in_use");
#define I(o, k) json_integer_value(json_object_get(o, k))
	printf("NAT ports %" JSON_INTEGER_FORMAT "-%" JSON_INTEGER_FORMAT ": in use tcp %"
	       JSON_INTEGER_FORMAT ", udp %" JSON_INTEGER_FORMAT ", icmp %" JSON_INTEGER_FORMAT
	       "; created %" JSON_INTEGER_FORMAT ", expired %" JSON_INTEGER_FORMAT
	       ", refused (range full) %" JSON_INTEGER_FORMAT "\n", I(r, "first"), I(r, "last"),
	       I(in_use, "tcp"), I(in_use, "udp"), I(in_use, "icmp"), I(r, "created"),
	       I(r, "expired"), I(r, "full"));
	t = table_new(6, "PROTO", "PORT", "INNER", "REMOTE", "IDLE_S", "STATE");
	json_array_foreach(json_object_get(r, "entries"), i, o) {
		char port[8], inner[8], idle[16];

		snprintf(port, sizeof(port), "%" JSON_INTEGER_FORMAT, I(o, "port"));
		snprintf(inner, sizeof(inner), "%" JSON_INTEGER_FORMAT, I(o, "inner"));
		snprintf(idle, sizeof(idle), "%" JSON_INTEGER_FORMAT, I(o, "idle"));
		table_row(t, json_string_value(json_object_get(o, "proto")), port, inner,
			  json_string_value(json_object_get(o, "remote")), idle,
			  json_string_value(json_object_get(o, "state")));
	}
#undef I
	table_print(t);
	json_decref(r);
	return 0;
}
