/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the slicepathd config parser (src/config/config.c): one table
 * row per error path (return code, field path first, key words), then the
 * values of valid configs, the text helpers and the example configs.
 * No EAL: the parser must work without DPDK running.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/config.h"
#include "config/lcore_cpus.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Building blocks: JSON written with ' for " (see dequote())          */
/* ------------------------------------------------------------------ */

#define Z28 "0000000000000000000000000000"
#define PORT0 "{'name':'p0','device':'net_null0','ipv4':'10.0.0.1'}"
#define PORT1 "{'name':'p1','device':'net_null1','ipv4':'10.0.1.1'}"
/* Ports p0 and p1 plus more top-level keys (each starting with a comma). */
#define CFG(more) "{'ports':[" PORT0 "," PORT1 "]" more "}"
/* A single port p0 with more keys. */
#define PORT(more) "{'ports':[{'name':'p0','device':'net_null0','ipv4':'10.0.0.1'" more "}]}"
/* Ports p0 and p1, p1 with an IPv6 address too, plus more top-level keys. */
#define CFG6(more)                                                                                 \
	"{'ports':[" PORT0 ",{'name':'p1','device':'net_null1','ipv4':'10.0.1.1',"                  \
	"'ipv6':'2001:db8:1::1'}]" more "}"
/* Two ports, the second one written out. */
#define PORTS2(second) "{'ports':[" PORT0 ",{" second "}]}"
/* Slices given in full. */
#define SLICES(list) CFG(",'slices':[" list "]")
/* Slice 'a' (id 1): endpoints 0 = p0:5001, 1 = p1:5001; queue 0 feeds endpoint 1,
 * queue 1 feeds endpoint 0. */
#define SLICE_A "'name':'a','id':1,'codeopt':'ipv4'"
#define EPS ",'endpoints':[{'port':'p0','udp_port':5001},{'port':'p1','udp_port':5001}]"
#define EPS_B ",'endpoints':[{'port':'p0','udp_port':5002},{'port':'p1','udp_port':5002}]"
#define QS ",'queues':[{'id':0,'endpoint':1},{'id':1,'endpoint':0}]"
#define SLICE(more) SLICES("{" SLICE_A EPS QS more "}")
/* Slice 'a' and a second slice 'b' (id 2) with more keys. */
#define SLICE_B(more) SLICES("{" SLICE_A EPS QS "},{'name':'b','id':2,'codeopt':'ipv4'" more "}")
/* One filter of slice 'a' at position 0 with more keys. */
#define FILTER(more) SLICE(",'filters':[{'position':0,'key':'" Z28 "','mask':'" Z28 "'" more "}]")
#define RESULT(r) FILTER(",'result':{" r "}")
#define RES_OK "'endpoint':1,'queue':0,'next_hop':'10.0.1.2:6001'"
#define LCORES(list) CFG(",'npes':[{},{}],'lcores':[" list "]")
#define X32 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
#define X256 X32 X32 X32 X32 X32 X32 X32 X32
#define X512 X256 X256

/* The JSON text with every ' turned into ". Caller frees. */
static char *
dequote(const char *s)
{
	char *d = strdup(s);

	assert_non_null(d);
	for (char *c = d; *c != '\0'; c++)
		if (*c == '\'')
			*c = '"';
	return d;
}

static struct sp_config *
new_cfg(void)
{
	struct sp_config *cfg = malloc(sizeof(*cfg));

	assert_non_null(cfg);
	/* Garbage: the parser must clear it on success and on error. */
	memset(cfg, 0xa5, sizeof(*cfg));
	return cfg;
}

static void
free_cfg(struct sp_config *cfg)
{
	sp_config_free(cfg);
	free(cfg);
}

static int
parse_q(const char *quoted, struct sp_config *cfg, char *err, size_t errlen)
{
	char *json = dequote(quoted);
	int rc = sp_config_parse(json, cfg, err, errlen);

	free(json);
	return rc;
}

/* Parse a config that must be valid. */
static struct sp_config *
parse_ok(const char *quoted)
{
	struct sp_config *cfg = new_cfg();
	char err[SP_CONFIG_ERR_LEN] = "";
	int rc = parse_q(quoted, cfg, err, sizeof(err));

	if (rc != 0)
		print_error("unexpected error %d: %s\n", rc, err);
	assert_int_equal(rc, 0);
	return cfg;
}

static void
expect_in(const char *err, const char *word)
{
	if (strstr(err, word) == NULL) {
		print_error("message \"%s\" lacks \"%s\"\n", err, word);
		fail();
	}
}

static void
expect_empty(const struct sp_config *cfg)
{
	static const struct sp_config zero;

	assert_memory_equal(cfg, &zero, sizeof(zero));
}

/* ------------------------------------------------------------------ */
/* Every error path: rc, message starting with the field path, words   */
/* ------------------------------------------------------------------ */

struct bad_case {
	const char *json;
	int rc;
	const char *path;     /* the message starts with this */
	const char *words[2]; /* and contains these */
};

static const struct bad_case bad_cases[] = {
	/* JSON itself */
	{ "{'ports': [}", -EINVAL, "line 1 column 12: JSON syntax error",
	  { "unexpected token near '}'" } },
	{ "{'mbufs':2048,\n'mbufs':4096}", -EINVAL, "line 2 column", { "duplicate object key" } },
	{ "", -EINVAL, "line 1 column 0: JSON syntax error", { "end of file" } },
	{ "[1]", -EINVAL, "top level", { "expected an object", "got an array" } },
	{ CFG(",'port':[]"), -EINVAL, "port: unknown key", { "ports, neighbors, npes" } },
	/* eal, mbufs, codeopt_libs */
	{ CFG(",'eal':'--no-huge'"), -EINVAL, "eal: expected an array", { "got a string" } },
	{ CFG(",'eal':['--no-huge',5]"), -EINVAL, "eal[1]: expected a string", { "integer" } },
	{ CFG(",'eal':['']"), -EINVAL, "eal[0]: is empty", { "write a value" } },
	{ CFG(",'mbufs':1000"), -EINVAL, "mbufs: 1000 is out of range", { "from 1024 to" } },
	{ CFG(",'mbufs':-5"), -EINVAL, "mbufs: -5 is out of range", { "1024" } },
	{ CFG(",'mbufs':2048.5"), -EINVAL, "mbufs: 2048.5 is out of range", { "whole number" } },
	{ CFG(",'mbufs':'4096'"), -EINVAL, "mbufs: expected a whole number", { "got a string" } },
	{ CFG(",'mbufs':4096"), -EINVAL, "mbufs: 4096 packet buffers", { "4096 descriptors",
									"raise mbufs" } },
	{ CFG(",'codeopt_libs':'/x.so'"), -EINVAL, "codeopt_libs: expected an array",
	  { "string" } },
	{ CFG(",'codeopt_libs':['" X256 "']"), -EINVAL, "codeopt_libs[0]: is 256 characters",
	  { "at most 255" } },
	/* ports */
	{ "{}", -EINVAL, "ports: required key is missing", { "add \"ports\" to the top level" } },
	{ "{'ports':[]}", -EINVAL, "ports: is empty", { "at least 1 entry" } },
	{ "{'ports':{}}", -EINVAL, "ports: expected an array", { "got an object" } },
	{ "{'ports':[5]}", -EINVAL, "ports[0]: expected an object", { "got an integer" } },
	{ PORT(",'ip6':'2001:db8::1'"), -EINVAL, "ports[0].ip6: unknown key",
	  { "name, device, ipv4, ipv6, mac, rate, rx_desc, tx_desc, overhead" } },
	{ PORT(",'ipv6':'2001:db8::g'"), -EINVAL,
	  "ports[0].ipv6: \"2001:db8::g\" is not an IPv6 address", { "like 2001:db8::1" } },
	{ PORT(",'ipv6':'::'"), -EINVAL, "ports[0].ipv6: :: is the unspecified address",
	  { "use a unicast address" } },
	{ PORT(",'ipv6':'::1'"), -EINVAL, "ports[0].ipv6: ::1 is the loopback address",
	  { "unicast" } },
	{ PORT(",'ipv6':'ff02::1'"), -EINVAL, "ports[0].ipv6: ff02::1 is a multicast address",
	  { "unicast" } },
	{ PORT(",'ipv6':'::ffff:10.0.0.1'"), -EINVAL,
	  "ports[0].ipv6: ::ffff:10.0.0.1 is an IPv4-mapped address", { "unicast" } },
	{ PORT(",'ipv6':10"), -EINVAL, "ports[0].ipv6: expected a string", { "got an integer" } },
	{ "{'ports':[{'name':'p0','device':'net_null0','ipv4':'10.0.0.1','ipv6':'2001:db8::1'},"
	  "{'name':'p1','device':'net_null1','ipv4':'10.0.1.1','ipv6':'2001:db8:0::1'}]}", -EINVAL,
	  "ports[1].ipv6: 2001:db8::1 is already the address of ports[0] (p0)",
	  { "its own address" } },
	{ "{'ports':[{'device':'x','ipv4':'10.0.0.1'}]}", -EINVAL, "ports[0].name: required",
	  { "add \"name\" to ports[0]" } },
	{ PORTS2("'name':'p 1','device':'net_null1','ipv4':'10.0.1.1'"), -EINVAL,
	  "ports[1].name: \"p 1\" contains ' '", { "letters, digits and '_'" } },
	{ PORTS2("'name':'p-1','device':'net_null1','ipv4':'10.0.1.1'"), -EINVAL,
	  "ports[1].name: \"p-1\" contains '-'", { "letters, digits and '_'" } },
	{ PORTS2("'name':'p\\n1','device':'net_null1','ipv4':'10.0.1.1'"), -EINVAL,
	  "ports[1].name: \"p?1\" contains '?'", { "letters" } },
	{ PORTS2("'name':'" X32 "','device':'net_null1','ipv4':'10.0.1.1'"), -EINVAL,
	  "ports[1].name: is 32 characters long", { "at most 31" } },
	{ PORTS2("'name':'p0','device':'net_null1','ipv4':'10.0.1.1'"), -EINVAL,
	  "ports[1].name: \"p0\" is already the name of ports[0]", { "its own name" } },
	{ PORTS2("'name':'p1','ipv4':'10.0.1.1'"), -EINVAL, "ports[1].device: required",
	  { "add \"device\"" } },
	{ PORTS2("'name':'p1','device':'','ipv4':'10.0.1.1'"), -EINVAL, "ports[1].device: is empty",
	  { "write a value" } },
	{ PORTS2("'name':'p1','device':'" X512 "','ipv4':'10.0.1.1'"), -EINVAL,
	  "ports[1].device: is 512 characters long", { "at most 511" } },
	{ PORTS2("'name':'p1','device':'net_null0','ipv4':'10.0.1.1'"), -EINVAL,
	  "ports[1].device: \"net_null0\" names the device of ports[0]", { "once" } },
	{ PORTS2("'name':'p1','device':'net_null0,no-rx=1','ipv4':'10.0.1.1'"), -EINVAL,
	  "ports[1].device: \"net_null0,no-rx=1\" names the device of ports[0]", { "once" } },
	{ PORTS2("'name':'p1','device':'net_null1'"), -EINVAL, "ports[1].ipv4: required",
	  { "add \"ipv4\"" } },
	{ PORTS2("'name':'p1','device':'net_null1','ipv4':'10.0.0.300'"), -EINVAL,
	  "ports[1].ipv4: \"10.0.0.300\" is not an IPv4 address", { "write it as a.b.c.d" } },
	{ PORTS2("'name':'p1','device':'net_null1','ipv4':167772161"), -EINVAL,
	  "ports[1].ipv4: expected a string", { "got an integer" } },
	{ PORTS2("'name':'p1','device':'net_null1','ipv4':'0.0.0.0'"), -EINVAL,
	  "ports[1].ipv4: 0.0.0.0 is the unspecified address", { "use a unicast address" } },
	{ PORTS2("'name':'p1','device':'net_null1','ipv4':'224.0.0.1'"), -EINVAL,
	  "ports[1].ipv4: 224.0.0.1 is a multicast address", { "unicast" } },
	{ PORTS2("'name':'p1','device':'net_null1','ipv4':'255.255.255.255'"), -EINVAL,
	  "ports[1].ipv4: 255.255.255.255 is the broadcast address", { "unicast" } },
	{ PORTS2("'name':'p1','device':'net_null1','ipv4':'10.0.0.1'"), -EINVAL,
	  "ports[1].ipv4: 10.0.0.1 is already the address of ports[0] (p0)",
	  { "its own address" } },
	{ PORT(",'mac':'02:00:00:00:00'"), -EINVAL, "ports[0].mac: \"02:00:00:00:00\" is not a MAC",
	  { "02:00:00:00:00:01" } },
	{ PORT(",'mac':'01:00:5e:00:00:01'"), -EINVAL, "ports[0].mac: 01:00:5e:00:00:01 is not a "
	  "unicast MAC", { "first byte is even" } },
	{ PORT(",'mac':'00:00:00:00:00:00'"), -EINVAL, "ports[0].mac: 00:00:00:00:00:00 is not a "
	  "unicast", { "not all zeros" } },
	{ PORT(",'rate':'10X'"), -EINVAL, "ports[0].rate: \"10X\" is not a rate",
	  { "suffix k, M, G or T", "\"10G\"" } },
	{ PORT(",'rate':'-1G'"), -EINVAL, "ports[0].rate: \"-1G\" is not a rate", { "above 0" } },
	{ PORT(",'rate':0"), -EINVAL, "ports[0].rate: 0 is not a rate", { "above 0" } },
	{ PORT(",'rate':1.5"), -EINVAL, "ports[0].rate: 1.5 is not a rate", { "whole number" } },
	{ PORT(",'rate':true"), -EINVAL, "ports[0].rate: expected a rate", { "got a boolean" } },
	{ PORT(",'rx_desc':100"), -EINVAL, "ports[0].rx_desc: 100 is not a power of two",
	  { "64, 128, ... 16384" } },
	{ PORT(",'rx_desc':32"), -EINVAL, "ports[0].rx_desc: 32 is out of range",
	  { "from 64 to 16384" } },
	{ PORT(",'tx_desc':32768"), -EINVAL, "ports[0].tx_desc: 32768 is out of range",
	  { "from 64 to 16384" } },
	{ PORT(",'overhead':256"), -EINVAL, "ports[0].overhead: 256 is out of range",
	  { "from 0 to 255" } },
	{ PORT(",'rate':'11T'"), -EINVAL, "ports[0].rate: 11T is above the 10T a scheduler takes",
	  { "lower rate" } },
	/* neighbors */
	{ CFG(",'neighbors':{}"), -EINVAL, "neighbors: expected an array", { "object" } },
	{ CFG(",'neighbors':[{'port':'p1','ipv4':'10.0.1.2','mac':'02:00:00:00:01:02','ttl':5}]"),
	  -EINVAL, "neighbors[0].ttl: unknown key", { "port, ipv4, ipv6, mac" } },
	{ CFG(",'neighbors':[{'port':'p9','ipv4':'10.0.1.2','mac':'02:00:00:00:01:02'}]"), -EINVAL,
	  "neighbors[0].port: there is no port named \"p9\"", { "use one of p0, p1" } },
	{ CFG(",'neighbors':[{'port':'p1','ipv4':'10.0.1','mac':'02:00:00:00:01:02'}]"), -EINVAL,
	  "neighbors[0].ipv4: \"10.0.1\" is not an IPv4 address", { "a.b.c.d" } },
	{ CFG(",'neighbors':[{'port':'p1','ipv4':'10.0.1.2'}]"), -EINVAL,
	  "neighbors[0].mac: required key is missing", { "add \"mac\" to neighbors[0]" } },
	{ CFG(",'neighbors':[{'port':'p1','ipv4':'10.0.1.2','mac':'ff:ff:ff:ff:ff:ff'}]"), -EINVAL,
	  "neighbors[0].mac: ff:ff:ff:ff:ff:ff is not a unicast MAC", { "02:00:00:00:00:01" } },
	{ CFG(",'neighbors':[{'port':'p1','ipv4':'10.0.0.1','mac':'02:00:00:00:01:02'}]"), -EINVAL,
	  "neighbors[0].ipv4: 10.0.0.1 is the address of port p0", { "another node" } },
	{ CFG(",'neighbors':[{'port':'p1','ipv4':'10.0.1.2','mac':'02:00:00:00:01:02'},"
	      "{'port':'p1','ipv4':'10.0.1.2','mac':'02:00:00:00:01:03'}]"), -EINVAL,
	  "neighbors[1].ipv4: 10.0.1.2 on port p1 is already in neighbors[0]", { "keep one" } },
	{ CFG6(",'neighbors':[{'port':'p1','ipv6':'2001:db8:1::2','mac':'02:00:00:00:01:02'},"
		 "{'port':'p1','ipv6':'2001:db8:1:0::2','mac':'02:00:00:00:01:03'}]"),
	  -EINVAL, "neighbors[1].ipv6: 2001:db8:1::2 on port p1 is already in neighbors[0]",
	  { "keep one" } },
	{ CFG(",'neighbors':[{'port':'p1','ipv6':'2001:db8::2','mac':'02:00:00:00:01:02'}]"),
	  -EINVAL, "neighbors[0].ipv6: port p1 has no ipv6 address", { "give the port one" } },
	{ CFG6(",'neighbors':[{'port':'p1','ipv6':'2001:db8:1::1','mac':'02:00:00:00:01:02'}]"),
	  -EINVAL, "neighbors[0].ipv6: 2001:db8:1::1 is the address of port p1", { "another node" } },
	{ CFG6(",'neighbors':[{'port':'p1','ipv6':'2001:db8:1::2','ipv4':'10.0.1.2',"
		 "'mac':'02:00:00:00:01:02'}]"),
	  -EINVAL, "neighbors[0].ipv6: a neighbor has one address", { "an entry each" } },
	{ CFG6(",'neighbors':[{'port':'p1','ipv6':'ff02::1','mac':'02:00:00:00:01:02'}]"),
	  -EINVAL, "neighbors[0].ipv6: ff02::1 is a multicast address", { "unicast" } },
	/* npes */
	{ CFG(",'npes':[]"), -EINVAL, "npes: is empty", { "or remove the key" } },
	{ CFG(",'npes':[{'filters':0}]"), -EINVAL, "npes[0].filters: 0 is out of range",
	  { "from 1 to 1048576" } },
	{ CFG(",'npes':[{'filters':1048577}]"), -EINVAL, "npes[0].filters: 1048577 is out of",
	  { "1048576" } },
	{ CFG(",'npes':[{},{'queues':0}]"), -EINVAL, "npes[1].queues: 0 is out of range",
	  { "from 1 to 1048576" } },
	{ CFG(",'npes':[{'filter':5}]"), -EINVAL, "npes[0].filter: unknown key",
	  { "filters, queues" } },
	{ CFG(",'npes':[{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}]"), -EINVAL,
	  "npes: has 17 entries", { "at most 16" } },
	/* lcores */
	{ CFG(",'lcores':[]"), -EINVAL, "lcores: is empty", { "remove the key" } },
	{ LCORES("{'id':0,'lc':true,'npes':[0,1]}"), -EINVAL, "lcores[0].id: 0 is out of range",
	  { "from 1 to 127" } },
	{ LCORES("{'id':128,'lc':true,'npes':[0,1]}"), -EINVAL,
	  "lcores[0].id: 128 is out of range", { "from 1 to 127" } },
	{ LCORES("{'lc':true,'npes':[0,1]}"), -EINVAL, "lcores[0].id: required",
	  { "add \"id\" to lcores[0]" } },
	{ LCORES("{'id':2,'lc':true},{'id':2,'npes':[0,1]}"), -EINVAL,
	  "lcores[1].id: lcore 2 is already lcores[0]", { "its own id" } },
	{ LCORES("{'id':2,'lc':1,'npes':[0,1]}"), -EINVAL, "lcores[0].lc: expected true or false",
	  { "integer" } },
	{ LCORES("{'id':2,'lc':true,'npes':[0,1],'numa':0}"), -EINVAL, "lcores[0].numa: unknown",
	  { "id, lc, npes" } },
	{ LCORES("{'id':2,'lc':true,'npes':0}"), -EINVAL, "lcores[0].npes: expected an array",
	  { "integer" } },
	{ LCORES("{'id':2,'npes':[0,1]}"), -EINVAL, "lcores: no lcore has \"lc\": true",
	  { "receive from the ports", "one at least" } },
	{ LCORES("{'id':2,'lc':true,'npes':[0,2]}"), -EINVAL,
	  "lcores[0].npes[1]: NPE 2 does not exist", { "npes has 2", "0 to 1" } },
	{ LCORES("{'id':2,'lc':true,'npes':[0,'1']}"), -EINVAL,
	  "lcores[0].npes[1]: expected a whole number", { "string" } },
	{ LCORES("{'id':2,'lc':true,'npes':[0]},{'id':3,'npes':[1,0]}"), -EINVAL,
	  "lcores[1].npes[1]: NPE 0 already runs on lcores[0]", { "exactly one lcore" } },
	{ LCORES("{'id':2,'lc':true,'npes':[0]}"), -EINVAL, "lcores: NPE 1 runs on no lcore",
	  { "add 1 to the \"npes\"" } },
	/* rx_queues */
	{ PORT(",'rx_queues':0"), -EINVAL, "ports[0].rx_queues: 0 is out of range", { "from 1 to 64" } },
	{ "{'ports':[{'name':'p0','device':'net_null0','ipv4':'10.0.0.1','rx_queues':1}],"
	  "'npes':[{},{}],'lcores':[{'id':2,'lc':true,'npes':[0]},{'id':3,'lc':true,'npes':[1]}]}",
	  -EINVAL, "ports[0].rx_queues: 1 rx queues cannot serve 2 LC lcores",
	  { "give at least 2" } },
	{ "{'ports':[{'name':'p0','device':'net_pcap0,rx_pcap=/a.pcap,tx_pcap=/b.pcap',"
	  "'ipv4':'10.0.0.1'}],'npes':[{},{}],"
	  "'lcores':[{'id':2,'lc':true,'npes':[0]},{'id':3,'lc':true,'npes':[1]}]}", -EINVAL,
	  "ports[0].device: net_pcap makes one rx queue a rx_pcap=",
	  { "has 1, while the port needs 2 (one an LC lcore)" } },
	{ "{'ports':[{'name':'p0','device':'net_pcap0,rx_pcap=/a,rx_iface=eth0','ipv4':'10.0.0.1',"
	  "'rx_queues':3}]}", -EINVAL,
	  "ports[0].device: net_pcap makes one rx queue", { "has 2, while the port needs 3 (its "
	  "\"rx_queues\")" } },
	/* host */
	{ PORT(",'host':'sp p0'"), -EINVAL, "ports[0].host: \"sp p0\" is no interface name",
	  { "letters, digits" } },
	{ PORT(",'host':'sp-port-zero-x16'"), -EINVAL, "ports[0].host: is 16 characters long",
	  { "at most 15" } },
	/* steering */
	{ PORT(",'steering':'flow'"), -EINVAL, "ports[0].steering: \"flow\" is not a way of steering",
	  { "\"auto\"", "\"rte_flow\" or \"software\"" } },
	{ PORT(",'steering':'rte_flow'"), -EINVAL,
	  "ports[0].steering: \"rte_flow\" needs several LC lcores", { "set \"lc\": true" } },
	{ "{'ports':[{'name':'p0','device':'net_null0','ipv4':'10.0.0.1','steering':'rte_flow'}],"
	  "'npes':[{},{}],'lcores':[{'id':2,'lc':true,'npes':[0]},{'id':3,'lc':true},"
	  "{'id':4,'npes':[1]}]}", -EINVAL, "ports[0].steering: \"rte_flow\" steers each endpoint "
	  "to the rx queue of its NPE's lcore, but NPE 1 runs on lcore 4, which has no queue",
	  { "set \"lc\": true on it", "\"auto\"" } },
	{ LCORES("{'id':2,'lc':true,'npes':[0,1]},{'id':3}"), -EINVAL,
	  "lcores[1]: lcore 3 has no role", { "\"lc\": true", "\"npes\"" } },
	{ LCORES("{'id':2,'lc':false,'npes':[]},{'id':3,'lc':true,'npes':[0,1]}"), -EINVAL,
	  "lcores[0]: lcore 2 has no role", { "or remove it" } },
	/* slices */
	{ CFG(",'slices':{}"), -EINVAL, "slices: expected an array", { "object" } },
	{ SLICES("{" SLICE_A ",'quota':5}"), -EINVAL, "slices[0].quota: unknown key",
	  { "name, id, codeopt, codeopt_data, npe, memory, filter_quota, queue_quota, buffer_quota, "
	    "endpoints, queues, filters" } },
	{ SLICES("{'id':1,'codeopt':'ipv4'}"), -EINVAL, "slices[0].name: required", { "add" } },
	{ SLICES("{'name':'a.b','id':1,'codeopt':'ipv4'}"), -EINVAL,
	  "slices[0].name: \"a.b\" contains '.'", { "letters" } },
	{ SLICES("{" SLICE_A "},{'name':'a','id':2,'codeopt':'ipv4'}"), -EINVAL,
	  "slices[1].name: \"a\" is already the name of slices[0]", { "its own name" } },
	{ SLICES("{'name':'a','codeopt':'ipv4'}"), -EINVAL, "slices[0].id: required", { "add" } },
	{ SLICES("{'name':'a','id':0,'codeopt':'ipv4'}"), -EINVAL, "slices[0].id: 0 is out of",
	  { "from 1 to 255" } },
	{ SLICES("{'name':'a','id':256,'codeopt':'ipv4'}"), -EINVAL, "slices[0].id: 256 is out",
	  { "from 1 to 255" } },
	{ SLICES("{" SLICE_A "},{'name':'b','id':1,'codeopt':'ipv4'}"), -EINVAL,
	  "slices[1].id: 1 is already the id of slices[0] (a)", { "its own id" } },
	{ SLICES("{'name':'a','id':1}"), -EINVAL, "slices[0].codeopt: required", { "add" } },
	{ SLICES("{'name':'a','id':1,'codeopt':'" X32 "'}"), -EINVAL,
	  "slices[0].codeopt: is 32 characters long", { "at most 31" } },
	{ SLICES("{" SLICE_A ",'npe':1}"), -EINVAL, "slices[0].npe: NPE 1 does not exist",
	  { "npes has 1", "use 0 to 0" } },
	{ SLICES("{" SLICE_A ",'memory':16777217}"), -EINVAL, "slices[0].memory: 16777217 is out",
	  { "from 0 to 16777216" } },
	{ SLICES("{" SLICE_A ",'filter_quota':0}"), -EINVAL, "slices[0].filter_quota: 0 is out",
	  { "from 1 to" } },
	{ CFG(",'npes':[{'filters':1500}],'slices':[{" SLICE_A "},{'name':'b','id':2,"
	      "'codeopt':'ipv4'}]"), -EINVAL, "slices[1].filter_quota: the slices on NPE 0 need "
	  "2048 filters", { "npes[0].filters is 1500", "raise npes[0].filters" } },
	{ SLICES("{" SLICE_A ",'queue_quota':0}"), -EINVAL, "slices[0].queue_quota: 0 is out",
	  { "from 1 to 64" } },
	{ SLICES("{" SLICE_A ",'queue_quota':65}"), -EINVAL, "slices[0].queue_quota: 65 is out",
	  { "from 1 to 64" } },
	{ CFG(",'npes':[{'queues':20}],'slices':[{" SLICE_A "},{'name':'b','id':2,"
	      "'codeopt':'ipv4'}]"), -EINVAL, "slices[1].queue_quota: the slices on NPE 0 need 32 "
	  "queues", { "npes[0].queues is 20" } },
	/* endpoints */
	{ SLICES("{" SLICE_A ",'endpoints':{}}"), -EINVAL, "slices[0].endpoints: expected an array",
	  { "object" } },
	{ SLICES("{" SLICE_A ",'endpoints':[{'port':'p2','udp_port':1}]}"), -EINVAL,
	  "slices[0].endpoints[0].port: there is no port named \"p2\"", { "use one of p0, p1" } },
	{ SLICES("{" SLICE_A ",'endpoints':[{'port':'p0','udp_port':0}]}"), -EINVAL,
	  "slices[0].endpoints[0].udp_port: 0 is out of range", { "from 1 to 65535" } },
	{ SLICES("{" SLICE_A ",'endpoints':[{'port':'p0','udp_port':65536}]}"), -EINVAL,
	  "slices[0].endpoints[0].udp_port: 65536 is out of range", { "from 1 to 65535" } },
	{ SLICES("{" SLICE_A ",'endpoints':[{'port':'p0'}]}"), -EINVAL,
	  "slices[0].endpoints[0].udp_port: required", { "add \"udp_port\"" } },
	{ SLICES("{" SLICE_A ",'endpoints':[{'port':'p0','udp_port':1,'ip':'10.0.0.1'}]}"),
	  -EINVAL, "slices[0].endpoints[0].ip: unknown key", { "port, udp_port" } },
	{ SLICES("{" SLICE_A ",'endpoints':[{'port':'p0','udp_port':7},"
		 "{'port':'p0','udp_port':7}]}"), -EINVAL,
	  "slices[0].endpoints[1].udp_port: p0:7 is already reserved by slices[0].endpoints[0]",
	  { "pick another udp_port" } },
	{ SLICE_B(",'endpoints':[{'port':'p1','udp_port':5002},{'port':'p1','udp_port':5001}]"),
	  -EINVAL, "slices[1].endpoints[1].udp_port: p1:5001 is already reserved by "
	  "slices[0].endpoints[1]", { "pick another" } },
	/* queues */
	{ SLICE_B(",'queue_quota':4" EPS_B ",'queues':[{'id':4,'endpoint':0}]"), -EINVAL,
	  "slices[1].queues[0].id: 4 is out of range: queue_quota is 4", { "use 0 to 3" } },
	{ SLICE_B(EPS_B ",'queues':[{'id':3,'endpoint':0},{'id':3,'endpoint':1}]"), -EINVAL,
	  "slices[1].queues[1].id: queue 3 is already defined by slices[1].queues[0]",
	  { "its own id" } },
	{ SLICE_B(EPS_B ",'queues':[{'endpoint':0}]"), -EINVAL, "slices[1].queues[0].id: required",
	  { "add \"id\"" } },
	{ SLICE_B(EPS_B ",'queues':[{'id':0,'endpoint':2}]"), -EINVAL,
	  "slices[1].queues[0].endpoint: endpoint 2 does not exist",
	  { "slices[1].endpoints has 2", "use 0 to 1" } },
	{ SLICE_B(",'queues':[{'id':0,'endpoint':0}]"), -EINVAL,
	  "slices[1].queues[0].endpoint: endpoint 0 does not exist: slices[1].endpoints is empty",
	  { "define it there first" } },
	{ SLICE_B(EPS_B ",'queues':[{'id':0}]"), -EINVAL, "slices[1].queues[0].endpoint: required",
	  { "add \"endpoint\"" } },
	{ SLICE_B(EPS_B ",'queues':[{'id':0,'endpoint':0,'threshold':1000}]"), -EINVAL,
	  "slices[1].queues[0].threshold: 1000 is out of range", { "from 2048" } },
	{ SLICE_B(EPS_B ",'queues':[{'id':0,'endpoint':0,'share':0}]"), -EINVAL,
	  "slices[1].queues[0].share: 0 is not a rate", { "above 0" } },
	{ SLICE_B(EPS_B ",'queues':[{'id':0,'endpoint':0,'threshold_packets':0}]"), -EINVAL,
	  "slices[1].queues[0].threshold_packets: 0 is out of range", { "from 1 to 1048576" } },
	{ SLICE_B(EPS_B ",'queues':[{'id':0,'endpoint':0,'weight':2}]"), -EINVAL,
	  "slices[1].queues[0].weight: unknown key",
	  { "id, endpoint, threshold, threshold_packets, share" } },
	/* bandwidth: NPE rates, reservations, shares */
	{ CFG(",'npes':[{'rates':{'p9':'1G'}}]"), -EINVAL, "npes[0].rates.p9: no port is named",
	  { "use one of p0, p1" } },
	{ CFG(",'npes':[{'rates':[]}]"), -EINVAL, "npes[0].rates: expected an object",
	  { "{\"p0\": \"800M\"}", "got an array" } },
	{ CFG(",'npes':[{'rates':{'p1':'6G'}},{'rates':{'p1':'5G'}}]"), -EINVAL,
	  "npes[1].rates.p1: the NPEs' schedulers on p1 would send 11G in all but the port's "
	  "rate is 10G", { "raise ports[1].rate" } },
	{ CFG(",'npes':[{'rates':{'p0':'10G'}},{}]"), -EINVAL,
	  "npes[1].rates: no rate is left on p0 for NPE 1", { "give npes[1] a rate there" } },
	{ SLICE_B(",'endpoints':[{'port':'p1','udp_port':5002,'bandwidth':'9995M'}]"), -EINVAL,
	  "slices[1].endpoints[0].bandwidth: the endpoints of NPE 0's slices on p1 would reserve "
	  "10005M in all but its scheduler there sends 10G", { "raise npes[0].rates.p1" } },
	{ SLICE_B(",'endpoints':[{'port':'p1','udp_port':5002,'bandwidth':'2M'},"
		  "{'port':'p1','udp_port':5003,'bandwidth':'1M'}],'queues':[{'id':0,'endpoint':0,"
		  "'share':'2M'},{'id':1,'endpoint':1,'share':'1500k'}]"), -EINVAL,
	  "slices[1].queues[1].share: the slice's queues on p1 would share 3500k but its "
	  "endpoints there reserve 3M", { "raise the endpoints' bandwidth" } },
	/* filters */
	{ SLICE(",'filter_quota':1,'filters':[{},{}]"), -EINVAL,
	  "slices[0].filters: has 2 entries; at most 1 are allowed", { NULL } },
	{ SLICE(",'filters':{}"), -EINVAL, "slices[0].filters: expected an array", { "object" } },
	{ SLICE(",'filters':[5]"), -EINVAL, "slices[0].filters[0]: expected an object",
	  { "integer" } },
	{ SLICE(",'filters':[{'key':'" Z28 "'}]"), -EINVAL, "slices[0].filters[0].position: requir",
	  { "add \"position\"" } },
	{ SLICE(",'filters':[{'position':1024}]"), -EINVAL,
	  "slices[0].filters[0].position: 1024 is out of range: filter_quota is 1024",
	  { "use 0 to 1023", "raise filter_quota" } },
	{ SLICE(",'filters':[{'position':3,'key':'" Z28 "','mask':'" Z28 "','result':{" RES_OK "}},"
		"{'position':3}]"), -EINVAL, "slices[0].filters[1].position: 3 is already taken by "
	  "slices[0].filters[0]", { "its own position" } },
	{ SLICE(",'filters':[{'position':0,'prio':1}]"), -EINVAL, "slices[0].filters[0].prio: "
	  "unknown key", { "position, key, mask, result" } },
	{ SLICE(",'filters':[{'position':0,'key':'000000000000000000000000000'}]"), -EINVAL,
	  "slices[0].filters[0].key: \"000000000000000000000000000\" is not a 112-bit value",
	  { "exactly 28 hex digits", "0x" } },
	{ SLICE(",'filters':[{'position':0,'key':'" Z28 "0'}]"), -EINVAL,
	  "slices[0].filters[0].key: \"" Z28 "0\" is not a 112-bit", { "28 hex digits" } },
	{ SLICE(",'filters':[{'position':0,'key':'g000000000000000000000000000'}]"), -EINVAL,
	  "slices[0].filters[0].key: \"g0", { "28 hex digits" } },
	{ SLICE(",'filters':[{'position':0,'key':'" Z28 "'}]"), -EINVAL,
	  "slices[0].filters[0].mask: required", { "add \"mask\"" } },
	{ SLICE(",'filters':[{'position':0,'key':'" Z28 "','mask':'0x" Z28 "0'}]"), -EINVAL,
	  "slices[0].filters[0].mask: \"0x" Z28 "0\" is not a 112-bit", { "28 hex digits" } },
	{ FILTER(""), -EINVAL, "slices[0].filters[0].result: required",
	  { "add \"result\" to slices[0].filters[0]" } },
	{ FILTER(",'result':[]"), -EINVAL, "slices[0].filters[0].result: expected an object",
	  { "array" } },
	{ RESULT(RES_OK ",'ttl':3"), -EINVAL, "slices[0].filters[0].result.ttl: unknown key",
	  { "endpoint, queue, next_hop, data" } },
	{ RESULT("'queue':0,'next_hop':'10.0.1.2:6001'"), -EINVAL,
	  "slices[0].filters[0].result.endpoint: required", { "add \"endpoint\"" } },
	{ RESULT("'endpoint':2,'queue':0,'next_hop':'10.0.1.2:6001'"), -EINVAL,
	  "slices[0].filters[0].result.endpoint: endpoint 2 does not exist",
	  { "slices[0].endpoints has 2", "use 0 to 1" } },
	{ RESULT("'endpoint':1,'next_hop':'10.0.1.2:6001'"), -EINVAL,
	  "slices[0].filters[0].result.queue: required", { "add \"queue\"" } },
	{ RESULT("'endpoint':1,'queue':7,'next_hop':'10.0.1.2:6001'"), -EINVAL,
	  "slices[0].filters[0].result.queue: queue 7 is not defined in slices[0].queues",
	  { "define it or use one of 0, 1" } },
	{ SLICES("{" SLICE_A EPS ",'filters':[{'position':0,'key':'" Z28 "','mask':'" Z28 "',"
		 "'result':{" RES_OK "}}]}"), -EINVAL, "slices[0].filters[0].result.queue: queue 0 "
	  "is not defined: slices[0].queues is empty", { "define it there" } },
	{ RESULT("'endpoint':1,'queue':1,'next_hop':'10.0.1.2:6001'"), -EINVAL,
	  "slices[0].filters[0].result.queue: queue 1 feeds endpoint 0 on port p0 but the result "
	  "sends from endpoint 1 on port p1", { "use a queue of an endpoint on p1" } },
	{ RESULT("'endpoint':1,'queue':0"), -EINVAL, "slices[0].filters[0].result.next_hop: requir",
	  { "add \"next_hop\"" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'10.0.1.2'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: \"10.0.1.2\" is not a next hop",
	  { "a.b.c.d:port", "1 to 65535" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'10.0.1.2:'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: \"10.0.1.2:\" is not a next hop",
	  { "a.b.c.d:port" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'10.0.1.2:0'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: \"10.0.1.2:0\" is not", { "1 to 65535" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'10.0.1.2:65536'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: \"10.0.1.2:65536\" is not", { "1 to 65535" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'10.0.1.256:80'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: \"10.0.1.256:80\" is not", { "a.b.c.d:port" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'0.0.0.0:80'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: the address of 0.0.0.0:80 is the unspecified",
	  { "unicast" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'239.1.1.1:80'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: the address of 239.1.1.1:80 is a multicast",
	  { "unicast" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'[ff02::1]:80'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: the address of [ff02::1]:80 is a multicast",
	  { "unicast" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'[::ffff:10.0.0.1]:80'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: the address of [::ffff:10.0.0.1]:80 is an "
	  "IPv4-mapped", { "unicast" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'2001:db8::1:80'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: \"2001:db8::1:80\" is not a next hop",
	  { "[2001:db8::1]:port" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'[2001:db8::1]'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: \"[2001:db8::1]\" is not a next hop",
	  { "1 to 65535" } },
	{ RESULT("'endpoint':1,'queue':0,'next_hop':'[10.0.0.1]:80'"), -EINVAL,
	  "slices[0].filters[0].result.next_hop: \"[10.0.0.1]:80\" is not a next hop",
	  { "a.b.c.d:port" } },
	{ RESULT(RES_OK ",'data':'abc'"), -EINVAL, "slices[0].filters[0].result.data: \"abc\" is "
	  "not result data", { "up to 16 hex digits, two per byte" } },
	{ RESULT(RES_OK ",'data':'001122334455667788'"), -EINVAL,
	  "slices[0].filters[0].result.data: \"001122334455667788\" is not", { "up to 16" } },
	{ RESULT(RES_OK ",'data':'zz'"), -EINVAL, "slices[0].filters[0].result.data: \"zz\"",
	  { "hex digits" } },
	{ RESULT(RES_OK ",'data':12"), -EINVAL, "slices[0].filters[0].result.data: expected a "
	  "string", { "integer" } },
	/* an error after allocations (slice 'a' has filters) still leaves cfg empty */
	{ SLICES("{" SLICE_A EPS QS ",'filters':[{'position':0,'key':'" Z28 "','mask':'" Z28 "',"
		 "'result':{" RES_OK "}}]},{'name':'b','id':2,'codeopt':'ipv4','memory':-1}"),
	  -EINVAL, "slices[1].memory: -1 is out of range", { "from 0 to 16777216" } },
	{ CFG(",'eal':['--no-huge','-m','1024'],'mbufs':'x'"), -EINVAL, "mbufs: expected",
	  { "string" } },
};

static void
run_bad(void **state)
{
	const struct bad_case *c = *state;
	struct sp_config *cfg = new_cfg();
	char err[SP_CONFIG_ERR_LEN] = "";
	int rc = parse_q(c->json, cfg, err, sizeof(err));

	if (rc != c->rc || strncmp(err, c->path, strlen(c->path)) != 0)
		print_error("json %s\nrc %d, message \"%s\"\nwant rc %d, message starting \"%s\"\n",
			    c->json, rc, err, c->rc, c->path);
	print_message("%s\n", err); /* the log doubles as a catalogue of messages */
	assert_int_equal(rc, c->rc);
	assert_int_equal(strncmp(err, c->path, strlen(c->path)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(c->words) && c->words[i] != NULL; i++)
		expect_in(err, c->words[i]);
	assert_null(strchr(err, '\n'));
	expect_empty(cfg);
	free_cfg(cfg);
}

/* ------------------------------------------------------------------ */
/* Limits on list lengths: the maximum parses, one more is refused     */
/* ------------------------------------------------------------------ */

struct list_case {
	const char *head; /* JSON before the list */
	const char *item; /* one entry; %1$d is its number, from 1 */
	const char *tail; /* JSON after the list */
	int max;
	bool max_ok;      /* whether a list of exactly max entries is a valid config */
	const char *path;
};

#define ONE_PORT "{'ports':[" PORT0 "]"

static const struct list_case list_cases[] = {
	{ ONE_PORT ",'eal':[", "'-x%1$d'", "]}", SP_MAX_EAL_ARGS, true, "eal" },
	{ ONE_PORT ",'codeopt_libs':[", "'/l%1$d.so'", "]}", SP_MAX_CODEOPT_LIBS, true,
	  "codeopt_libs" },
	{ "{'mbufs':65536,'ports':[", "{'name':'p%1$d','device':'d%1$d','ipv4':'10.0.%1$d.1'}",
	  "]}", SP_MAX_PORTS, true, "ports" },
	{ ONE_PORT ",'neighbors':[", "{'port':'p0','ipv4':'10.1.%1$d.2','mac':'02:00:00:00:00:02'}",
	  "]}", SP_MAX_NEIGHBORS, false, "neighbors" },
	{ ONE_PORT ",'npes':[", "{'filters':%1$d}", "]}", SP_MAX_NPES, true, "npes" },
	{ ONE_PORT ",'lcores':[", "{'id':%1$d,'lc':true}", "]}", SP_MAX_WORKERS, false, "lcores" },
	{ ONE_PORT ",'slices':[", "{'name':'s%1$d','id':%1$d,'codeopt':'x','filter_quota':1}", "]}",
	  SP_MAX_SLICES - 1, true, "slices" },
	{ ONE_PORT ",'slices':[{'name':'a','id':1,'codeopt':'x','endpoints':[",
	  "{'port':'p0','udp_port':%1$d}", "]}]}", SP_MAX_SLICE_ENDPOINTS, true,
	  "slices[0].endpoints" },
	{ ONE_PORT ",'slices':[{'name':'a','id':1,'codeopt':'x','queue_quota':64,"
		   "'endpoints':[{'port':'p0','udp_port':1}],'queues':[",
	  "{'id':%1$d,'endpoint':0}", "]}]}", SP_MAX_SLICE_QUEUES, false, "slices[0].queues" },
};

static char *
build_list(const struct list_case *c, int n)
{
	size_t len = strlen(c->head) + strlen(c->tail) + (size_t)n * (strlen(c->item) + 16) + 1;
	char *json = malloc(len);
	size_t used;

	assert_non_null(json);
	used = (size_t)snprintf(json, len, "%s", c->head);
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			json[used++] = ',';
		used += (size_t)snprintf(json + used, len - used, c->item, i);
	}
	snprintf(json + used, len - used, "%s", c->tail);
	return json;
}

static void
test_list_limits(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(list_cases); k++) {
		const struct list_case *c = &list_cases[k];
		struct sp_config *cfg = new_cfg();
		char err[SP_CONFIG_ERR_LEN] = "", want[64];
		char *json;
		int rc;

		if (c->max_ok) {
			json = build_list(c, c->max);
			rc = parse_q(json, cfg, err, sizeof(err));
			if (rc != 0)
				print_error("%s with %d entries: %s\n", c->path, c->max, err);
			assert_int_equal(rc, 0);
			sp_config_free(cfg);
			free(json);
		}
		json = build_list(c, c->max + 1);
		rc = parse_q(json, cfg, err, sizeof(err));
		snprintf(want, sizeof(want), "%s: has %d entries; at most %d are allowed", c->path,
			 c->max + 1, c->max);
		if (strcmp(err, want) != 0)
			print_error("got \"%s\", want \"%s\"\n", err, want);
		assert_int_equal(rc, -EINVAL);
		assert_string_equal(err, want);
		expect_empty(cfg);
		free_cfg(cfg);
		free(json);
	}
}

/* ------------------------------------------------------------------ */
/* Values of valid configs                                             */
/* ------------------------------------------------------------------ */

static uint32_t
ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static void
test_defaults(void **state)
{
	struct sp_config *cfg = parse_ok(ONE_PORT "}");
	const struct sp_cfg_port *p = &cfg->ports[0];

	(void)state;
	assert_int_equal(cfg->eal_argc, 0);
	assert_int_equal(cfg->mbufs, 16384);
	assert_int_equal(cfg->nb_codeopt_libs, 0);
	assert_int_equal(cfg->nb_ports, 1);
	assert_string_equal(p->name, "p0");
	assert_string_equal(p->device, "net_null0");
	assert_int_equal(p->ipv4, ip("10.0.0.1"));
	assert_false(p->has_mac);
	assert_false(p->has_ipv6);
	assert_int_equal(p->rate_bps, 10000000000ULL);
	assert_int_equal(p->rx_desc, 1024);
	assert_int_equal(p->tx_desc, 1024);
	assert_int_equal(p->overhead, 24);
	assert_int_equal(cfg->nb_neighbors, 0);
	assert_int_equal(cfg->nb_npes, 1);
	assert_int_equal(cfg->npes[0].filters, 131072);
	assert_int_equal(cfg->npes[0].queues, 65536);
	assert_int_equal(cfg->npes[0].rate_bps[0], 10000000000ULL); /* all of the port */
	/* run to completion: lcore 1 is the LC and runs the NPE */
	assert_int_equal(cfg->nb_lcores, 1);
	assert_int_equal(cfg->lcores[0].id, 1);
	assert_true(cfg->lcores[0].lc);
	assert_int_equal(cfg->lcores[0].nb_npes, 1);
	assert_int_equal(cfg->lcores[0].npes[0], 0);
	assert_int_equal(cfg->nb_slices, 0);
	free_cfg(cfg);
}

static void
test_default_lcore_runs_every_npe(void **state)
{
	struct sp_config *cfg = parse_ok(ONE_PORT ",'npes':[{},{'filters':10},{'queues':7}]}");

	(void)state;
	assert_int_equal(cfg->nb_npes, 3);
	assert_int_equal(cfg->npes[1].filters, 10);
	assert_int_equal(cfg->npes[1].queues, 65536);
	assert_int_equal(cfg->npes[2].filters, 131072);
	assert_int_equal(cfg->npes[2].queues, 7);
	assert_int_equal(cfg->nb_lcores, 1);
	assert_true(cfg->lcores[0].lc);
	assert_int_equal(cfg->lcores[0].nb_npes, 3);
	for (uint16_t i = 0; i < 3; i++)
		assert_int_equal(cfg->lcores[0].npes[i], i);
	free_cfg(cfg);
}

/* Several LC lcores: each receives on its own queue of every port (docs/config.md). */
static void
test_several_lc_lcores(void **state)
{
	struct sp_config *cfg = parse_ok(
		ONE_PORT ",'npes':[{},{}],"
		"'lcores':[{'id':2,'lc':true},{'id':3,'lc':true,'npes':[0,1]}]}");

	(void)state;
	assert_int_equal(cfg->nb_lcores, 2);
	assert_true(cfg->lcores[0].lc && cfg->lcores[1].lc);
	assert_int_equal(cfg->lcores[0].nb_npes, 0);
	assert_int_equal(cfg->lcores[1].nb_npes, 2);
	free_cfg(cfg);
}

/* The CPUs of lcore under map, as a list "a,b" ("" if map does not name it, "bad"). */
static const char *
cpus_of(const char *map, unsigned int lcore)
{
	static char buf[64];
	cpu_set_t set;
	int rc = sp_lcore_cpus(map, lcore, &set);
	size_t off = 0;

	buf[0] = '\0';
	if (rc < 0)
		return "bad";
	for (unsigned int c = 0; rc == 1 && c < 64; c++)
		if (CPU_ISSET(c, &set))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%u", off ? "," : "", c);
	return buf;
}

/* EAL's --lcores as DPDK documents it: numbers, ranges, groups, @ CPUs. */
static void
test_lcore_cpus(void **state)
{
	static const char *map = "1,2@(5-7),(3-5)@(0,2),(0,6),7-8";

	(void)state;
	assert_string_equal(cpus_of(map, 1), "1");
	assert_string_equal(cpus_of(map, 2), "5,6,7");
	assert_string_equal(cpus_of(map, 4), "0,2");
	assert_string_equal(cpus_of(map, 6), "0,6");
	assert_string_equal(cpus_of(map, 8), "8");
	assert_string_equal(cpus_of(map, 9), "");
	assert_string_equal(cpus_of("0@0,1@1,2@0", 2), "0");
	assert_string_equal(cpus_of("0@0,1@1,2@0", 1), "1");
	assert_string_equal(cpus_of("1@", 1), "bad");
	assert_string_equal(cpus_of("(1,2", 1), "bad");
	assert_string_equal(cpus_of("3-1", 1), "bad");
	assert_string_equal(cpus_of("1;2", 1), "bad");
}

/* "steering": auto unless said; rte_flow where every NPE's lcore has a queue. */
static void
test_steering(void **state)
{
	struct sp_config *cfg = parse_ok(
		"{'ports':[{'name':'p0','device':'net_null0','ipv4':'10.0.0.1','steering':'rte_flow'},"
		"{'name':'p1','device':'net_null1','ipv4':'10.0.1.1','steering':'software'},"
		"{'name':'p2','device':'net_null2','ipv4':'10.0.2.1'}],'npes':[{},{}],"
		"'lcores':[{'id':2,'lc':true,'npes':[0]},{'id':3,'lc':true,'npes':[1]}]}");

	(void)state;
	assert_int_equal(cfg->ports[0].steering, SP_STEERING_RTE_FLOW);
	assert_int_equal(cfg->ports[1].steering, SP_STEERING_SOFTWARE);
	assert_int_equal(cfg->ports[2].steering, SP_STEERING_AUTO);
	assert_int_equal(cfg->ports[0].rx_queues, 0); /* one an LC lcore */
	assert_string_equal(cfg->ports[0].host, ""); /* no host path */
	free_cfg(cfg);
	cfg = parse_ok("{'ports':[{'name':'p0','device':'net_pcap0,rx_pcap=/a,rx_pcap=/b,iface=x',"
		       "'ipv4':'10.0.0.1','rx_queues':3}]}");
	assert_int_equal(cfg->ports[0].rx_queues, 3);
	free_cfg(cfg);
}

static void
test_explicit_values(void **state)
{
	struct sp_config *cfg = parse_ok(
		"{'eal':['--no-huge','-m','1024'],'mbufs':1e5,'codeopt_libs':['/opt/co.so'],"
		"'ports':[{'name':'p0','device':'0000:01:00.0','ipv4':'192.0.2.1',"
		"'ipv6':'2001:DB8::a:1','mac':'0A:bc:DE:f0:12:34','rate':'800M','rx_desc':512,'tx_desc':2048,"
		"'overhead':20},"
		"{'name':'lan_1','device':'net_pcap0,rx_pcap=/x.pcap,tx_pcap=/y.pcap',"
		"'ipv4':'198.51.100.1','rate':2500000000}],"
		"'neighbors':[{'port':'lan_1','ipv4':'198.51.100.2','mac':'02:00:00:00:01:02'},"
		"{'port':'p0','ipv6':'2001:db8::a:2','mac':'02:00:00:00:01:03'}],"
		"'npes':[{'filters':2048,'queues':128,'rates':{'lan_1':'2G'}},{}],"
		"'lcores':[{'id':2,'lc':true},{'id':4,'lc':false,'npes':[1]},{'id':6,'npes':[0]}],"
		"'slices':[{'name':'s','id':9,'codeopt':'i3','npe':1,'memory':0,'filter_quota':8,"
		"'queue_quota':2,'buffer_quota':99,"
		"'endpoints':[{'port':'lan_1','udp_port':65535,'bandwidth':'500M'}],"
		"'queues':[{'id':1,'endpoint':0,'threshold':2048,'threshold_packets':10,"
		"'share':'1.5M'}]}]}");
	const struct sp_cfg_slice *s = &cfg->slices[0];

	(void)state;
	assert_int_equal(cfg->eal_argc, 3);
	assert_string_equal(cfg->eal_argv[0], "--no-huge");
	assert_string_equal(cfg->eal_argv[2], "1024");
	assert_int_equal(cfg->mbufs, 100000);
	assert_int_equal(cfg->nb_codeopt_libs, 1);
	assert_string_equal(cfg->codeopt_libs[0], "/opt/co.so");
	assert_int_equal(cfg->nb_ports, 2);
	assert_true(cfg->ports[0].has_ipv6);
	assert_memory_equal(cfg->ports[0].ipv6,
			    ((uint8_t[]){ 0x20, 0x01, 0x0d, 0xb8, [13] = 0x0a, [15] = 0x01 }), 16);
	assert_false(cfg->ports[1].has_ipv6);
	assert_true(cfg->ports[0].has_mac);
	assert_memory_equal(cfg->ports[0].mac, ((uint8_t[]){ 0x0a, 0xbc, 0xde, 0xf0, 0x12, 0x34 }),
			    6);
	assert_int_equal(cfg->ports[0].rate_bps, 800000000);
	assert_int_equal(cfg->ports[0].rx_desc, 512);
	assert_int_equal(cfg->ports[0].tx_desc, 2048);
	assert_int_equal(cfg->ports[0].overhead, 20);
	assert_string_equal(cfg->ports[1].device, "net_pcap0,rx_pcap=/x.pcap,tx_pcap=/y.pcap");
	assert_int_equal(cfg->ports[1].rate_bps, 2500000000ULL);
	assert_int_equal(cfg->nb_neighbors, 2);
	assert_int_equal(cfg->neighbors[0].port, 1);
	assert_true(sp_ip_is_v4(&cfg->neighbors[0].ip));
	assert_int_equal(sp_ip_to_v4(&cfg->neighbors[0].ip), ip("198.51.100.2"));
	assert_memory_equal(cfg->neighbors[0].mac, ((uint8_t[]){ 2, 0, 0, 0, 1, 2 }), 6);
	assert_int_equal(cfg->neighbors[1].port, 0);
	assert_memory_equal(cfg->neighbors[1].ip.b,
			    ((uint8_t[]){ 0x20, 1, 0x0d, 0xb8, [13] = 0x0a, [15] = 2 }), 16);
	assert_memory_equal(cfg->neighbors[1].mac, ((uint8_t[]){ 2, 0, 0, 0, 1, 3 }), 6);
	assert_int_equal(cfg->npes[0].filters, 2048);
	assert_int_equal(cfg->npes[0].queues, 128);
	/* npes[1] gets what npes[0] leaves of each port */
	assert_int_equal(cfg->npes[0].rate_bps[1], 2000000000ULL);
	assert_int_equal(cfg->npes[1].rate_bps[1], 500000000ULL);
	assert_int_equal(cfg->npes[0].rate_bps[0], 400000000ULL);
	assert_int_equal(cfg->npes[1].rate_bps[0], 400000000ULL);
	assert_int_equal(cfg->nb_lcores, 3);
	assert_true(cfg->lcores[0].lc);
	assert_int_equal(cfg->lcores[0].nb_npes, 0);
	assert_false(cfg->lcores[1].lc);
	assert_int_equal(cfg->lcores[1].id, 4);
	assert_int_equal(cfg->lcores[1].npes[0], 1);
	assert_int_equal(cfg->lcores[2].npes[0], 0);
	assert_string_equal(s->name, "s");
	assert_int_equal(s->id, 9);
	assert_string_equal(s->codeopt, "i3");
	assert_int_equal(s->npe, 1);
	assert_int_equal(s->mem_bytes, 0);
	assert_int_equal(s->filter_quota, 8);
	assert_int_equal(s->queue_quota, 2);
	assert_int_equal(s->buffer_quota, 99);
	assert_int_equal(s->nb_endpoints, 1);
	assert_int_equal(s->endpoints[0].bandwidth_bps, 500000000ULL);
	assert_int_equal(s->endpoints[0].port, 1);
	assert_int_equal(s->endpoints[0].udp_port, 65535);
	assert_int_equal(s->nb_queues, 1);
	assert_int_equal(s->queues[0].id, 1);
	assert_int_equal(s->queues[0].threshold, 2048);
	assert_int_equal(s->queues[0].threshold_pkts, 10);
	assert_int_equal(s->queues[0].share_bps, 1500000);
	assert_int_equal(s->nb_filters, 0);
	assert_null(s->filters);
	free_cfg(cfg);
}

static void
test_slice_defaults(void **state)
{
	struct sp_config *cfg = parse_ok(SLICE(""));
	const struct sp_cfg_slice *s = &cfg->slices[0];

	(void)state;
	assert_int_equal(cfg->nb_slices, 1);
	assert_int_equal(s->npe, 0);
	assert_int_equal(s->mem_bytes, 4096);
	assert_int_equal(s->filter_quota, 1024);
	assert_int_equal(s->queue_quota, 16);
	assert_int_equal(s->buffer_quota, 4096);
	assert_int_equal(s->nb_endpoints, 2);
	assert_int_equal(s->endpoints[1].bandwidth_bps, 10000000);
	assert_int_equal(s->endpoints[1].port, 1);
	assert_int_equal(s->endpoints[1].udp_port, 5001);
	assert_int_equal(s->nb_queues, 2);
	assert_int_equal(s->queues[0].endpoint, 1);
	assert_int_equal(s->queues[0].threshold, 65536);
	assert_int_equal(s->queues[0].threshold_pkts, 1024);
	assert_int_equal(s->queues[0].share_bps, 1000000);
	assert_int_equal(s->nb_filters, 0);
	free_cfg(cfg);
}

static void
test_filter_bytes(void **state)
{
	struct sp_config *cfg = parse_ok(SLICE(
		",'filters':[{'position':7,'key':'0xC0A8010000000000000000001100',"
		"'mask':'ffffff000000000000000000ff00','result':{'endpoint':0,'queue':1,"
		"'next_hop':'10.0.0.2:6001','data':'abCD'}},"
		"{'position':1023,'key':'" Z28 "','mask':'" Z28 "',"
		"'result':{'endpoint':1,'queue':0,'next_hop':'10.0.1.2:1',"
		"'data':'0x0102030405060708'}},"
		"{'position':512,'key':'" Z28 "','mask':'" Z28 "',"
		"'result':{'endpoint':1,'queue':0,'next_hop':'[2001:DB8::a:5]:7000'}}]"));
	const struct sp_cfg_slice *s = &cfg->slices[0];
	const struct sp_cfg_filter *f = &s->filters[0];
	/* bytes not listed are zero */
	static const uint8_t key[SP_KEY_BYTES] = { 0xc0, 0xa8, 0x01, [12] = 0x11 };
	static const uint8_t mask[SP_KEY_BYTES] = { 0xff, 0xff, 0xff, [12] = 0xff };
	uint8_t nh[6];

	(void)state;
	assert_int_equal(s->nb_filters, 3);
	assert_int_equal(f->position, 7);
	assert_int_equal(f->result.nh_family, SP_NH_IPV4);
	assert_memory_equal(f->key.b, key, SP_KEY_BYTES);
	assert_memory_equal(f->mask.b, mask, SP_KEY_BYTES);
	assert_int_equal(f->result.endpoint, 0);
	assert_int_equal(f->result.queue, 1);
	/* network byte order: the bytes in memory read as written */
	memcpy(nh, &f->result.nh_ip, 4);
	memcpy(nh + 4, &f->result.nh_port, 2);
	assert_memory_equal(nh, ((uint8_t[]){ 10, 0, 0, 2, 0x17, 0x71 }), 6); /* 6001 = 0x1771 */
	assert_memory_equal(f->result.data, ((uint8_t[]){ 0xab, 0xcd, 0, 0, 0, 0, 0, 0 }), 8);
	f = &s->filters[1];
	assert_int_equal(f->position, 1023);
	assert_int_equal(ntohs(f->result.nh_port), 1);
	assert_int_equal(f->result.nh_ip, ip("10.0.1.2"));
	assert_memory_equal(f->result.data, ((uint8_t[]){ 1, 2, 3, 4, 5, 6, 7, 8 }), 8);
	/* An IPv6 next hop, bracketed: its address, nh_ip zero. */
	f = &s->filters[2];
	assert_int_equal(f->result.nh_family, SP_NH_IPV6);
	assert_memory_equal(f->result.nh_ip6,
			    ((uint8_t[]){ 0x20, 1, 0x0d, 0xb8, [13] = 0x0a, [15] = 5 }), 16);
	assert_int_equal(f->result.nh_ip, 0);
	assert_int_equal(ntohs(f->result.nh_port), 7000);
	free_cfg(cfg);
}

static void
test_error_without_buffer(void **state)
{
	struct sp_config *cfg = new_cfg();
	char err[4] = "";

	(void)state;
	assert_int_equal(parse_q("{}", cfg, NULL, 0), -EINVAL);
	expect_empty(cfg);
	/* A short buffer gets the start of the message, terminated. */
	assert_int_equal(parse_q("{}", cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "por");
	memset(cfg, 0xa5, sizeof(*cfg));
	assert_int_equal(sp_config_parse(NULL, cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "no ");
	expect_empty(cfg);
	free_cfg(cfg);
}

static void
test_free_twice(void **state)
{
	struct sp_config *cfg = parse_ok(SLICE(",'filters':[{'position':0,'key':'" Z28 "',"
					       "'mask':'" Z28 "','result':{" RES_OK "}}]"));

	(void)state;
	assert_non_null(cfg->slices[0].filters);
	sp_config_free(cfg);
	expect_empty(cfg);
	sp_config_free(cfg);
	sp_config_free(NULL);
	free(cfg);
}

/* ------------------------------------------------------------------ */
/* Text helpers                                                        */
/* ------------------------------------------------------------------ */

static void
test_parse_rate(void **state)
{
	static const struct {
		const char *s;
		uint64_t bps;
	} good[] = {
		{ "10G", 10000000000ULL }, { "800M", 800000000 }, { "1.5k", 1500 },
		{ "1.5K", 1500 }, { "1000", 1000 }, { "2.5T", 2500000000000ULL },
		{ "1.25G", 1250000000 }, { "0.5k", 500 }, { "007", 7 }, { "1.000", 1 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = {
		"", "0", "0k", "0.0G", "-1", "-1G", "+5", "G", "10g", "10 G", " 10G", "10G ",
		"1e3", "1.5", "1.0005k", ".5k", "5.k", "1..5k", "10GG", "abc", "0x10",
		"18446744073709551616", "18446744073709552T",
	};
	uint64_t bps;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		bps = 0;
		if (sp_parse_rate(good[i].s, &bps) != 0 || bps != good[i].bps)
			print_error("\"%s\" -> %" PRIu64 "\n", good[i].s, bps);
		assert_int_equal(sp_parse_rate(good[i].s, &bps), 0);
		assert_int_equal(bps, good[i].bps);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		bps = 42;
		if (sp_parse_rate(bad[i], &bps) != -EINVAL)
			print_error("\"%s\" accepted\n", bad[i]);
		assert_int_equal(sp_parse_rate(bad[i], &bps), -EINVAL);
		assert_int_equal(bps, 42);
	}
	assert_int_equal(sp_parse_rate(NULL, &bps), -EINVAL);
}

/* sp_format_rate: the shortest text that sp_parse_rate reads back to the same rate. */
static void
test_format_rate(void **state)
{
	static const struct {
		uint64_t bps;
		const char *s;
	} exact[] = {
		{ 0, "0" }, { 1, "1" }, { 999, "999" }, { 1000, "1k" }, { 1500, "1.5k" },
		{ 2500000, "2.5M" }, { 50000000, "50M" }, { 100000000, "100M" },
		{ 1500000000, "1.5G" }, { 1001000000, "1001M" }, { 1234567, "1234567" },
		{ 10000000000ULL, "10G" }, { 2500000000000ULL, "2.5T" },
		{ 18000000000000000000ULL, "18000000T" },
		{ UINT64_MAX, "18446744073709551615" },
	};
	static const uint64_t values[] = {
		1, 7, 10, 999, 1000, 1001, 1010, 1500, 9999, 10000, 123456, 1234567, 2500000,
		12345678, 50000000, 100000000, 999999999, 1000000001, 1250000000, 1500000000,
		1000000000000ULL, 1000000000001ULL, 123456789012345ULL, 18446744073709000000ULL,
		18446744073000000000ULL, 18446744000000000000ULL, 10000000000000000000ULL,
		UINT64_MAX - 1, UINT64_MAX,
	};
	char buf[SP_RATE_STR_LEN], small[4];
	uint64_t bps, v;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(exact); i++) {
		if (strcmp(sp_format_rate(exact[i].bps, buf, sizeof(buf)), exact[i].s) != 0)
			print_error("%" PRIu64 " -> \"%s\"\n", exact[i].bps, buf);
		assert_string_equal(sp_format_rate(exact[i].bps, buf, sizeof(buf)), exact[i].s);
	}
	/* The listed values, every power of ten and its neighbours, and digit runs. */
	for (size_t i = 0; i < ARRAY_SIZE(values) + 3 * 20 + 19; i++) {
		size_t j = i - ARRAY_SIZE(values);

		if (i < ARRAY_SIZE(values)) {
			v = values[i];
		} else if (j < 3 * 20) {
			v = 1;
			for (size_t k = 0; k < j / 3; k++)
				v *= 10;
			v = v + (j % 3) - 1;
		} else {
			v = 0; /* 1, 12, 123, ..., 1234567890123456789 */
			for (size_t k = 0; k <= j - 3 * 20; k++)
				v = v * 10 + (k % 10 + 1) % 10;
		}
		if (v == 0)
			continue;
		bps = 0;
		if (sp_parse_rate(sp_format_rate(v, buf, sizeof(buf)), &bps) != 0 || bps != v)
			print_error("%" PRIu64 " -> \"%s\" -> %" PRIu64 "\n", v, buf, bps);
		assert_int_equal(sp_parse_rate(buf, &bps), 0);
		assert_true(bps == v);
		/* Never longer than the plain number. */
		assert_true(strlen(buf) <= (size_t)snprintf(NULL, 0, "%" PRIu64, v));
	}
	/* A short buffer gets what fits, still terminated; the result is buf. */
	assert_ptr_equal(sp_format_rate(1500000000, small, sizeof(small)), small);
	assert_string_equal(small, "1.5");
}

static void
test_parse_ipv4(void **state)
{
	static const char *const bad[] = {
		"", "10.0.0", "10.0.0.256", "010.0.0.1", " 10.0.0.1", "10.0.0.1 ", "10.0.0.1.2",
		"a.b.c.d", "10.0.0.1:80", "1.2.3.-4",
	};
	uint32_t v = 7;

	(void)state;
	assert_int_equal(sp_parse_ipv4("10.0.1.2", &v), 0);
	assert_memory_equal(&v, ((uint8_t[]){ 10, 0, 1, 2 }), 4);
	assert_int_equal(sp_parse_ipv4("255.255.255.255", &v), 0);
	assert_int_equal(v, UINT32_MAX);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		v = 7;
		if (sp_parse_ipv4(bad[i], &v) != -EINVAL)
			print_error("\"%s\" accepted\n", bad[i]);
		assert_int_equal(sp_parse_ipv4(bad[i], &v), -EINVAL);
		assert_int_equal(v, 7);
	}
}

static void
test_parse_mac(void **state)
{
	static const char *const bad[] = {
		"", "02:00:00:00:00", "02:00:00:00:00:01:", "02-00-00-00-00-01",
		"02:00:00:00:00:001",
		"g2:00:00:00:00:01", "2:00:00:00:00:01", "0200.0000.0001", "02:00:00:00:00:0",
	};
	uint8_t mac[6] = { 9, 9, 9, 9, 9, 9 };

	(void)state;
	assert_int_equal(sp_parse_mac("0A:bc:DE:f0:12:34", mac), 0);
	assert_memory_equal(mac, ((uint8_t[]){ 0x0a, 0xbc, 0xde, 0xf0, 0x12, 0x34 }), 6);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(mac, 9, sizeof(mac));
		if (sp_parse_mac(bad[i], mac) != -EINVAL)
			print_error("\"%s\" accepted\n", bad[i]);
		assert_int_equal(sp_parse_mac(bad[i], mac), -EINVAL);
		assert_memory_equal(mac, ((uint8_t[]){ 9, 9, 9, 9, 9, 9 }), 6);
	}
}

static void
test_parse_hex_key(void **state)
{
	static const char *const bad[] = {
		"", "0x", "c0a801000000000000000000000", "c0a80100000000000000000000000",
		"c0a80100000000000000000000000000", "0xc0a801000000000000000000000",
		"c0a8 0100000000000000000000000", "c0a8_0100000000000000000000000",
		"x0a8010000000000000000000000", "0Xc0a8010000000000000000000g",
	};
	struct sp_key k;

	(void)state;
	assert_int_equal(sp_parse_hex_key("c0a8010000000000000000000001", &k), 0);
	assert_memory_equal(k.b, ((uint8_t[]){ 0xc0, 0xa8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 }),
			    SP_KEY_BYTES);
	assert_int_equal(sp_parse_hex_key("0XFFFFFFFFFFFFFFFFFFFFFFFFFFFF", &k), 0);
	for (size_t i = 0; i < SP_KEY_BYTES; i++)
		assert_int_equal(k.b[i], 0xff);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (sp_parse_hex_key(bad[i], &k) != -EINVAL)
			print_error("\"%s\" accepted\n", bad[i]);
		assert_int_equal(sp_parse_hex_key(bad[i], &k), -EINVAL);
	}
}

static void
test_rate_forms(void **state)
{
	static const struct {
		const char *rate;
		uint64_t bps;
	} forms[] = {
		{ "'10G'", 10000000000ULL }, { "'1.5k'", 1500 }, { "2500000000", 2500000000ULL },
		{ "1e9", 1000000000 }, { "'2.5T'", 2500000000000ULL },
	};
	char json[256];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		snprintf(json, sizeof(json), PORT(",'rate':%s"), forms[i].rate);
		struct sp_config *cfg = parse_ok(json);

		assert_int_equal(cfg->ports[0].rate_bps, forms[i].bps);
		free_cfg(cfg);
	}
}

/* ------------------------------------------------------------------ */
/* Files: the example configs and load errors                          */
/* ------------------------------------------------------------------ */

/* The source tree: $SP_SOURCE_ROOT, else from this file's path (relative
 * paths in __FILE__ are relative to the build directory, where meson runs
 * both the compiler and the tests). */
static void
source_path(char *out, size_t len, const char *rel)
{
	const char *root = getenv("SP_SOURCE_ROOT");
	const char *suffix = "tests/unit/test_config.c";
	size_t n = strlen(__FILE__) - strlen(suffix);

	if (root != NULL)
		snprintf(out, len, "%s/%s", root, rel);
	else
		snprintf(out, len, "%.*s%s", (int)n, __FILE__, rel);
}

static struct sp_config *
load_ok(const char *rel)
{
	struct sp_config *cfg = new_cfg();
	char path[1024], err[SP_CONFIG_ERR_LEN] = "";
	int rc;

	source_path(path, sizeof(path), rel);
	rc = sp_config_load(path, cfg, err, sizeof(err));
	if (rc != 0)
		print_error("%s: %d %s\n", path, rc, err);
	assert_int_equal(rc, 0);
	return cfg;
}

static void
test_example_default(void **state)
{
	struct sp_config *cfg = load_ok("config/default.json");
	const struct sp_cfg_slice *a = &cfg->slices[0], *b = &cfg->slices[1];
	static const uint8_t key[SP_KEY_BYTES] = { 0xc0, 0xa8, 0x02 };
	static const uint8_t mask[SP_KEY_BYTES] = { 0xff, 0xff, 0xff };
	static const struct sp_key zero;

	(void)state;
	assert_int_equal(cfg->eal_argc, 3);
	assert_string_equal(cfg->eal_argv[0], "--no-pci");
	assert_int_equal(cfg->nb_ports, 3);
	assert_string_equal(cfg->ports[0].device,
			    "net_pcap0,rx_pcap=/run/slicepath/demo-p0.pcap,infinite_rx=1");
	assert_int_equal(cfg->ports[2].ipv4, ip("10.0.2.1"));
	assert_int_equal(cfg->ports[2].rate_bps, 10000000000ULL);
	assert_int_equal(cfg->nb_neighbors, 2);
	assert_int_equal(cfg->neighbors[1].port, 2);
	assert_int_equal(cfg->nb_lcores, 1);
	assert_true(cfg->lcores[0].lc);
	assert_int_equal(cfg->nb_slices, 2);
	assert_string_equal(a->name, "alpha");
	assert_string_equal(a->codeopt, "ipv4");
	assert_int_equal(a->nb_endpoints, 3);
	assert_int_equal(a->nb_filters, 2);
	/* 192.168.2.0/24 on the inner destination -> endpoint 2 (p2), queue 1 */
	assert_memory_equal(a->filters[1].key.b, key, SP_KEY_BYTES);
	assert_memory_equal(a->filters[1].mask.b, mask, SP_KEY_BYTES);
	assert_int_equal(a->filters[1].result.endpoint, 2);
	assert_int_equal(a->filters[1].result.queue, 1);
	assert_int_equal(a->filters[1].result.nh_ip, ip("10.0.2.2"));
	assert_int_equal(a->filters[1].result.nh_port, htons(6001));
	assert_string_equal(b->name, "beta");
	assert_int_equal(b->nb_filters, 1);
	assert_memory_equal(&b->filters[0].mask, &zero, sizeof(zero));
	assert_int_equal(b->filters[0].result.nh_port, htons(6002));
	free_cfg(cfg);
}

static void
test_example_two_nic(void **state)
{
	struct sp_config *cfg = load_ok("config/two-nic.json");

	(void)state;
	assert_int_equal(cfg->nb_ports, 2);
	assert_string_equal(cfg->ports[0].device, "0000:3b:00.0");
	assert_string_equal(cfg->ports[1].device, "0000:3b:00.1");
	assert_int_equal(cfg->nb_npes, 2);
	assert_int_equal(cfg->nb_lcores, 3);
	assert_int_equal(cfg->lcores[0].id, 2);
	assert_true(cfg->lcores[0].lc);
	assert_int_equal(cfg->lcores[1].id, 4);
	assert_int_equal(cfg->lcores[1].npes[0], 0);
	assert_int_equal(cfg->lcores[2].id, 6);
	assert_int_equal(cfg->lcores[2].npes[0], 1);
	assert_int_equal(cfg->nb_slices, 2);
	assert_int_equal(cfg->slices[0].npe, 0);
	assert_int_equal(cfg->slices[1].npe, 1);
	free_cfg(cfg);
}

/* Write text to a new temporary file; returns its path (caller unlinks). */
static char *
temp_file(const char *text)
{
	char *path = strdup("/tmp/sp-test-config-XXXXXX");
	int fd;

	assert_non_null(path);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void
expect_load_error(const char *path, int rc_want, const char *after_path)
{
	struct sp_config *cfg = new_cfg();
	char err[SP_CONFIG_ERR_LEN] = "", want[SP_CONFIG_ERR_LEN];
	int rc = sp_config_load(path, cfg, err, sizeof(err));

	snprintf(want, sizeof(want), "%s: %s", path, after_path);
	if (strncmp(err, want, strlen(want)) != 0)
		print_error("got \"%s\", want it to start with \"%s\"\n", err, want);
	assert_int_equal(rc, rc_want);
	assert_int_equal(strncmp(err, want, strlen(want)), 0);
	expect_empty(cfg);
	free_cfg(cfg);
}

static void
test_load_errors(void **state)
{
	char *path;

	(void)state;
	expect_load_error("/nonexistent/slicepath.json", -ENOENT,
			  "cannot read: No such file or directory");
	expect_load_error("/tmp", -EISDIR, "cannot read: Is a directory");
	path = temp_file("{\n\t\"ports\": [\n\t\t{ \"name\": \"p0\" },\n\t]\n}\n");
	expect_load_error(path, -EINVAL, "line 4 column 2: JSON syntax error: ");
	unlink(path);
	free(path);
	path = temp_file("{\"ports\": [{\"name\": \"p0\", \"device\": \"x\", "
			 "\"ipv4\": \"1.2.3\"}]}");
	expect_load_error(path, -EINVAL, "ports[0].ipv4: \"1.2.3\" is not an IPv4 address");
	unlink(path);
	free(path);
	/* A NUL byte inside the file is not silently the end of it. */
	path = temp_file("{\"ports\": [{\"name\": \"p0\", \"device\": \"x\", "
			 "\"ipv4\": \"1.2.3.4\"}]}\n\n");
	{
		FILE *f = fopen(path, "a");

		assert_non_null(f);
		fputc('\0', f);
		fclose(f);
	}
	expect_load_error(path, -EINVAL, "line 3 column ");
	unlink(path);
	free(path);
}

int
main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_list_limits),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_default_lcore_runs_every_npe),
		cmocka_unit_test(test_several_lc_lcores),
		cmocka_unit_test(test_steering),
		cmocka_unit_test(test_lcore_cpus),
		cmocka_unit_test(test_explicit_values),
		cmocka_unit_test(test_slice_defaults),
		cmocka_unit_test(test_filter_bytes),
		cmocka_unit_test(test_error_without_buffer),
		cmocka_unit_test(test_free_twice),
		cmocka_unit_test(test_parse_rate),
		cmocka_unit_test(test_format_rate),
		cmocka_unit_test(test_parse_ipv4),
		cmocka_unit_test(test_parse_mac),
		cmocka_unit_test(test_parse_hex_key),
		cmocka_unit_test(test_rate_forms),
		cmocka_unit_test(test_example_default),
		cmocka_unit_test(test_example_two_nic),
		cmocka_unit_test(test_load_errors),
	};
	size_t nb_bad = ARRAY_SIZE(bad_cases), n = nb_bad + ARRAY_SIZE(fixed);
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	char (*names)[96] = calloc(nb_bad, sizeof(*names));
	int failed;

	if (tests == NULL || names == NULL)
		return 1;
	/* One test per error row, named after the message it expects. */
	for (size_t i = 0; i < nb_bad; i++) {
		snprintf(names[i], sizeof(names[i]), "bad %zu: %s", i, bad_cases[i].path);
		tests[i] = (struct CMUnitTest){ .name = names[i], .test_func = run_bad,
						.initial_state = (void *)&bad_cases[i] };
	}
	memcpy(tests + nb_bad, fixed, sizeof(fixed));
	failed = _cmocka_run_group_tests("config", tests, n, NULL, NULL);
	free(names);
	free(tests);
	return failed;
}
