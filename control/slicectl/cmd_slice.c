/* SPDX-License-Identifier: BSD-3-Clause */
/* slice, endpoint and queue: a slice and what it sends through. */
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fleet.h"

static const char *
num(json_t *o, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL)
		return "-";
	snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	return buf;
}

/* The owner's user name where this machine knows the uid, else the uid. */
static const char *
owner(json_t *o, char *buf, size_t len)
{
	json_t *v = json_object_get(o, "owner");
	const struct passwd *pw = v != NULL ? getpwuid((uid_t)json_integer_value(v)) : NULL;

	if (pw == NULL)
		return num(o, "owner", buf, len);
	snprintf(buf, len, "%s", pw->pw_name);
	return buf;
}

static const char *
rate(json_t *o, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(o, key);

	return v == NULL ? "-" : cli_fmt_rate((uint64_t)json_integer_value(v), buf, len);
}

/* ---------------------------------------------------------------- slice */

#define SLICE_CREATE_ARGS                                                                          \
	"NAME codeopt CODEOPT [owner USER] [npe N] [filters N] [queues N] [buffers N] "            \
	"[memory BYTES] [bandwidth RATE] [inbound RATE] [netns NS] [nat PORTS] "                  \
	"[nodes N|NODE,NODE... (--cluster)]"

/*
 * slice create NAME codeopt CO [owner USER] [npe N] [filters N] [queues N] [buffers N] ...
 * [netns NS] [nat N]: a host slice (codeopt host) runs in namespace NS, made if missing.
 */
static int
slice_create(struct cli *cli, int argc, char **argv)
{
	static const char *const keys[] = {"codeopt", "owner", "npe", "filters", "queues",
					   "buffers", "memory", "bandwidth", "inbound", "netns",
					   "nat", "nodes", NULL};
	const char *v[12];
	json_t *p, *r;
	int rc;

	if (argc < 1)
		return cli_usage("usage: slicectl slice create %s", SLICE_CREATE_ARGS);
	rc = cli_pairs(argc - 1, argv + 1, keys, v);
	if (rc != 0)
		return rc;
	if (v[0] == NULL)
		return cli_usage("slice create: give the code option: codeopt ipv4 (or another "
				 "the node has)");
	p = json_pack("{s:s, s:s}", "name", argv[0], "codeopt", v[0]);
	if (v[1] != NULL)
		json_object_set_new(p, "owner", cli_slice(v[1])); /* a uid if all digits */
	rc = cli_put_uint(p, "npe", v[2], UINT16_MAX);
	rc = rc != 0 ? rc : cli_put_uint(p, "filter_quota", v[3], SP_MAX_FILTER_QUOTA);
	rc = rc != 0 ? rc : cli_put_uint(p, "queue_quota", v[4], SP_MAX_SLICE_QUEUES);
	rc = rc != 0 ? rc : cli_put_uint(p, "buffer_quota", v[5], SP_MAX_BUFFER_QUOTA);
	rc = rc != 0 ? rc : cli_put_uint(p, "memory", v[6], SP_MAX_MEMORY);
	rc = rc != 0 ? rc : cli_put_rate(p, "bandwidth", v[7]);
	rc = rc != 0 ? rc : cli_put_rate(p, "inbound", v[8]);
	rc = rc != 0 ? rc : cli_put_uint(p, "nat_ports", v[10], SP_MAX_NAT_PORTS);
	if (v[9] != NULL) {
		/* The namespace is made if missing, and goes with the slice then. */
		json_object_set_new(p, "netns", json_string(v[9]));
		json_object_set_new(p, "create_netns", json_true());
	}
	if (rc == 0 && v[11] != NULL) /* a count, or names */
		rc = strspn(v[11], "0123456789") == strlen(v[11])
			     ? cli_put_uint(p, "nodes", v[11], FLEET_MAX_NODES)
			     : (json_object_set_new(p, "nodes", cli_list(v[11])), 0);
	if (rc != 0) {
		json_decref(p);
		return rc;
	}
	r = cli_call(cli, SP_M_SLICE_CREATE, p, &rc);
	if (r == NULL)
		return rc;
	if (cli->json)
		cli_print_json(r);
	else if (cli->fleet != NULL)
		printf("slice %s created in the fleet on %s\n", argv[0], cli_joined(json_object_get(r, "nodes")));
	else
		printf("slice %s created: id %" JSON_INTEGER_FORMAT ", NPE %" JSON_INTEGER_FORMAT
		       ", %" JSON_INTEGER_FORMAT " packet buffers, exception channel %s\n", argv[0],
		       json_integer_value(json_object_get(r, "id")),
		       json_integer_value(json_object_get(r, "npe")),
		       json_integer_value(json_object_get(r, "buffer_quota")),
		       json_string_value(json_object_get(r, "channel")));
	json_decref(r);
	return 0;
}

static int
slice_delete(struct cli *cli, int argc, char **argv)
{
	char said[128];

	if (argc != 1)
		return cli_usage("usage: slicectl slice delete SLICE");
	snprintf(said, sizeof(said), "slice %s deleted", argv[0]);
	return cli_call_and_say(cli, SP_M_SLICE_DELETE, json_pack("{s:o}", "slice",
							       cli_slice(argv[0])), said);
}

/* slice move SLICE npe N */
static int
slice_move(struct cli *cli, int argc, char **argv)
{
	json_t *p;
	char said[128];
	int rc;

	if (argc != 3 || strcmp(argv[1], "npe") != 0)
		return cli_usage("usage: slicectl slice move SLICE npe N");
	p = json_pack("{s:o}", "slice", cli_slice(argv[0]));
	rc = cli_put_uint(p, "npe", argv[2], UINT16_MAX);
	if (rc != 0) {
		json_decref(p);
		return rc;
	}
	snprintf(said, sizeof(said), "slice %s moved to NPE %s", argv[0], argv[2]);
	return cli_call_and_say(cli, SP_M_SLICE_MOVE, p, said);
}

/* "config", "in force", or its state ("degraded", "absent") and why. */
static const char *
slice_state(json_t *o, char *buf, size_t len)
{
	if (!json_is_true(json_object_get(o, "managed")))
		return "config";
	if (!json_is_false(json_object_get(o, "in_force")))
		return "in force";
	snprintf(buf, len, "%s: %s", json_string_value(json_object_get(o, "state")) ?: "absent",
		 json_string_value(json_object_get(o, "trouble")) ?: "");
	return buf;
}

static int
slice_list(struct cli *cli, int argc, char **argv)
{
	int status;
	json_t *r, *o;
	struct table *t;
	size_t i;

	(void)argv;
	if (argc != 0)
		return cli_usage("usage: slicectl slice list");
	if (cli->fleet != NULL)
		return cmd_fleet_slice_list(cli);
	r = cli_call_for_table(cli, SP_M_SLICE_LIST, NULL, &status);
	if (r == NULL)
		return status;
	t = table_new(14, "SLICE", "ID", "OWNER", "CODEOPT", "NPE", "FILTERS", "QUEUES", "BUFFERS",
		      "MEMORY", "BANDWIDTH", "RESERVED", "INBOUND", "IN_RESERVED", "STATE");
	json_array_foreach(r, i, o) {
		char b[11][24], state[1100];

		table_row(t, json_string_value(json_object_get(o, "name")), num(o, "id", b[0], 24),
			  owner(o, b[1], 24), json_string_value(json_object_get(o, "codeopt")),
			  num(o, "npe", b[2], 24), num(o, "filter_quota", b[3], 24),
			  num(o, "queue_quota", b[4], 24), num(o, "buffer_quota", b[5], 24),
			  num(o, "memory", b[6], 24), rate(o, "bandwidth", b[7], 24),
			  rate(o, "reserved", b[8], 24), rate(o, "inbound", b[9], 24),
			  rate(o, "inbound_reserved", b[10], 24), slice_state(o, state, sizeof(state)));
	}
	table_print(t);
	json_decref(r);
	return 0;
}

int
cmd_slice(struct cli *cli, int argc, char **argv)
{
	static const struct cli_command cmds[] = {
		{"list", slice_list, ""},
		{"create", slice_create, SLICE_CREATE_ARGS},
		{"delete", slice_delete, "SLICE"},
		{"move", slice_move, "SLICE npe N"},
		{"status", cmd_fleet_slice_status, "SLICE (--cluster)"},
		{"replace", cmd_fleet_slice_replace, "SLICE NODE (--cluster)"},
		{NULL, NULL, NULL},
	};

	return cli_run(cli, "slice", cmds, argc, argv);
}

/* ---------------------------------------------------------------- endpoint */

/* endpoint reserve SLICE port PORT [udp UDP | tcp TCP] [bandwidth RATE] [inbound RATE] */
static int
endpoint_reserve(struct cli *cli, int argc, char **argv)
{
	static const char *const keys[] = {"port", "udp", "bandwidth", "inbound", "tcp", NULL};
	const char *v[5];
	int rc, status;
	json_t *p, *r;

	if (argc < 1)
		return cli_usage("usage: slicectl endpoint reserve SLICE port PORT [udp UDP | tcp TCP] "
				 "[bandwidth RATE] [inbound RATE]");
	rc = cli_pairs(argc - 1, argv + 1, keys, v);
	if (rc != 0)
		return rc;
	if (v[0] == NULL)
		return cli_usage("endpoint reserve: give the interface: port NAME (slicectl iface "
				 "lists them)");
	p = json_pack("{s:o, s:s}", "slice", cli_slice(argv[0]), "port", v[0]);
	rc = cli_put_uint(p, v[4] != NULL ? "tcp_port" : "udp_port", v[4] != NULL ? v[4] : v[1],
			  UINT16_MAX);
	rc = rc != 0 ? rc : cli_put_rate(p, "bandwidth", v[2]);
	rc = rc != 0 ? rc : cli_put_rate(p, "inbound", v[3]);
	if (rc != 0) {
		json_decref(p);
		return rc;
	}
	r = cli_call(cli, SP_M_ENDPOINT_RESERVE, p, &status);
	if (r == NULL)
		return status;
	if (cli->json)
		cli_print_json(r);
	else
		printf("endpoint %" JSON_INTEGER_FORMAT ": %s port %" JSON_INTEGER_FORMAT " on %s\n",
		       json_integer_value(json_object_get(r, "endpoint")), v[4] != NULL ? "TCP" : "UDP",
		       json_integer_value(json_object_get(r, v[4] != NULL ? "tcp_port" : "udp_port")),
		       v[0]);
	json_decref(r);
	return 0;
}

/* "slicectl OBJECT COMMAND SLICE INDEX": method on one item (an endpoint, a queue) of a slice. */
static int
on_item(struct cli *cli, int argc, char **argv, const char *object, const char *command,
	const char *method, const char *done)
{
	char said[128];
	json_t *p;

	if (argc != 2)
		return cli_usage("usage: slicectl %s %s SLICE %s", object, command,
				 strcmp(object, "queue") == 0 ? "QUEUE" : "ENDPOINT");
	p = json_pack("{s:o}", "slice", cli_slice(argv[0]));
	if (cli_put_uint(p, object, argv[1], UINT16_MAX) != 0) {
		json_decref(p);
		return EXIT_USAGE;
	}
	snprintf(said, sizeof(said), "%s %s of slice %s %s", object, argv[1], argv[0], done);
	return cli_call_and_say(cli, method, p, said);
}

static int
endpoint_release(struct cli *cli, int argc, char **argv)
{
	return on_item(cli, argc, argv, "endpoint", "release", SP_M_ENDPOINT_RELEASE, "released");
}

/* The slice's stats.get answer, for the endpoint and queue lists. */
static json_t *
slice_stats(struct cli *cli, int argc, char **argv, const char *usage, int *status)
{
	if (argc != 1) {
		*status = cli_usage("usage: slicectl %s SLICE", usage);
		return NULL;
	}
	return cli_call(cli, SP_M_STATS_GET, json_pack("{s:o}", "slice", cli_slice(argv[0])), status);
}

static int
endpoint_list(struct cli *cli, int argc, char **argv)
{
	int status;
	json_t *r = slice_stats(cli, argc, argv, "endpoint list", &status), *eps, *o;
	struct table *t;
	size_t i;

	if (r == NULL)
		return status;
	eps = json_object_get(r, "endpoints");
	if (cli->json) {
		cli_print_json(eps);
		json_decref(r);
		return 0;
	}
	t = table_new(9, "ENDPOINT", "IFACE", "PORT", "BANDWIDTH", "INBOUND",
		      ENDPOINT_KEY(rx, "_pkts"), ENDPOINT_KEY(rx, "_bytes"),
		      ENDPOINT_KEY(tx, "_pkts"), ENDPOINT_KEY(tx, "_bytes"));
	json_array_foreach(eps, i, o) {
		bool tcp = json_object_get(o, "tcp_port") != NULL;
		char b[8][24];

		/* As /etc/services writes them: 5001/udp, 8080/tcp. */
		snprintf(b[1], 24, "%" JSON_INTEGER_FORMAT "/%s",
			 json_integer_value(json_object_get(o, tcp ? "tcp_port" : "udp_port")),
			 tcp ? "tcp" : "udp");
		table_row(t, num(o, "index", b[0], 24), json_string_value(json_object_get(o, "port")),
			  b[1], rate(o, "bandwidth", b[2], 24),
			  rate(o, "inbound", b[7], 24), num(o, ENDPOINT_KEY(rx, "_pkts"), b[3], 24),
			  num(o, ENDPOINT_KEY(rx, "_bytes"), b[4], 24),
			  num(o, ENDPOINT_KEY(tx, "_pkts"), b[5], 24),
			  num(o, ENDPOINT_KEY(tx, "_bytes"), b[6], 24));
	}
	table_print(t);
	json_decref(r);
	return 0;
}

int
cmd_endpoint(struct cli *cli, int argc, char **argv)
{
	static const struct cli_command cmds[] = {
		{"list", endpoint_list, "SLICE"},
		{"reserve", endpoint_reserve,
		 "SLICE port PORT [udp UDP] [bandwidth RATE] [inbound RATE]"},
		{"release", endpoint_release, "SLICE ENDPOINT"},
		{NULL, NULL, NULL},
	};

	return cli_run(cli, "endpoint", cmds, argc, argv);
}

/* ---------------------------------------------------------------- queue */

/* queue bind|set SLICE QUEUE [endpoint EP] [threshold BYTES] [packets N] [share RATE] */
static int
queue_change(struct cli *cli, int argc, char **argv, bool bind)
{
	static const char *const keys[] = {"endpoint", "threshold", "packets", "share", NULL};
	const char *v[4];
	int rc, status;
	json_t *p, *r;

	if (argc < 2)
		return cli_usage("usage: slicectl queue %s SLICE QUEUE %s[threshold BYTES] "
				 "[packets N] [share RATE]", bind ? "bind" : "set",
				 bind ? "endpoint ENDPOINT " : "");
	rc = cli_pairs(argc - 2, argv + 2, keys, v);
	if (rc != 0)
		return rc;
	if (bind && v[0] == NULL)
		return cli_usage("queue bind: give the endpoint it sends from: endpoint INDEX");
	if (!bind && v[0] != NULL)
		return cli_usage("queue set: a queue keeps its endpoint; unbind and bind it to move "
				 "it");
	p = json_pack("{s:o}", "slice", cli_slice(argv[0]));
	rc = cli_put_uint(p, "queue", argv[1], UINT16_MAX);
	rc = rc != 0 ? rc : cli_put_uint(p, "endpoint", v[0], UINT16_MAX);
	rc = rc != 0 ? rc : cli_put_uint(p, "threshold", v[1], UINT32_MAX);
	rc = rc != 0 ? rc : cli_put_uint(p, "threshold_packets", v[2], UINT32_MAX);
	rc = rc != 0 ? rc : cli_put_rate(p, "share", v[3]);
	if (rc != 0) {
		json_decref(p);
		return rc;
	}
	r = cli_call(cli, bind ? SP_M_QUEUE_BIND : SP_M_QUEUE_SET, p, &status);
	if (r == NULL)
		return status;
	if (cli->json) {
		cli_print_json(r);
	} else {
		json_t *q = json_object_get(r, "queue");
		char share[24];

		printf("queue %s of slice %s: endpoint %" JSON_INTEGER_FORMAT ", share %s bit/s, "
		       "threshold %" JSON_INTEGER_FORMAT " bytes and %" JSON_INTEGER_FORMAT
		       " packets\n", argv[1], argv[0], json_integer_value(json_object_get(q,
		       "endpoint")), rate(q, "share", share, sizeof(share)),
		       json_integer_value(json_object_get(q, "threshold")),
		       json_integer_value(json_object_get(q, "threshold_packets")));
	}
	json_decref(r);
	return 0;
}

static int
queue_bind(struct cli *cli, int argc, char **argv)
{
	return queue_change(cli, argc, argv, true);
}

static int
queue_set(struct cli *cli, int argc, char **argv)
{
	return queue_change(cli, argc, argv, false);
}

static int
queue_unbind(struct cli *cli, int argc, char **argv)
{
	return on_item(cli, argc, argv, "queue", "unbind", SP_M_QUEUE_UNBIND, "unbound");
}

/* Every drop of a queue, whatever the reason. */
static uint64_t
queue_drops(json_t *q)
{
	const char *reason;
	json_t *d;
	uint64_t sum = 0;

	json_object_foreach(json_object_get(q, "drops"), reason, d)
		sum += (uint64_t)json_integer_value(json_object_get(d, "pkts"));
	return sum;
}

static int
queue_list(struct cli *cli, int argc, char **argv)
{
	int status;
	json_t *r = slice_stats(cli, argc, argv, "queue list", &status), *qs, *o;
	struct table *t;
	const char *id;

	if (r == NULL)
		return status;
	qs = json_object_get(r, "queues");
	if (cli->json) {
		cli_print_json(qs);
		json_decref(r);
		return 0;
	}
	t = table_new(10, "QUEUE", "ENDPOINT", "IFACE", "SHARE", "THRESHOLD",
		      QUEUE_KEY(enq, "_pkts"), QUEUE_KEY(sent, "_pkts"), SP_QUEUE_DROP "_pkts",
		      QUEUE_LENGTH_KEY(len, "_pkts"), QUEUE_LENGTH_KEY(len, "_bytes"));
	json_object_foreach(qs, id, o) {
		char b[8][24];

		snprintf(b[7], 24, "%" PRIu64, queue_drops(o));
		table_row(t, id, num(o, "endpoint", b[0], 24),
			  json_string_value(json_object_get(o, "port")), rate(o, "share", b[1], 24),
			  num(o, "threshold", b[2], 24), num(o, QUEUE_KEY(enq, "_pkts"), b[3], 24),
			  num(o, QUEUE_KEY(sent, "_pkts"), b[4], 24), b[7],
			  num(o, QUEUE_LENGTH_KEY(len, "_pkts"), b[5], 24),
			  num(o, QUEUE_LENGTH_KEY(len, "_bytes"), b[6], 24));
	}
	table_print(t);
	json_decref(r);
	return 0;
}

int
cmd_queue(struct cli *cli, int argc, char **argv)
{
	static const struct cli_command cmds[] = {
		{"list", queue_list, "SLICE"},
		{"bind", queue_bind, "SLICE QUEUE endpoint ENDPOINT [threshold BYTES] [packets N] "
				     "[share RATE]"},
		{"set", queue_set, "SLICE QUEUE [threshold BYTES] [packets N] [share RATE]"},
		{"unbind", queue_unbind, "SLICE QUEUE"},
		{NULL, NULL, NULL},
	};

	return cli_run(cli, "queue", cmds, argc, argv);
}
