/* SPDX-License-Identifier: BSD-3-Clause */
/* The fleet's views (--cluster): its slices, one slice on each of its nodes, its nodes. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "fleet.h"

static int
needs_cluster(struct cli *cli, const char *what)
{
	if (cli->fleet != NULL)
		return 0;
	return cli_usage("%s is the fleet's: give --cluster etcd://HOST:PORT (or set "
			 "SLICEPATH_CLUSTER)", what);
}

int
cmd_fleet_slice_list(struct cli *cli)
{
	int status;
	json_t *r = cli_call_for_table(cli, SP_M_SLICE_LIST, NULL, &status), *o;
	struct table *t;
	size_t i;

	if (r == NULL)
		return status;
	t = table_new(3, "SLICE", "CODEOPT", "NODES");
	json_array_foreach(r, i, o)
		table_row(t, json_string_value(json_object_get(o, "name")),
			  json_string_value(json_object_get(o, "codeopt")) ?: "-",
			  cli_joined(json_object_get(o, "nodes")));
	table_print(t);
	json_decref(r);
	return 0;
}

/* slice status SLICE: on each of its nodes, in force, failed (why) or pending, live or down. */
int
cmd_fleet_slice_status(struct cli *cli, int argc, char **argv)
{
	int status = needs_cluster(cli, "slice status");
	json_t *r, *o;
	struct table *t;
	size_t i;

	if (status != 0)
		return status;
	if (argc != 1)
		return cli_usage("usage: slicectl --cluster URLS slice status SLICE");
	r = cli_call_for_table(cli, SP_M_SLICE_STATUS, json_pack("{s:s}", "slice", argv[0]),
			       &status);
	if (r == NULL)
		return status;
	t = table_new(5, "NODE", "NODE_STATE", "SLICE_STATE", "REVISION", "REASON");
	json_array_foreach(json_object_get(r, "nodes"), i, o) {
		char rev[24];

		snprintf(rev, sizeof(rev), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(o, "revision")));
		table_row(t, json_string_value(json_object_get(o, "node")),
			  json_is_true(json_object_get(o, "live")) ? "live" : "down",
			  json_string_value(json_object_get(o, "state")) ?: "-", rev,
			  json_string_value(json_object_get(o, "reason")) ?: "");
	}
	table_print(t);
	json_decref(r);
	return 0;
}

/* slice replace SLICE NODE: the slice off NODE onto another live node with room. */
int
cmd_fleet_slice_replace(struct cli *cli, int argc, char **argv)
{
	int status = needs_cluster(cli, "slice replace");
	json_t *r;

	if (status != 0)
		return status;
	if (argc != 2)
		return cli_usage("usage: slicectl --cluster URLS slice replace SLICE NODE");
	r = cli_call(cli, SP_M_SLICE_REPLACE, json_pack("{s:s, s:s}", "slice", argv[0], "node",
							   argv[1]), &status);
	if (r == NULL)
		return status;
	if (cli->json)
		cli_print_json(r);
	else
		printf("slice %s moved off %s onto %s: on %s\n", argv[0], argv[1],
		       json_string_value(json_object_get(r, "to")),
		       cli_joined(json_object_get(r, "nodes")));
	json_decref(r);
	return 0;
}

/* node list: every node that joined, live or down, its load and when last seen. */
int
cmd_fleet_node_list(struct cli *cli)
{
	int status;
	json_t *r = cli_call_for_table(cli, SP_M_NODE_LIST, NULL, &status), *o;
	struct table *t;
	size_t i;

	if (r == NULL)
		return status;
	t = table_new(5, "NODE", "STATE", "SLICES", "BANDWIDTH", "SEEN");
	json_array_foreach(r, i, o) {
		char slices[48], bw[64], used[24], cap[24], seen[32] = "-";
		json_t *s = json_object_get(o, "seen");

		snprintf(slices, sizeof(slices), "%" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(o, "used_slices")),
			 json_integer_value(json_object_get(o, "slices")));
		snprintf(bw, sizeof(bw), "%s/%s",
			 cli_fmt_rate((uint64_t)json_integer_value(json_object_get(o,
									"used_bandwidth")),
				      used, sizeof(used)),
			 cli_fmt_rate((uint64_t)json_integer_value(json_object_get(o, "bandwidth")),
				      cap, sizeof(cap)));
		if (json_is_integer(s)) {
			time_t when = (time_t)json_integer_value(s);

			strftime(seen, sizeof(seen), "%Y-%m-%d %H:%M:%S", localtime(&when));
		}
		table_row(t, json_string_value(json_object_get(o, "node")),
			  json_is_true(json_object_get(o, "live")) ? "live" : "down", slices, bw,
			  seen);
	}
	table_print(t);
	json_decref(r);
	return 0;
}

/* policy [set replace-after SECONDS]: the fleet's policy, shown or changed. */
int
cmd_fleet_policy(struct cli *cli, int argc, char **argv)
{
	int status = needs_cluster(cli, "policy");
	json_t *p, *r;

	if (status != 0)
		return status;
	if (argc == 0 || (argc == 1 && strcmp(argv[0], "show") == 0)) {
		r = cli_call_for_table(cli, SP_M_POLICY_GET, NULL, &status);
	} else if (argc == 3 && strcmp(argv[0], "set") == 0 &&
		   strcmp(argv[1], "replace-after") == 0) {
		p = json_object();
		if (cli_put_uint(p, "replace_down_after", argv[2], UINT32_MAX) != 0) {
			json_decref(p);
			return EXIT_USAGE;
		}
		r = cli_call_for_table(cli, SP_M_POLICY_SET, p, &status);
	} else {
		return cli_usage("usage: slicectl --cluster URLS policy [show | set replace-after "
				 "SECONDS]  (0: slices stay on a node that is down)");
	}
	if (r == NULL)
		return status;
	if (json_integer_value(json_object_get(r, "replace_down_after")) == 0)
		printf("slices stay on a node that is down until it returns (slice replace moves "
		       "one)\n");
	else
		printf("slices leave a node down for %" JSON_INTEGER_FORMAT " s\n",
		       json_integer_value(json_object_get(r, "replace_down_after")));
	json_decref(r);
	return 0;
}
