/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepathd configuration: JSON (jansson) into struct sp_config.
 *
 * One pass over the JSON tree. Every field is read through a few typed
 * helpers (config_read.c: cfg_get_uint, cfg_get_string, ...) that know the
 * field's JSON path and write the one-line error message; the section
 * parsers (here: the top level, ports, neighbors, NPEs, lcores;
 * config_slices.c: slices) add only the rules that tie fields together
 * (uniqueness, references, quotas). The format is documented in
 * docs/config.md: keep both in step.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_config.h>

#include "config_read.h"

static const struct uint_spec MBUFS = OPT("mbufs", 1024, 64 * MIB, 16384);
static const struct uint_spec RX_DESC = { "rx_desc", 64, 16384, 1024, false, .pow2 = true };
static const struct uint_spec TX_DESC = { "tx_desc", 64, 16384, 1024, false, .pow2 = true };
static const struct uint_spec OVERHEAD = OPT("overhead", 0, SP_MAX_OVERHEAD, SP_DEFAULT_OVERHEAD);
static const struct uint_spec RX_QUEUES = OPT("rx_queues", 1, SP_MAX_PORT_RXQ, 0);
static const struct uint_spec NPE_FILTERS = OPT("filters", 1, MIB, SP_DEFAULT_NPE_FILTERS);
static const struct uint_spec NPE_QUEUES = OPT("queues", 1, MIB, 65536);
static const struct uint_spec LCORE_ID = REQ("id", 1, RTE_MAX_LCORE - 1);
/* Host slices' NAT (src/hostslice/nat.h): the numbers slices' ranges come from, idle timeouts in s. */
static const struct uint_spec NAT_FIRST = OPT("first", 1024, 65535, 61000);
static const struct uint_spec NAT_LAST = OPT("last", 1024, 65535, 65535);
static const struct uint_spec NAT_TCP_ESTABLISHED = OPT("tcp_established", 1, 86400 * 7, 7440);
static const struct uint_spec NAT_TCP_TRANSITORY = OPT("tcp_transitory", 1, 86400, 240);
static const struct uint_spec NAT_TCP_CLOSED = OPT("tcp_closed", 1, 86400, 10);
static const struct uint_spec NAT_UDP = OPT("udp", 1, 86400, 120);
static const struct uint_spec NAT_ICMP = OPT("icmp", 1, 86400, 60);
/* An element of an lcore's "npes" list (checked against the NPE count). */
static const struct uint_spec NPE_INDEX = OPT(NULL, 0, UINT16_MAX, 0);

/* ------------------------------------------------------------------ */
/* Sections                                                            */
/* ------------------------------------------------------------------ */

/* A top-level array of nonempty strings; store() keeps entry i. */
static int
parse_strings(struct parser *p, json_t *root, const char *key, size_t max, size_t maxlen,
	      int (*store)(struct sp_config *cfg, size_t i, const char *s))
{
	char path[PATH_LEN];
	json_t *arr, *v;
	const char *s;
	size_t i;

	TRY(cfg_get_array(p, root, "", key, false, 0, max, &arr));
	json_array_foreach(arr, i, v) {
		cfg_item_path(path, "", key, i);
		TRY(cfg_string_value(p, v, path, NULL, maxlen, &s));
		if (store(p->cfg, i, s) < 0)
			return cfg_out_of_memory(p, path);
	}
	return 0;
}

static int
store_eal_arg(struct sp_config *cfg, size_t i, const char *s)
{
	cfg->eal_argv[i] = strdup(s);
	if (cfg->eal_argv[i] == NULL)
		return -ENOMEM;
	cfg->eal_argc = (int)i + 1;
	return 0;
}

static int
store_codeopt_lib(struct sp_config *cfg, size_t i, const char *s)
{
	memcpy(cfg->codeopt_libs[i], s, strlen(s) + 1);
	cfg->nb_codeopt_libs = (uint16_t)(i + 1);
	return 0;
}

static const char *const PORT_KEYS[] = {
	"name", "device", "ipv4", "ipv6", "mac", "rate", "rx_desc", "tx_desc", "overhead", "steering",
	"rx_queues", "host", NULL,
};

/* "steering"'s words, in the order of enum sp_steering. */
static const char *const STEERINGS[] = { "auto", "rte_flow", "software", NULL };

static int
parse_steering(struct parser *p, json_t *o, const char *path, enum sp_steering *out)
{
	const char *s;
	int rc = cfg_get_string(p, o, path, "steering", false, SIZE_MAX, &s);

	*out = SP_STEERING_AUTO;
	if (rc <= 0)
		return rc;
	for (unsigned int i = 0; STEERINGS[i] != NULL; i++) {
		if (strcmp(s, STEERINGS[i]) == 0) {
			*out = (enum sp_steering)i;
			return 0;
		}
	}
	return cfg_fail(p, path, "steering", "\"%s\" is not a way of steering; use \"auto\" "
		        "(rte_flow rules where the device takes them), \"rte_flow\" or "
		        "\"software\"", s);
}

/* "host": a Linux interface name the node creates for the port's host path. */
static int
parse_host(struct parser *p, json_t *o, const char *path, char *out)
{
	const char *s;
	int rc = cfg_get_string(p, o, path, "host", false, SP_IFNAME_LEN, &s);

	if (rc <= 0)
		return rc;
	for (const char *c = s; *c != '\0'; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			return cfg_fail(p, path, "host", "\"%s\" is no interface name: use "
				        "letters, digits, '-', '_' and '.'", s);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

static int
parse_port(struct parser *p, json_t *o, const char *path, struct sp_cfg_port *port)
{
	uint64_t v;

	TRY(cfg_check_object(p, o, path, PORT_KEYS));
	TRY(cfg_get_name(p, o, path, "name", port->name));
	TRY(cfg_get_text(p, o, path, "device", port->device, sizeof(port->device)));
	TRY(cfg_get_ipv4(p, o, path, "ipv4", &port->ipv4));
	TRY(cfg_get_ipv6(p, o, path, "ipv6", port->ipv6, &port->has_ipv6));
	TRY(cfg_get_mac(p, o, path, "mac", false, port->mac, &port->has_mac));
	TRY(cfg_get_sched_rate(p, o, path, "rate", UINT64_C(10000000000), &port->rate_bps));
	TRY(cfg_get_uint(p, o, path, &RX_DESC, &v));
	port->rx_desc = (uint16_t)v;
	TRY(cfg_get_uint(p, o, path, &TX_DESC, &v));
	port->tx_desc = (uint16_t)v;
	TRY(cfg_get_uint(p, o, path, &OVERHEAD, &v));
	port->overhead = (uint16_t)v;
	TRY(cfg_get_uint(p, o, path, &RX_QUEUES, &v));
	port->rx_queues = (uint16_t)v;
	TRY(parse_host(p, o, path, port->host));
	return parse_steering(p, o, path, &port->steering);
}

/* Port i against the ports before it. */

/* The device is named by the devargs up to the first comma ("net_pcap0",
 * "0000:3b:00.0"); the arguments after it do not make another device. */
static bool
same_device(const char *a, const char *b)
{
	size_t la = strcspn(a, ","), lb = strcspn(b, ",");

	return la == lb && strncmp(a, b, la) == 0;
}

static int
check_port_unique(struct parser *p, const char *path, uint16_t i)
{
	const struct sp_cfg_port *a = &p->cfg->ports[i];

	for (uint16_t j = 0; j < i; j++) {
		const struct sp_cfg_port *b = &p->cfg->ports[j];
		char ip[INET6_ADDRSTRLEN];

		if (strcmp(a->name, b->name) == 0)
			return cfg_fail(p, path, "name", "\"%s\" is already the name of ports[%u]; "
				        "give each port its own name", a->name, j);
		if (same_device(a->device, b->device))
			return cfg_fail(p, path, "device", "\"%s\" names the device of ports[%u] "
				        "(%s) again; each device can be opened once", a->device, j,
				        b->name);
		if (a->ipv4 == b->ipv4)
			return cfg_fail(p, path, "ipv4", "%s is already the address of ports[%u] (%s); "
				        "give each port its own address",
				        inet_ntop(AF_INET, &a->ipv4, ip, sizeof(ip)), j, b->name);
		if (a->has_ipv6 && b->has_ipv6 && memcmp(a->ipv6, b->ipv6, sizeof(a->ipv6)) == 0)
			return cfg_fail(p, path, "ipv6", "%s is already the address of ports[%u] (%s); "
				        "give each port its own address",
				        inet_ntop(AF_INET6, a->ipv6, ip, sizeof(ip)), j, b->name);
	}
	return 0;
}

static int
parse_ports(struct parser *p, json_t *root)
{
	struct sp_config *cfg = p->cfg;
	uint64_t descs = 0;
	char path[PATH_LEN];
	json_t *arr, *o;
	size_t i;

	TRY(cfg_get_array(p, root, "", "ports", true, 1, SP_MAX_PORTS, &arr));
	json_array_foreach(arr, i, o) {
		cfg_item_path(path, "", "ports", i);
		TRY(parse_port(p, o, path, &cfg->ports[i]));
		cfg->nb_ports = (uint16_t)(i + 1);
		TRY(check_port_unique(p, path, (uint16_t)i));
		descs += cfg->ports[i].rx_desc + cfg->ports[i].tx_desc;
	}
	/* Rings full of buffers leave none to receive into: the port stalls. */
	if (cfg->mbufs <= descs)
		return cfg_fail(p, "", "mbufs", "%u packet buffers cannot even fill the rx and tx "
			        "rings of the ports (%" PRIu64 " descriptors); raise mbufs above %"
			        PRIu64 " or lower rx_desc/tx_desc", cfg->mbufs, descs, descs);
	return 0;
}

static const char *const NEIGHBOR_KEYS[] = { "port", "ipv4", "ipv6", "mac", NULL };

/* A neighbor's one address: "ipv4", or "ipv6" on a port with an IPv6 address to reach it from. */
static int
parse_neighbor_ip(struct parser *p, json_t *o, const char *path, struct sp_cfg_neighbor *n)
{
	const struct sp_cfg_port *port = &p->cfg->ports[n->port];
	uint8_t ip6[16];
	uint32_t ip_be;
	bool has_ip6;

	TRY(cfg_get_ipv6(p, o, path, "ipv6", ip6, &has_ip6));
	if (!has_ip6) {
		TRY(cfg_get_ipv4(p, o, path, "ipv4", &ip_be));
		n->ip = sp_ip_v4(ip_be);
		return 0;
	}
	if (json_object_get(o, "ipv4") != NULL)
		return cfg_fail(p, path, "ipv6", "a neighbor has one address; give ipv4 and ipv6 "
			        "neighbors an entry each");
	if (!port->has_ipv6)
		return cfg_fail(p, path, "ipv6", "port %s has no ipv6 address to reach an IPv6 "
			        "neighbor from; give the port one", port->name);
	n->ip = sp_ip_v6(ip6);
	return 0;
}

/* Whether a is one of the ports' own addresses: a neighbor is another node. */
static const struct sp_cfg_port *
port_with_address(const struct sp_config *cfg, const struct sp_ip *a)
{
	for (uint16_t j = 0; j < cfg->nb_ports; j++) {
		const struct sp_cfg_port *port = &cfg->ports[j];

		if (sp_ip_is_v4(a) ? port->ipv4 == sp_ip_to_v4(a) :
		    port->has_ipv6 && memcmp(port->ipv6, a->b, sizeof(port->ipv6)) == 0)
			return port;
	}
	return NULL;
}

static int
parse_neighbor(struct parser *p, json_t *o, const char *path, uint16_t i)
{
	struct sp_config *cfg = p->cfg;
	struct sp_cfg_neighbor *n = &cfg->neighbors[i];
	const struct sp_cfg_port *own;
	const char *key;
	char ip[SP_IP_STR_LEN];
	bool has_mac;

	TRY(cfg_check_object(p, o, path, NEIGHBOR_KEYS));
	TRY(cfg_get_port_ref(p, o, path, "port", &n->port));
	TRY(parse_neighbor_ip(p, o, path, n));
	TRY(cfg_get_mac(p, o, path, "mac", true, n->mac, &has_mac));
	sp_format_ip(&n->ip, ip, sizeof(ip));
	key = sp_ip_is_v4(&n->ip) ? "ipv4" : "ipv6";
	own = port_with_address(cfg, &n->ip);
	if (own != NULL)
		return cfg_fail(p, path, key, "%s is the address of port %s; a neighbor is "
			        "another node, so use its address", ip, own->name);
	for (uint16_t j = 0; j < i; j++)
		if (cfg->neighbors[j].port == n->port && sp_ip_equal(&cfg->neighbors[j].ip, &n->ip))
			return cfg_fail(p, path, key, "%s on port %s is already in neighbors[%u]; "
				        "keep one entry", ip, cfg->ports[n->port].name, j);
	return 0;
}

static int
parse_neighbors(struct parser *p, json_t *root)
{
	char path[PATH_LEN];
	json_t *arr, *o;
	size_t i;

	TRY(cfg_get_array(p, root, "", "neighbors", false, 0, SP_MAX_NEIGHBORS, &arr));
	json_array_foreach(arr, i, o) {
		cfg_item_path(path, "", "neighbors", i);
		TRY(parse_neighbor(p, o, path, (uint16_t)i));
		p->cfg->nb_neighbors = (uint16_t)(i + 1);
	}
	return 0;
}

static const char *const NPE_KEYS[] = { "filters", "queues", "rates", NULL };

/* npes[i].rates: a rate per port name; rate_bps stays 0 for the ports it leaves out. */
static int
parse_npe_rates(struct parser *p, json_t *o, const char *npath, struct sp_cfg_npe *npe)
{
	json_t *rates = json_object_get(o, "rates"), *v;
	char path[PATH_LEN], names[SP_MAX_PORTS * (SP_NAME_LEN + 2)];
	const char *name;

	if (rates == NULL)
		return 0;
	if (!json_is_object(rates))
		return cfg_fail(p, npath, "rates", "expected an object of rates by port name, like "
			        "{\"p0\": \"800M\"}, got %s", sp_json_type_name(rates));
	cfg_field_path(path, npath, "rates");
	json_object_foreach(rates, name, v) {
		int port = cfg_find_port(p->cfg, name);

		if (port < 0) {
			cfg_port_names(p->cfg, names, sizeof(names));
			return cfg_fail(p, path, name, "no port is named \"%s\"; use one of %s", name,
				        names);
		}
		TRY(cfg_get_sched_rate(p, rates, path, name, 0, &npe->rate_bps[port]));
	}
	return 0;
}

/*
 * Each port's rate is shared by the NPEs' schedulers: those a "rates"
 * names get what they ask for, the others split what is left evenly.
 */
static int
share_port_rates(struct parser *p)
{
	struct sp_config *cfg = p->cfg;
	char a[32], b[32], npath[PATH_LEN], path[PATH_LEN];

	for (uint16_t port = 0; port < cfg->nb_ports; port++) {
		const char *pname = cfg->ports[port].name;
		uint64_t rate = cfg->ports[port].rate_bps, named = 0;
		uint16_t others = 0;

		for (uint16_t n = 0; n < cfg->nb_npes; n++) {
			named += cfg->npes[n].rate_bps[port];
			others += cfg->npes[n].rate_bps[port] == 0;
			cfg_item_path(npath, "", "npes", n);
			cfg_field_path(path, npath, "rates");
			if (named > rate)
				return cfg_fail(p, path, pname, "the NPEs' schedulers on %s would send "
					        "%s in all but the port's rate is %s; lower their "
					        "rates or raise ports[%u].rate", pname,
					        cfg_rate_text(named, a), cfg_rate_text(rate, b), port);
		}
		for (uint16_t n = 0; n < cfg->nb_npes; n++) {
			if (cfg->npes[n].rate_bps[port] != 0)
				continue;
			cfg->npes[n].rate_bps[port] = (rate - named) / others;
			cfg_item_path(path, "", "npes", n);
			if (cfg->npes[n].rate_bps[port] == 0)
				return cfg_fail(p, path, "rates", "no rate is left on %s for NPE %u: the "
					        "other NPEs take all of its %s; give npes[%u] a rate "
					        "there and lower the others'", pname, n,
					        cfg_rate_text(rate, a), n);
		}
	}
	return 0;
}

static int
parse_npes(struct parser *p, json_t *root)
{
	struct sp_config *cfg = p->cfg;
	char path[PATH_LEN];
	json_t *arr, *o;
	uint64_t v;
	size_t i;

	TRY(cfg_get_array(p, root, "", "npes", false, 1, SP_MAX_NPES, &arr));
	if (arr == NULL) {
		cfg->nb_npes = 1;
		cfg->npes[0].filters = (uint32_t)NPE_FILTERS.def;
		cfg->npes[0].queues = (uint32_t)NPE_QUEUES.def;
		return share_port_rates(p);
	}
	json_array_foreach(arr, i, o) {
		cfg_item_path(path, "", "npes", i);
		TRY(cfg_check_object(p, o, path, NPE_KEYS));
		TRY(cfg_get_uint(p, o, path, &NPE_FILTERS, &v));
		cfg->npes[i].filters = (uint32_t)v;
		TRY(cfg_get_uint(p, o, path, &NPE_QUEUES, &v));
		cfg->npes[i].queues = (uint32_t)v;
		TRY(parse_npe_rates(p, o, path, &cfg->npes[i]));
		cfg->nb_npes = (uint16_t)(i + 1);
	}
	return share_port_rates(p);
}

static const char *const LCORE_KEYS[] = { "id", "lc", "npes", NULL };

/* owner[npe] is 1 + the index of the lcore running it, 0 for none yet. */
static int
parse_lcore(struct parser *p, json_t *o, const char *path, uint16_t i, uint16_t owner[])
{
	struct sp_config *cfg = p->cfg;
	struct sp_cfg_lcore *lc = &cfg->lcores[i];
	char npath[PATH_LEN];
	json_t *arr, *v, *lcv;
	uint64_t id;
	size_t j;

	TRY(cfg_check_object(p, o, path, LCORE_KEYS));
	TRY(cfg_get_uint(p, o, path, &LCORE_ID, &id));
	lc->id = (unsigned int)id;
	for (uint16_t k = 0; k < i; k++)
		if (cfg->lcores[k].id == lc->id)
			return cfg_fail(p, path, "id", "lcore %u is already lcores[%u]; give each "
				        "lcore its own id", lc->id, k);
	lcv = json_object_get(o, "lc");
	if (lcv != NULL && !json_is_boolean(lcv))
		return cfg_fail(p, path, "lc", "expected true or false, got %s", sp_json_type_name(lcv));
	lc->lc = json_is_true(lcv);
	TRY(cfg_get_array(p, o, path, "npes", false, 0, SP_MAX_NPES, &arr));
	json_array_foreach(arr, j, v) {
		uint64_t npe;

		cfg_item_path(npath, path, "npes", j);
		TRY(cfg_uint_value(p, v, npath, NULL, &NPE_INDEX, &npe));
		if (npe >= cfg->nb_npes)
			return cfg_fail(p, npath, NULL, "NPE %" PRIu64 " does not exist; npes has %u, "
				        "so use 0 to %u", npe, cfg->nb_npes, cfg->nb_npes - 1);
		if (owner[npe] != 0)
			return cfg_fail(p, npath, NULL, "NPE %" PRIu64 " already runs on lcores[%u]; "
				        "every NPE runs on exactly one lcore, so list it once",
				        npe, owner[npe] - 1);
		owner[npe] = (uint16_t)(i + 1);
		lc->npes[lc->nb_npes++] = (uint16_t)npe;
	}
	if (!lc->lc && lc->nb_npes == 0)
		return cfg_fail(p, path, NULL, "lcore %u has no role; set \"lc\": true or give it "
			        "\"npes\", or remove it", lc->id);
	return 0;
}

/*
 * The rx queues a net_pcap device makes (one a rx_pcap=, rx_iface= or
 * rx_iface_in=, or one for iface=), or 0 for another device: its own
 * count is known only when it is opened.
 */
static unsigned int
pcap_rx_queues(const char *devargs)
{
	static const char *const rx_args[] = { ",rx_pcap=", ",rx_iface=", ",rx_iface_in=",
					       ",iface=", NULL };
	unsigned int n = 0;

	if (strncmp(devargs, "net_pcap", 8) != 0)
		return 0;
	for (unsigned int k = 0; rx_args[k] != NULL; k++)
		for (const char *a = strstr(devargs, rx_args[k]); a != NULL;
		     a = strstr(a + 1, rx_args[k]))
			n++;
	return n;
}

/* Every LC lcore has a queue of port i; so many the device has, where known. */
static int
check_port_queues(struct parser *p, uint16_t i, uint16_t nb_lc)
{
	const struct sp_cfg_port *port = &p->cfg->ports[i];
	unsigned int want = port->rx_queues != 0 ? port->rx_queues : nb_lc;
	unsigned int has = pcap_rx_queues(port->device);
	char path[PATH_LEN];

	cfg_item_path(path, "", "ports", i);
	if (port->rx_queues != 0 && port->rx_queues < nb_lc)
		return cfg_fail(p, path, "rx_queues", "%u rx queues cannot serve %u LC lcores, "
			        "which receive on one each at least; give at least %u, or remove "
			        "\"rx_queues\" (one an LC lcore)", port->rx_queues, nb_lc, nb_lc);
	if (has != 0 && want > has)
		return cfg_fail(p, path, "device", "net_pcap makes one rx queue a rx_pcap= (or "
			        "rx_iface=), and \"%s\" has %u, while the port needs %u (%s); add "
			        "rx_pcap= files or use fewer queues", port->device, has, want,
			        port->rx_queues != 0 ? "its \"rx_queues\"" : "one an LC lcore");
	return 0;
}

/*
 * The ports' queues against the LC lcores; and a port set to "steering":
 * "rte_flow" sends each endpoint's frames to the rx queue of its NPE's
 * lcore: there must be several LC lcores and every NPE's lcore must be
 * one. owner as in parse_lcore().
 */
static int
check_queue_plan(struct parser *p, const uint16_t owner[])
{
	const struct sp_config *cfg = p->cfg;
	uint16_t nb_lc = 0;
	char path[PATH_LEN];

	for (uint16_t i = 0; i < cfg->nb_lcores; i++)
		nb_lc += cfg->lcores[i].lc;
	for (uint16_t i = 0; i < cfg->nb_ports; i++) {
		TRY(check_port_queues(p, i, nb_lc));
		if (cfg->ports[i].steering != SP_STEERING_RTE_FLOW)
			continue;
		cfg_item_path(path, "", "ports", i);
		if (nb_lc == 1)
			return cfg_fail(p, path, "steering", "\"rte_flow\" needs several LC lcores, "
				        "each receiving on its own queue; with one, every frame reaches "
				        "it anyway: set \"lc\": true on the lcores that run NPEs, or "
				        "remove \"steering\"");
		for (uint16_t n = 0; n < cfg->nb_npes; n++)
			if (!cfg->lcores[owner[n] - 1].lc)
				return cfg_fail(p, path, "steering", "\"rte_flow\" steers each "
					        "endpoint to the rx queue of its NPE's lcore, but NPE %u "
					        "runs on lcore %u, which has no queue (it is no LC lcore); "
					        "set \"lc\": true on it, or \"steering\": \"auto\"", n,
					        cfg->lcores[owner[n] - 1].id);
	}
	return 0;
}

static int
parse_lcores(struct parser *p, json_t *root)
{
	struct sp_config *cfg = p->cfg;
	uint16_t owner[SP_MAX_NPES] = { 0 };
	int lc_index = -1;
	char path[PATH_LEN];
	json_t *arr, *o;
	size_t i;

	TRY(cfg_get_array(p, root, "", "lcores", false, 1, SP_MAX_WORKERS, &arr));
	if (arr == NULL) {
		/* Run to completion: one lcore does everything. */
		cfg->nb_lcores = 1;
		cfg->lcores[0].id = 1;
		cfg->lcores[0].lc = true;
		for (uint16_t n = 0; n < cfg->nb_npes; n++) {
			cfg->lcores[0].npes[cfg->lcores[0].nb_npes++] = n;
			owner[n] = 1;
		}
		return check_queue_plan(p, owner);
	}
	json_array_foreach(arr, i, o) {
		cfg_item_path(path, "", "lcores", i);
		TRY(parse_lcore(p, o, path, (uint16_t)i, owner));
		cfg->nb_lcores = (uint16_t)(i + 1);
		if (cfg->lcores[i].lc)
			lc_index = (int)i;
	}
	if (lc_index < 0)
		return cfg_fail(p, "", "lcores", "no lcore has \"lc\": true; set it on the lcores "
			        "that receive from the ports (one at least)");
	for (uint16_t n = 0; n < cfg->nb_npes; n++)
		if (owner[n] == 0)
			return cfg_fail(p, "", "lcores", "NPE %u runs on no lcore; add %u to the "
				        "\"npes\" of exactly one lcore", n, n);
	return check_queue_plan(p, owner);
}

static const char *const TOP_KEYS[] = {
	"eal", "mbufs", "codeopt_libs", "mgmt_socket", "channel_dir", "ports", "neighbors", "npes",
	"lcores", "nat", "slices", NULL,
};

static const char *const NAT_KEYS[] = {
	"first", "last", "tcp_established", "tcp_transitory", "tcp_closed", "udp", "icmp", NULL,
};

/* In the order of struct sp_cfg_nat_timeouts, after first and last. */
static const struct uint_spec *const NAT_SPECS[] = {
	&NAT_FIRST, &NAT_LAST, &NAT_TCP_ESTABLISHED, &NAT_TCP_TRANSITORY, &NAT_TCP_CLOSED,
	&NAT_UDP, &NAT_ICMP,
};

/* "nat": optional, every key too. */
static int
parse_nat(struct parser *p, json_t *root)
{
	json_t *o = json_object_get(root, "nat"), *none = json_object();
	struct sp_config *c = p->cfg;
	uint64_t v[RTE_DIM(NAT_SPECS)];
	int rc;

	if (none == NULL)
		return cfg_out_of_memory(p, "nat");
	if (o == NULL)
		o = none;
	rc = cfg_check_object(p, o, "nat", NAT_KEYS);
	for (unsigned int i = 0; rc == 0 && i < RTE_DIM(NAT_SPECS); i++)
		rc = cfg_get_uint(p, o, "nat", NAT_SPECS[i], &v[i]);
	if (rc == 0) {
		if (v[1] < v[0])
			rc = cfg_fail(p, "nat", "last", "%" PRIu64 " is below \"first\" (%" PRIu64
				      "): the NAT ports are first to last", v[1], v[0]);
	}
	json_decref(none);
	if (rc < 0)
		return rc;
	c->nat_first = (uint16_t)v[0];
	c->nat_last = (uint16_t)v[1];
	c->nat_timeouts = (struct sp_cfg_nat_timeouts){(uint32_t)v[2], (uint32_t)v[3], (uint32_t)v[4],
						       (uint32_t)v[5], (uint32_t)v[6]};
	return 0;
}

/* An absolute path (a socket's or a directory of sockets) of at most max - 1 bytes, or dflt. */
static int
parse_path(struct parser *p, json_t *root, const char *key, const char *dflt, size_t max,
	   char *out)
{
	const char *s;
	int rc = cfg_get_string(p, root, "", key, false, max, &s);

	if (rc < 0)
		return rc;
	if (rc == 0) {
		memcpy(out, dflt, strlen(dflt) + 1);
		return 0;
	}
	if (s[0] != '/')
		return cfg_fail(p, "", key, "\"%s\" is not an absolute path; write one like "
			        "\"%s\"", s, dflt);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

static int
parse_root(struct parser *p, json_t *root)
{
	uint64_t v;

	TRY(cfg_check_object(p, root, "", TOP_KEYS));
	TRY(parse_strings(p, root, "eal", SP_MAX_EAL_ARGS, SIZE_MAX, store_eal_arg));
	TRY(cfg_get_uint(p, root, "", &MBUFS, &v));
	p->cfg->mbufs = (uint32_t)v;
	TRY(parse_strings(p, root, "codeopt_libs", SP_MAX_CODEOPT_LIBS, SP_PATH_LEN,
			  store_codeopt_lib));
	/* Where the management socket listens, and the slices' channels: they fit a sockaddr_un. */
	TRY(parse_path(p, root, "mgmt_socket", SP_DEFAULT_MGMT_SOCKET, SP_SOCKET_PATH_LEN,
		       p->cfg->mgmt_socket));
	TRY(parse_path(p, root, "channel_dir", SP_DEFAULT_CHANNEL_DIR, SP_CHANNEL_DIR_LEN,
		       p->cfg->channel_dir));
	TRY(parse_ports(p, root));
	TRY(parse_neighbors(p, root));
	TRY(parse_npes(p, root));
	TRY(parse_lcores(p, root));
	TRY(parse_nat(p, root));
	return cfg_parse_slices(p, root);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

static int
parse_buffer(const char *text, size_t len, struct sp_config *cfg, char *err, size_t errlen)
{
	struct parser p = { .cfg = cfg, .err = err, .errlen = errlen };
	json_error_t je;
	json_t *root;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL && je.line > 0) {
		cfg_set_error_f(&p, "line %d column %d: JSON syntax error: %s", je.line, je.column,
			        je.text);
		return -EINVAL;
	}
	if (root == NULL) {
		cfg_set_error_f(&p, "JSON syntax error: %s", je.text);
		return -EINVAL;
	}
	rc = parse_root(&p, root);
	json_decref(root);
	if (rc < 0)
		sp_config_free(cfg);
	return rc;
}

int
sp_config_parse(const char *json_text, struct sp_config *cfg, char *err, size_t errlen)
{
	if (cfg == NULL)
		return -EINVAL;
	if (json_text == NULL) {
		memset(cfg, 0, sizeof(*cfg));
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "no config text given; pass the JSON text");
		return -EINVAL;
	}
	return parse_buffer(json_text, strlen(json_text), cfg, err, errlen);
}

/* The whole file, NUL-terminated; NULL with errno set on failure. */
static char *
read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	size_t cap = 0, n = 0, got;
	char *buf = NULL;
	int error = 0;

	if (f == NULL)
		return NULL;
	for (;;) {
		if (n == cap) {
			char *grown = realloc(buf, (cap = cap != 0 ? 2 * cap : 65536) + 1);

			if (grown == NULL) {
				error = ENOMEM;
				break;
			}
			buf = grown;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0) {
			error = ferror(f) ? (errno != 0 ? errno : EIO) : 0;
			break;
		}
	}
	fclose(f);
	if (error != 0) {
		free(buf);
		errno = error;
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

int
sp_config_load(const char *path, struct sp_config *cfg, char *err, size_t errlen)
{
	char msg[SP_CONFIG_ERR_LEN];
	size_t len = 0;
	char *text;
	int rc;

	if (path == NULL || cfg == NULL)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	text = read_file(path, &len);
	if (text == NULL) {
		rc = -errno;
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%s: cannot read: %s", path, strerror(-rc));
		return rc;
	}
	rc = parse_buffer(text, len, cfg, msg, sizeof(msg));
	free(text);
	if (rc < 0 && err != NULL && errlen > 0)
		snprintf(err, errlen, "%s: %s", path, msg);
	return rc;
}

void
sp_config_free(struct sp_config *cfg)
{
	if (cfg == NULL)
		return;
	for (int i = 0; i < cfg->eal_argc; i++)
		free(cfg->eal_argv[i]);
	for (uint16_t i = 0; i < cfg->nb_slices; i++)
		free(cfg->slices[i].filters);
	memset(cfg, 0, sizeof(*cfg));
}

