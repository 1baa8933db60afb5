/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /slicepath/... DPDK telemetry commands, so dpdk-telemetry.py and any
 * telemetry client read the node's counters. Callbacks run in DPDK's
 * telemetry thread and only read: counters are summed over lcores on read.
 * Tables the management thread may change are read as an RCU reader, so
 * nothing is freed under a callback. Each command is in the file of what
 * it reads (telemetry_*.c) and registers itself there.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "telemetry_int.h"

/* The commands, as their files register them (SP_TELEMETRY_CMD). */
#define MAX_COMMANDS 32
static struct {
	const char *path;
	telemetry_cb fn;
	const char *help;
} commands[MAX_COMMANDS];
static unsigned int nb_commands;

const struct sp_node *sp_tel_node;
/* DPDK runs a telemetry thread per client; they share one RCU reader id. */
static pthread_mutex_t reader_lock = PTHREAD_MUTEX_INITIALIZER;

void
sp_tel_field(void *d, const char *name, uint64_t value)
{
	rte_tel_data_add_dict_u64(d, name, value);
}

struct rte_tel_data *
sp_tel_new_dict(void)
{
	struct rte_tel_data *c = rte_tel_data_alloc();

	if (c != NULL)
		rte_tel_data_start_dict(c);
	return c;
}

void
sp_tel_add_numbered(struct rte_tel_data *d, unsigned int n, struct rte_tel_data *c)
{
	char name[12]; /* room for any unsigned int, as -Wformat-truncation asks */

	snprintf(name, sizeof(name), "%u", n);
	rte_tel_data_add_dict_container(d, name, c, 0);
}

void
sp_tel_add_ipv4(struct rte_tel_data *d, const char *name, uint32_t ip_be)
{
	const uint8_t *b = (const uint8_t *)&ip_be;
	char s[16];

	snprintf(s, sizeof(s), "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
	rte_tel_data_add_dict_string(d, name, s);
}

void
sp_tel_add_ipv6(struct rte_tel_data *d, const char *name, const uint8_t *ip6)
{
	char s[INET6_ADDRSTRLEN] = "";

	if (ip6 != NULL)
		inet_ntop(AF_INET6, ip6, s, sizeof(s));
	rte_tel_data_add_dict_string(d, name, s);
}

void
sp_tel_add_mac(struct rte_tel_data *d, const char *name, const struct rte_ether_addr *mac)
{
	char s[RTE_ETHER_ADDR_FMT_SIZE];

	rte_ether_format_addr(s, sizeof(s), mac);
	rte_tel_data_add_dict_string(d, name, s);
}

const struct sp_slice *
sp_tel_find_slice(const char *param)
{
	char *end;
	unsigned long id;

	if (param == NULL || *param == '\0')
		return NULL;
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		if (sp_tel_node->slices[i] != NULL && strcmp(sp_tel_node->slices[i]->name, param) == 0)
			return sp_tel_node->slices[i];
	id = strtoul(param, &end, 10);
	return *end == '\0' && id < SP_MAX_SLICES ? sp_tel_node->slices[id] : NULL;
}

void
sp_telemetry_add(const char *path, telemetry_cb fn, const char *help)
{
	RTE_VERIFY(nb_commands < MAX_COMMANDS);
	commands[nb_commands].path = path;
	commands[nb_commands].fn = fn;
	commands[nb_commands].help = help;
	nb_commands++;
}

/* Every command runs here: online as the node's off-lcore RCU reader. */
static int
as_reader(const char *cmd, const char *params, struct rte_tel_data *d)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&reader_lock);
	rte_rcu_qsbr_thread_online(sp_tel_node->qsbr, sp_tel_node->rcu_reader);
	for (unsigned int i = 0; i < nb_commands; i++)
		if (strcmp(cmd, commands[i].path) == 0)
			rc = commands[i].fn(cmd, params, d);
	rte_rcu_qsbr_thread_offline(sp_tel_node->qsbr, sp_tel_node->rcu_reader);
	pthread_mutex_unlock(&reader_lock);
	return rc;
}

int
sp_telemetry_init(const struct sp_node *node)
{
	sp_tel_node = node;
	for (unsigned int i = 0; i < nb_commands; i++) {
		int rc = rte_telemetry_register_cmd(commands[i].path, as_reader, commands[i].help);

		if (rc < 0)
			return rc;
	}
	return 0;
}
