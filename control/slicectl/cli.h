/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicectl, the command line of the control API (man slicectl): an ip/tc
 * style "slicectl OBJECT COMMAND ARGS", tables for people, -j for JSON.
 * main.c dispatches and connects at the first call (usage and help need no
 * daemon); cmd_*.c implement the objects; args.c reads arguments, table.c
 * prints.
 */
#ifndef SLICECTL_CLI_H
#define SLICECTL_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "ctl_int.h"

/* Exit statuses. */
enum { EXIT_USAGE = 1, EXIT_REFUSED = 2, EXIT_UNREACHABLE = 3 };

struct fleet;

struct cli {
	const char *path; /* -s, or NULL: $SLICECTL_SOCKET or the default */
	struct sp_ctl *ctl; /* connected by the first call */
	struct fleet *fleet; /* --cluster: calls go to the fleet's registry instead */
	bool json; /* -j: print results as JSON */
};

/* A command: argv are its arguments (after OBJECT COMMAND); returns an exit status. */
typedef int (*cli_cmd)(struct cli *cli, int argc, char **argv);

struct cli_command {
	const char *name;
	cli_cmd fn;
	const char *usage; /* its arguments, for messages */
};

/* Call method: the result, or NULL after printing the server's error (*status set). */
json_t *cli_call(struct cli *cli, const char *method, json_t *params, int *status);
/*
 * Call for a result shown as a table: the result, or NULL with *status set,
 * 0 when it was printed as JSON already (-j).
 */
json_t *cli_call_for_table(struct cli *cli, const char *method, json_t *params, int *status);
/* Call and print the result as JSON (-j) or say what was done: an exit status. */
int cli_call_and_say(struct cli *cli, const char *method, json_t *params, const char *said);
/* Print a result as indented JSON. */
void cli_print_json(json_t *result);
/* "residence: p50 0.2 us, p99 1.5 us, p99.9 30.7 us, max 266.0 us (29177 frames sampled)" */
void cli_print_residence(double p50_ns, double p99_ns, double p999_ns, double max_ns,
			 double count);
/* "help", "--help" or "-h": asked for help where a command or argument would be. */
bool cli_is_help(const char *arg);
/* Print help asked for (stdout, no "slicectl: "): 0. */
int cli_help(const char *usage);
/* Print a usage error for a command: EXIT_USAGE. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Keyword arguments ("key value" pairs): values[i] gets the value of
 * keys[i] (NULL if absent). EXIT_USAGE after a message for an unknown key
 * or a missing value, 0 otherwise.
 */
int cli_pairs(int argc, char **argv, const char *const *keys, const char **values);
/* Whole numbers and sizes: 0, or EXIT_USAGE after a message. */
int cli_uint(const char *what, const char *s, uint64_t max, uint64_t *v);
/* Set key of params to the number (or rate: "10M") in s if s is given: 0, or EXIT_USAGE. */
int cli_put_uint(json_t *params, const char *key, const char *s, uint64_t max);
int cli_put_rate(json_t *params, const char *key, const char *s);
/* "a,b,c" as a JSON array of strings; a JSON array of strings as "a, b, c" (one buffer). */
json_t *cli_list(const char *s);
const char *cli_joined(json_t *list);
/* "slice": a name, or an id if all digits. */
json_t *cli_slice(const char *s);

/* A rate for people: "10G", "1.5M", "800". */
const char *cli_fmt_rate(uint64_t bps, char *buf, size_t len);

/*
 * The keys of the counters tables show ("tx_drop_pkts"; as headings
 * TX_DROP_PKTS, "_pps" a rate's), checked against slicepath/counters.h's lists.
 */
#define PORT_KEY(name, unit) SP_COUNTER_KEY(SP_PORT_COUNTER, name, unit)
#define SLICE_KEY(name, unit) SP_COUNTER_KEY(SP_SLICE_COUNTER, name, unit)
#define ENDPOINT_KEY(name, unit) SP_COUNTER_KEY(SP_ENDPOINT_COUNTER, name, unit)
#define QUEUE_KEY(name, unit) SP_COUNTER_KEY(SP_QUEUE_COUNTER, name, unit)
#define QUEUE_LENGTH_KEY(name, unit) SP_COUNTER_KEY(SP_QUEUE_LENGTH, name, unit)

/* A table: rows of cells, printed with aligned columns. */
struct table;
struct table *table_new(unsigned int columns, ...); /* the headings, shown in capitals */
void table_row(struct table *t, ...);               /* as many const char * cells */
void table_print(struct table *t);                  /* and free it */

/* The objects. */
int cmd_node(struct cli *cli, const char *object, int argc, char **argv);
int cmd_slice(struct cli *cli, int argc, char **argv);
int cmd_endpoint(struct cli *cli, int argc, char **argv);
int cmd_queue(struct cli *cli, int argc, char **argv);
int cmd_filter(struct cli *cli, int argc, char **argv);
int cmd_mem(struct cli *cli, int argc, char **argv);
int cmd_codeopt(struct cli *cli, int argc, char **argv);
int cmd_nat(struct cli *cli, int argc, char **argv);
/* cmd_exec.c: exec SLICE -- PROGRAM...: returns only on failure. */
int cmd_exec(struct cli *cli, int argc, char **argv);
/* cmd_watch.c: stats sampled every interval seconds, count times (0: until Ctrl-C); top. */
int cmd_stats_watch(struct cli *cli, const char *slice, double interval, unsigned long count);
int cmd_top(struct cli *cli, int argc, char **argv);
int cmd_stats(struct cli *cli, int argc, char **argv);
/* cmd_missed.c: stats missed SLICE, the slice's last missed keys. */
int cmd_stats_missed(struct cli *cli, int argc, char **argv);
/* cmd_fleet.c (--cluster only): the fleet's slices, a slice on its nodes, the nodes. */
int cmd_fleet_slice_list(struct cli *cli);
int cmd_fleet_slice_status(struct cli *cli, int argc, char **argv);
int cmd_fleet_slice_replace(struct cli *cli, int argc, char **argv);
int cmd_fleet_policy(struct cli *cli, int argc, char **argv);
int cmd_fleet_node_list(struct cli *cli);
/* Run the command argv[0] of an object's table (NULL-terminated), or say what there is. */
int cli_run(struct cli *cli, const char *object, const struct cli_command *cmds, int argc,
	    char **argv);

#endif
