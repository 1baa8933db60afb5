/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicectl: the command line of slicepath's control API (man slicectl).
 *
 *   slicectl [-s SOCKET] [-j] OBJECT [COMMAND] [ARGUMENTS]
 *
 * Exit status: 0 done, 1 bad arguments, 2 slicectld refused (its message
 * is printed), 3 slicectld cannot be reached.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/text.h"
#include "fleet.h"

static const char USAGE[] =
	"usage: slicectl [-s SOCKET | --cluster etcd://HOST:PORT,...] [-j] OBJECT [COMMAND] "
	"[ARGUMENTS]\n"
	"  -s, --socket PATH  slicectld's socket (default $" SP_CTL_SOCKET_ENV " or "
	SP_CTL_DEFAULT_SOCKET ")\n"
	"  --cluster URLS     the fleet's registry in etcd instead (default $SLICEPATH_CLUSTER;\n"
	"                     etcds:// for TLS): slice create|delete|list|status|replace,\n"
	"                     node list, policy [set replace-after SECONDS],\n"
	"                     endpoint reserve|release, queue bind|set|unbind, filter add|del|list\n"
	"  --prefix P, --cacert FILE, --cert FILE, --key FILE, --user USER:PASSWORD\n"
	"                     the registry's prefix (default " FLEET_DEFAULT_PREFIX "), TLS and "
	"etcd's login\n"
	"  -j, --json         print results as JSON\n"
	"  -h, --help         this text;  -V, --version  the version\n"
	"objects (slicectl slice|endpoint|queue|filter help lists their commands):\n"
	"  whoami | iface | node | slice | endpoint | queue | filter | mem | codeopt | stats | top |\n"
	"  sched | state | channel SLICE | nat SLICE | exec SLICE | call METHOD [JSON]\n"
	"  stats [SLICE] [--interval SECONDS] [--count N]   counters, or their rates sampled\n"
	"  stats missed SLICE                                its last missed keys, as filter add\n"
	"                                                    takes them\n"
	"  top [--interval SECONDS] [SLICE...]               rates refreshed in place (q quits)\n"
	"  exec SLICE -- PROGRAM [ARGS...]   (root) run PROGRAM in the host slice's namespace\n"
	"                                    with the LD_PRELOAD shim: its bind()s reserve ports\n";

/* Connect to slicectld, or say why not. */
static bool
connect_ctl(struct cli *cli)
{
	const char *path = cli->path;

	cli->ctl = sp_ctl_open(path);
	if (cli->ctl != NULL)
		return true;
	if (path == NULL)
		path = getenv(SP_CTL_SOCKET_ENV) != NULL ? getenv(SP_CTL_SOCKET_ENV)
							 : SP_CTL_DEFAULT_SOCKET;
	fprintf(stderr, "slicectl: cannot reach slicectld on %s: %s (is it running? -s "
			"gives another socket)\n", path, strerror(errno));
	return false;
}

/* A call to the fleet's registry (--cluster). */
static json_t *
fleet_cli_call(struct cli *cli, const char *method, json_t *params, int *status)
{
	struct sp_rpc_error e = {0};
	json_t *p = params != NULL ? params : json_object();
	json_t *r = fleet_call(cli->fleet, method, p, &e);

	json_decref(p);
	*status = 0;
	if (r != NULL)
		return r;
	fprintf(stderr, "slicectl: %s (code %d)\n", e.message, e.code);
	*status = e.code == SP_RPC_UNAVAILABLE ? EXIT_UNREACHABLE : EXIT_REFUSED;
	return NULL;
}

json_t *
cli_call(struct cli *cli, const char *method, json_t *params, int *status)
{
	json_t *result;
	int rc;

	if (cli->fleet != NULL)
		return fleet_cli_call(cli, method, params, status);
	if (cli->ctl == NULL && !connect_ctl(cli)) {
		json_decref(params);
		*status = EXIT_UNREACHABLE;
		return NULL;
	}
	rc = sp_ctl_call_json(cli->ctl, method, params, &result);
	if (rc == 0) {
		*status = 0;
		return result;
	}
	if (sp_ctl_error_code(cli->ctl) != 0) {
		fprintf(stderr, "slicectl: %s (code %d)\n", sp_ctl_error(cli->ctl),
			sp_ctl_error_code(cli->ctl));
		*status = EXIT_REFUSED;
	} else {
		fprintf(stderr, "slicectl: %s\n", sp_ctl_error(cli->ctl));
		*status = EXIT_UNREACHABLE;
	}
	return NULL;
}

void
cli_print_json(json_t *result)
{
	char *text = json_dumps(result, JSON_INDENT(2) | JSON_ENCODE_ANY);

	if (text != NULL)
		printf("%s\n", text);
	free(text);
}

json_t *
cli_call_for_table(struct cli *cli, const char *method, json_t *params, int *status)
{
	json_t *r = cli_call(cli, method, params, status);

	if (r == NULL || !cli->json)
		return r;
	cli_print_json(r);
	json_decref(r);
	*status = 0;
	return NULL;
}

int
cli_call_and_say(struct cli *cli, const char *method, json_t *params, const char *said)
{
	int status;
	json_t *r = cli_call(cli, method, params, &status);

	if (r == NULL)
		return status;
	if (cli->json)
		cli_print_json(r);
	else
		printf("%s\n", said);
	json_decref(r);
	return 0;
}

/* The objects, each with its command (NULL: cmd_node's, which takes the object's name). */
static const struct {
	const char *name;
	int (*cmd)(struct cli *cli, int argc, char **argv);
} OBJECTS[] = {
	{"slice", cmd_slice}, {"endpoint", cmd_endpoint}, {"queue", cmd_queue},
	{"filter", cmd_filter}, {"mem", cmd_mem}, {"codeopt", cmd_codeopt}, {"top", cmd_top},
	{"stats", cmd_stats}, {"nat", cmd_nat}, {"exec", cmd_exec}, {"policy", cmd_fleet_policy},
	{"whoami", NULL}, {"iface", NULL}, {"node", NULL}, {"sched", NULL}, {"state", NULL},
	{"channel", NULL}, {"call", NULL},
};

#define NB_OBJECTS (sizeof(OBJECTS) / sizeof(OBJECTS[0]))

static int
dispatch(struct cli *cli, int argc, char **argv)
{
	const char *names[NB_OBJECTS], *close;

	for (size_t i = 0; i < NB_OBJECTS; i++) {
		if (strcmp(argv[0], OBJECTS[i].name) != 0)
			continue;
		return OBJECTS[i].cmd != NULL ? OBJECTS[i].cmd(cli, argc - 1, argv + 1)
					      : cmd_node(cli, argv[0], argc - 1, argv + 1);
	}
	for (size_t i = 0; i < NB_OBJECTS; i++)
		names[i] = OBJECTS[i].name;
	close = sp_closest(argv[0], names, NB_OBJECTS);
	return cli_usage("no object \"%s\"%s%s%s; slicectl --help lists them", argv[0],
			 close != NULL ? " (did you mean \"" : "", close != NULL ? close : "",
			 close != NULL ? "\"?)" : "");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},
		{"cluster", required_argument, NULL, 'C'},
		{"prefix", required_argument, NULL, 'P'},
		{"cacert", required_argument, NULL, 'A'},
		{"cert", required_argument, NULL, 'E'},
		{"key", required_argument, NULL, 'K'},
		{"user", required_argument, NULL, 'U'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct cli cli = {0};
	struct etcd_opts eo = {0};
	const char *cluster = getenv("SLICEPATH_CLUSTER"), *prefix = NULL;
	char err[600];
	int opt, rc;

	/* "+": options stop at the object, so "filter add ... key -1" is no option. */
	while ((opt = getopt_long(argc, argv, "+s:jhV", opts, NULL)) != -1) {
		switch (opt) {
		case 's': cli.path = optarg; cluster = NULL; break;
		case 'C': cluster = optarg; break;
		case 'P': prefix = optarg; break;
		case 'A': eo.cacert = optarg; break;
		case 'E': eo.cert = optarg; break;
		case 'K': eo.key = optarg; break;
		case 'U': fleet_split_user(optarg, &eo); break;
		case 'j': cli.json = true; break;
		case 'h': fputs(USAGE, stdout); return 0;
		case 'V': printf("slicectl %s\n", SP_VERSION); return 0;
		default: fputs(USAGE, stderr); return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		fputs(USAGE, stderr);
		return EXIT_USAGE;
	}
	if (optind + 1 == argc && cli_is_help(argv[optind])) {
		fputs(USAGE, stdout);
		return 0;
	}
	if (cluster != NULL && *cluster != '\0') {
		snprintf(eo.urls, sizeof(eo.urls), "%s", cluster);
		cli.fleet = fleet_open(&eo, prefix, err, sizeof(err));
		if (cli.fleet == NULL) {
			fprintf(stderr, "slicectl: %s\n", err);
			return EXIT_USAGE;
		}
	}
	rc = dispatch(&cli, argc - optind, argv + optind);
	if (cli.ctl != NULL)
		sp_ctl_close(cli.ctl);
	fleet_close(cli.fleet);
	return rc;
}
