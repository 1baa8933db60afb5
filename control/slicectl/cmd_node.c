/* SPDX-License-Identifier: BSD-3-Clause */
/* whoami, iface, node, sched, state, channel and call: the node and the raw API. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *
num(json_t *o, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(o, key)));
	return buf;
}

static const char *
rate(json_t *o, const char *key, char *buf, size_t len)
{
	return cli_fmt_rate((uint64_t)json_integer_value(json_object_get(o, key)), buf, len);
}

static int
whoami(struct cli *cli)
{
	int status;
	json_t *r = cli_call(cli, SP_M_WHOAMI, NULL, &status), *s;
	size_t i;

	if (r == NULL)
		return status;
	if (cli->json) {
		cli_print_json(r);
	} else {
		printf("uid %" JSON_INTEGER_FORMAT "%s; slices:",
		       json_integer_value(json_object_get(r, "uid")),
		       json_is_true(json_object_get(r, "operator")) ? ", an operator" : "");
		json_array_foreach(json_object_get(r, "slices"), i, s)
			printf(" %s", json_string_value(s));
		printf("%s\n", json_array_size(json_object_get(r, "slices")) == 0 ? " none" : "");
	}
	json_decref(r);
	return 0;
}

/* iface's row of an interface (SPP's get_ifaces): what it has and what is left to reserve. */
static void
reservation_row(struct table *t, json_t *o)
{
	char idx[16], a[16], b[16], c[16], d[16], e[16];
	const char *ip6 = json_string_value(json_object_get(o, "ipv6"));

	if (ip6 == NULL || ip6[0] == '\0')
		ip6 = "-";

	table_row(t, json_string_value(json_object_get(o, "name")), num(o, "index", idx, 16),
		  json_string_value(json_object_get(o, "ipv4")),
		  json_string_value(json_object_get(o, "mac")), rate(o, "rate", a, 16),
		  rate(o, "reserved", b, 16), rate(o, "available", c, 16),
		  rate(o, "inbound_reserved", d, 16), rate(o, "inbound_available", e, 16), ip6);
}

/* node's row: how the interface's frames reach the lcores, and why not rte_flow. */
static void
steering_row(struct table *t, json_t *o)
{
	char rxq[16], txq[16], rules[16];
	const char *note = json_string_value(json_object_get(o, "steering_note"));

	table_row(t, json_string_value(json_object_get(o, "name")), num(o, "rx_queues", rxq, 16),
		  num(o, "tx_queues", txq, 16), json_string_value(json_object_get(o, "steering")),
		  num(o, "steering_rules", rules, 16), note != NULL && note[0] != '\0' ? note : "-");
}

/* node's lines under the table: the stored slices against slicepathd, and those not in force. */
static int
replay_status(struct cli *cli)
{
	int status;
	json_t *r = cli_call(cli, SP_M_REPLAY_STATUS, NULL, &status), *o;
	size_t i;

	if (r == NULL)
		return status;
	printf("slices: %" JSON_INTEGER_FORMAT " in force, %" JSON_INTEGER_FORMAT " degraded, %"
	       JSON_INTEGER_FORMAT " absent; slicepathd found other than stored %"
	       JSON_INTEGER_FORMAT " time(s) (the database's restored)\n",
	       json_integer_value(json_object_get(r, "in_force")),
	       json_integer_value(json_object_get(r, "degraded")),
	       json_integer_value(json_object_get(r, "absent")),
	       json_integer_value(json_object_get(r, "divergences")));
	json_array_foreach(json_object_get(r, "not_in_force"), i, o)
		printf("  %s %s: %s\n", json_string_value(json_object_get(o, "slice")),
		       json_string_value(json_object_get(o, "state")),
		       json_string_value(json_object_get(o, "trouble")));
	json_decref(r);
	return 0;
}

/* iface.list as a table of rows: iface's (reservations) or node's (steering). */
static int
ifaces(struct cli *cli, bool steering)
{
	int status;
	json_t *r = cli_call_for_table(cli, SP_M_IFACE_LIST, NULL, &status), *o;
	struct table *t;
	size_t i;

	if (r == NULL)
		return status;
	t = steering ? table_new(6, "IFACE", "RX_QUEUES", "TX_QUEUES", "STEERING", "RULES", "NOTE")
		     : table_new(10, "IFACE", "INDEX", "IPV4", "MAC", "RATE", "RESERVED",
				 "AVAILABLE", "IN_RESERVED", "IN_AVAILABLE", "IPV6");
	json_array_foreach(r, i, o) {
		if (steering)
			steering_row(t, o);
		else
			reservation_row(t, o);
	}
	table_print(t);
	json_decref(r);
	return steering ? replay_status(cli) : 0;
}

/* sched set NPE PORT RATE [overhead BYTES] */
static int
sched(struct cli *cli, int argc, char **argv)
{
	static const char *const keys[] = {"overhead", NULL};
	const char *v[1];
	json_t *p;
	int rc;

	if (argc < 4 || strcmp(argv[0], "set") != 0)
		return cli_usage("usage: slicectl sched set NPE PORT RATE [overhead BYTES]");
	p = json_pack("{s:s}", "port", argv[2]);
	rc = cli_pairs(argc - 4, argv + 4, keys, v);
	if (rc == 0)
		rc = cli_put_uint(p, "npe", argv[1], UINT16_MAX);
	if (rc == 0)
		rc = cli_put_rate(p, "rate", argv[3]);
	if (rc == 0)
		rc = cli_put_uint(p, "overhead", v[0], SP_MAX_OVERHEAD);
	if (rc != 0) {
		json_decref(p);
		return rc;
	}
	return cli_call_and_say(cli, SP_M_SCHED_SET, p, "scheduler set");
}

/* A method with the result printed as JSON (state, channel, call). */
static int
print_result(struct cli *cli, const char *method, json_t *params)
{
	int status;
	json_t *r = cli_call(cli, method, params, &status);

	if (r == NULL)
		return status;
	cli_print_json(r);
	json_decref(r);
	return 0;
}

static int
channel(struct cli *cli, int argc, char **argv)
{
	int status;
	json_t *r;

	if (argc != 1)
		return cli_usage("usage: slicectl channel SLICE");
	r = cli_call(cli, SP_M_EXCEPTION_CHANNEL, json_pack("{s:o}", "slice", cli_slice(argv[0])),
		     &status);
	if (r == NULL)
		return status;
	if (cli->json)
		cli_print_json(r);
	else
		printf("%s\n", json_string_value(json_object_get(r, "path")));
	json_decref(r);
	return 0;
}

/* call METHOD [JSON]: any method, the parameters as one JSON object. */
static int
call(struct cli *cli, int argc, char **argv)
{
	json_error_t je;
	json_t *p = NULL;

	if (argc < 1 || argc > 2)
		return cli_usage("usage: slicectl call METHOD ['{\"param\": value, ...}']");
	if (argc == 2) {
		p = json_loads(argv[1], 0, &je);
		if (!json_is_object(p)) {
			json_decref(p);
			return cli_usage("call: the parameters must be one JSON object%s%s",
					 p == NULL ? ": " : "", p == NULL ? je.text : "");
		}
	}
	return print_result(cli, argv[0], p);
}

int
cmd_node(struct cli *cli, const char *object, int argc, char **argv)
{
	if (strcmp(object, SP_M_WHOAMI) == 0 && argc == 0)
		return whoami(cli);
	if (strcmp(object, "iface") == 0 && (argc == 0 || (argc == 1 &&
							   strcmp(argv[0], "list") == 0)))
		return ifaces(cli, false);
	if (strcmp(object, "node") == 0 && cli->fleet != NULL &&
	    (argc == 0 || (argc == 1 && strcmp(argv[0], "list") == 0)))
		return cmd_fleet_node_list(cli);
	if (strcmp(object, "node") == 0 && argc == 0)
		return ifaces(cli, true);
	if (strcmp(object, "sched") == 0)
		return sched(cli, argc, argv);
	if (strcmp(object, "state") == 0 && argc == 0)
		return print_result(cli, SP_M_STATE_DUMP, NULL);
	if (strcmp(object, "channel") == 0)
		return channel(cli, argc, argv);
	if (strcmp(object, "call") == 0)
		return call(cli, argc, argv);
	return cli_usage("no object or command \"%s%s%s\"; try slicectl --help", object,
			 argc > 0 ? " " : "", argc > 0 ? argv[0] : "");
}
