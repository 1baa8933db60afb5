/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * exec SLICE -- PROGRAM [ARGS...]: run an unmodified program in a host
 * slice, as "ip netns exec" does, with the LD_PRELOAD shim set for the slice
 * (docs/guide-slice-owner.md). slicectl finds the slice's namespace and the
 * shim itself, so that a wrong path cannot leave the program running
 * without it.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define SHIM "libslicectl-preload.so"

/*
 * The shim: beside this slicectl in its build tree (build/control/slicectl/
 * and build/control/libslicectl/), else where it is installed; false, said,
 * if neither is there.
 */
static bool
find_shim(char *path, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		exe[n] = '\0';
		snprintf(path, len, "%s/../libslicectl/" SHIM, dirname(exe));
		if (access(path, R_OK) == 0)
			return true;
	}
	snprintf(path, len, "%s", SP_PRELOAD_PATH);
	if (access(path, R_OK) == 0)
		return true;
	fprintf(stderr, "slicectl: the LD_PRELOAD shim is missing: no %s beside this slicectl "
			"(its build tree) nor %s (installed); build it (ninja -C build) or "
			"install slicepath\n", SHIM, SP_PRELOAD_PATH);
	return false;
}

/*
 * The host slice's name (slice may be its id) and namespace, into name and
 * ns; an exit status after a message if it has none.
 */
static int
slice_netns(struct cli *cli, const char *slice, char *name, char *ns)
{
	int status;
	json_t *r = cli_call(cli, SP_M_SLICE_LIST, NULL, &status), *o = NULL, *host;
	size_t i;

	if (r == NULL)
		return status;
	status = EXIT_REFUSED;
	json_array_foreach(r, i, o) {
		char id[16];

		snprintf(id, sizeof(id), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(o, "id")));
		if (strcmp(slice, json_string_value(json_object_get(o, "name")) ?: "") == 0 ||
		    strcmp(slice, id) == 0)
			break;
	}
	if (i == json_array_size(r))
		o = NULL; /* none matched: o is the last */
	host = json_object_get(o, "host");
	snprintf(name, SP_NAME_LEN, "%s", json_string_value(json_object_get(o, "name")) ?: "");
	if (o == NULL)
		fprintf(stderr, "slicectl: no slice \"%s\" (slicectl slice list lists yours)\n",
			slice);
	else if (host == NULL)
		fprintf(stderr, "slicectl: slice %s is no host slice (codeopt %s): it has no "
				"namespace to run a program in\n", name,
			json_string_value(json_object_get(o, "codeopt")) ?: "unknown");
	else if (strcmp(json_string_value(json_object_get(host, "state")) ?: "", "up") != 0)
		fprintf(stderr, "slicectl: the namespace of slice %s is gone; delete the slice "
				"and make it again\n", name);
	else
		status = snprintf(ns, SP_NETNS_NAME_LEN, "%s",
				  json_string_value(json_object_get(host, "netns")) ?: "") > 0
				 ? 0 : EXIT_REFUSED;
	json_decref(r);
	return status;
}

int
cmd_exec(struct cli *cli, int argc, char **argv)
{
	static const char usage[] = "usage: slicectl exec SLICE -- PROGRAM [ARGS...]  (as root: "
				    "runs PROGRAM in the host slice's namespace, its bind()s "
				    "reserving for the slice)";
	const char *sock = cli->path ?: getenv(SP_CTL_SOCKET_ENV) ?: SP_CTL_DEFAULT_SOCKET;
	char shim[PATH_MAX + 64], name[SP_NAME_LEN], ns[SP_NETNS_NAME_LEN], preload[2 * PATH_MAX], slice[SP_NAME_LEN + 32],
		socket[PATH_MAX + 32];
	const char *old = getenv("LD_PRELOAD");
	int status;

	if (argc == 1 && cli_is_help(argv[0]))
		return cli_help(usage);
	if (argc < 3 || strcmp(argv[1], "--") != 0)
		return cli_usage("%s", usage);
	if (cli->fleet != NULL)
		return cli_usage("exec runs a program on this node: not with --cluster");
	if (geteuid() != 0)
		return cli_usage("exec enters the slice's namespace, which needs root: sudo slicectl "
				 "exec %s -- setpriv --reuid USER ... PROGRAM runs it as USER",
				 argv[0]);
	status = slice_netns(cli, argv[0], name, ns);
	if (status != 0)
		return status;
	if (!find_shim(shim, sizeof(shim)))
		return EXIT_USAGE;
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s%s%s", shim, old != NULL && *old ? " " : "",
		 old != NULL ? old : "");
	snprintf(slice, sizeof(slice), "SLICEPATH_SLICE=%s", name);
	snprintf(socket, sizeof(socket), "%s=%s", SP_CTL_SOCKET_ENV, sock);
	/* ip netns exec as it is (mounts, /etc/netns/NS), then env: ip runs without the shim. */
	{
		char *args[argc + 9];
		int n = 0;

		args[n++] = "ip";
		args[n++] = "netns";
		args[n++] = "exec";
		args[n++] = ns;
		args[n++] = "env";
		args[n++] = "--";
		args[n++] = preload;
		args[n++] = slice;
		args[n++] = socket;
		for (int i = 2; i < argc; i++)
			args[n++] = argv[i];
		args[n] = NULL;
		execvp("ip", args);
	}
	fprintf(stderr, "slicectl: cannot run ip (iproute2): %s\n", strerror(errno));
	return EXIT_USAGE;
}
