/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * filter add, del, list and load. "add" takes the key and mask in hex, or
 * the ipv4 code option's fields (slicepath/ipv4.h); port ranges become
 * ternary prefixes (common/range.h), and a rule the cross product of its
 * two ports' prefixes, at consecutive positions: they never overlap, so
 * their order among themselves does not matter.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slicepath/ipv4.h>

#include "cli.h"
#include "common/filter_json.h"
#include "common/range.h"
#include "common/text.h"

/* "a.b.c.d" or "a.b.c.d/len" into the key at off. */
static int
put_prefix(const char *what, const char *s, struct sp_key *key, struct sp_key *mask,
	   unsigned int off)
{
	char ip[INET_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	uint64_t len = 32;
	uint32_t addr, m;

	if ((slash != NULL && (size_t)(slash - s) >= sizeof(ip)) ||
	    (slash != NULL && cli_uint(what, slash + 1, 32, &len) != 0))
		return cli_usage("%s: \"%s\" is not an address or a prefix like 10.1.0.0/16", what,
				 s);
	snprintf(ip, sizeof(ip), "%.*s", slash != NULL ? (int)(slash - s) : (int)strlen(s), s);
	if (sp_parse_ipv4(ip, &addr) < 0)
		return cli_usage("%s: \"%s\" is not an IPv4 address", what, ip);
	m = len == 0 ? 0 : htonl(~0u << (32 - len));
	/* As iproute2: host bits are a typo in the address or the length, not to be cleared. */
	if ((addr & ~m) != 0) {
		char net[INET_ADDRSTRLEN];
		uint32_t masked = addr & m;

		inet_ntop(AF_INET, &masked, net, sizeof(net));
		return cli_usage("%s: \"%s\" has bits set past its /%" PRIu64 ": did you mean "
				 "%s/%" PRIu64 "?", what, s, len, net, len);
	}
	memcpy(&key->b[off], &addr, 4);
	memcpy(&mask->b[off], &m, 4);
	return 0;
}

/* "80" or "1024-65535" into the prefixes covering it. */
static int
port_prefixes(const char *what, const char *s, struct sp_prefix16 *out, int *n)
{
	const char *dash = strchr(s, '-');
	char lo_text[8];
	uint64_t lo, hi;

	if (dash == NULL || dash - s >= (long)sizeof(lo_text))
		dash = s + strlen(s);
	snprintf(lo_text, sizeof(lo_text), "%.*s", (int)(dash - s), s);
	if (cli_uint(what, lo_text, UINT16_MAX, &lo) != 0 ||
	    cli_uint(what, *dash == '-' ? dash + 1 : lo_text, UINT16_MAX, &hi) != 0)
		return EXIT_USAGE;
	*n = sp_range_to_prefixes((uint16_t)lo, (uint16_t)hi, out, SP_RANGE_MAX_PREFIXES);
	if (*n < 0)
		return cli_usage("%s: %s is an empty range", what, s);
	return 0;
}

static int
parse_proto(const char *s, struct sp_key *key, struct sp_key *mask)
{
	static const struct {
		const char *name;
		uint8_t proto;
	} names[] = {{"icmp", 1}, {"tcp", 6}, {"udp", 17}};
	uint64_t v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i].name) == 0) {
			key->b[SP_IPV4_KEY_PROTO] = names[i].proto;
			mask->b[SP_IPV4_KEY_PROTO] = 0xff;
			return 0;
		}
	if (cli_uint("proto", s, UINT8_MAX, &v) != 0)
		return EXIT_USAGE;
	key->b[SP_IPV4_KEY_PROTO] = (uint8_t)v;
	mask->b[SP_IPV4_KEY_PROTO] = 0xff;
	return 0;
}

static void
put_port(struct sp_key *key, struct sp_key *mask, unsigned int off, struct sp_prefix16 p)
{
	uint16_t v = htons(p.value), m = htons(p.mask);

	memcpy(&key->b[off], &v, 2);
	memcpy(&mask->b[off], &m, 2);
}

enum { K_POS, K_KEY, K_MASK, K_DST, K_SRC, K_SPORT, K_DPORT, K_PROTO, K_ENDPOINT, K_QUEUE,
       K_NEXTHOP, K_DATA, K_MAX };

/* The filters "add" asks for: one, or one per pair of port prefixes. */
static int
build_filters(const char **v, json_t *list, uint64_t *first)
{
	struct sp_prefix16 sp[SP_RANGE_MAX_PREFIXES], dp[SP_RANGE_MAX_PREFIXES];
	struct sp_key key = {{0}}, mask = {{0}};
	bool fields = v[K_DST] || v[K_SRC] || v[K_SPORT] || v[K_DPORT] || v[K_PROTO];
	uint64_t endpoint, queue, pos;
	json_t *result;
	int nsp = 1, ndp = 1, rc;

	static const struct {
		int k;
		const char *name;
	} needed[] = {{K_POS, "pos N"}, {K_ENDPOINT, "endpoint E"}, {K_QUEUE, "queue Q"},
		      {K_NEXTHOP, "nexthop IP:PORT"}};
	char missing[64] = "";

	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++)
		if (v[needed[i].k] == NULL)
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%s",
				 missing[0] != '\0' ? ", " : "", needed[i].name);
	if (missing[0] != '\0')
		return cli_usage("filter add: give %s too", missing);
	if (fields == (v[K_KEY] != NULL) || (v[K_KEY] == NULL) != (v[K_MASK] == NULL))
		return cli_usage("filter add: give either key and mask (hex), or ipv4 fields (dst, "
				 "src, sport, dport, proto)");
	if (cli_uint("pos", v[K_POS], UINT32_MAX, &pos) != 0 ||
	    cli_uint("endpoint", v[K_ENDPOINT], UINT16_MAX, &endpoint) != 0 ||
	    cli_uint("queue", v[K_QUEUE], UINT16_MAX, &queue) != 0)
		return EXIT_USAGE;
	if (v[K_KEY] != NULL && (sp_parse_hex_key(v[K_KEY], &key) < 0 ||
				 sp_parse_hex_key(v[K_MASK], &mask) < 0))
		return cli_usage("filter add: key and mask are 28 hex digits (112 bits) each");
	rc = v[K_DST] != NULL ? put_prefix("dst", v[K_DST], &key, &mask, SP_IPV4_KEY_DST) : 0;
	rc = rc == 0 && v[K_SRC] != NULL ? put_prefix("src", v[K_SRC], &key, &mask,
						      SP_IPV4_KEY_SRC) : rc;
	rc = rc == 0 && v[K_PROTO] != NULL ? parse_proto(v[K_PROTO], &key, &mask) : rc;
	rc = rc == 0 && v[K_SPORT] != NULL ? port_prefixes("sport", v[K_SPORT], sp, &nsp) : rc;
	rc = rc == 0 && v[K_DPORT] != NULL ? port_prefixes("dport", v[K_DPORT], dp, &ndp) : rc;
	if (rc != 0)
		return rc;
	if (v[K_SPORT] == NULL)
		sp[0] = (struct sp_prefix16){0, 0};
	if (v[K_DPORT] == NULL)
		dp[0] = (struct sp_prefix16){0, 0};
	/* next_hop and data as given: the server checks them, in its own words. */
	result = sp_result_json_text((uint16_t)endpoint, (uint16_t)queue, v[K_NEXTHOP], v[K_DATA]);
	for (int i = 0; i < nsp; i++) {
		for (int j = 0; j < ndp; j++) {
			char k[2 * SP_KEY_BYTES + 1], m[2 * SP_KEY_BYTES + 1];

			if (v[K_SPORT] != NULL)
				put_port(&key, &mask, SP_IPV4_KEY_SPORT, sp[i]);
			if (v[K_DPORT] != NULL)
				put_port(&key, &mask, SP_IPV4_KEY_DPORT, dp[j]);
			sp_format_hex(k, key.b, SP_KEY_BYTES);
			sp_format_hex(m, mask.b, SP_KEY_BYTES);
			json_array_append_new(list, sp_filter_json_text(pos + json_array_size(list),
									k, m, json_incref(result)));
		}
	}
	json_decref(result);
	*first = pos;
	return 0;
}

static int
filter_add(struct cli *cli, int argc, char **argv)
{
	static const char *const keys[] = {"pos", "key", "mask", "dst", "src", "sport", "dport",
					   "proto", "endpoint", "queue", "nexthop", "data", NULL};
	const char *v[K_MAX];
	json_t *list = json_array(), *p;
	uint64_t first = 0;
	size_t n;
	char said[160];
	int rc;

	if (argc < 1) {
		json_decref(list);
		return cli_usage("usage: slicectl filter add SLICE pos N (key HEX mask HEX | [dst "
				 "PREFIX] [src PREFIX] [sport PORT[-PORT]] [dport PORT[-PORT]] "
				 "[proto P]) endpoint E queue Q nexthop IP:PORT [data HEX]");
	}
	rc = cli_pairs(argc - 1, argv + 1, keys, v);
	if (rc == 0)
		rc = build_filters(v, list, &first);
	if (rc != 0) {
		json_decref(list);
		return rc;
	}
	n = json_array_size(list);
	if (n == 1) {
		p = json_incref(json_array_get(list, 0));
		json_decref(list);
		snprintf(said, sizeof(said), "filter written at position %" PRIu64, first);
	} else {
		p = json_pack("{s:o}", "filters", list);
		snprintf(said, sizeof(said), "%zu filters written at positions %" PRIu64 " to %"
			 PRIu64 " (the port ranges as %zu prefix pairs)", n, first, first + n - 1,
			 n);
	}
	json_object_set_new(p, "slice", cli_slice(argv[0]));
	return cli_call_and_say(cli, SP_M_FILTER_INSERT, p, said);
}

static int
filter_del(struct cli *cli, int argc, char **argv)
{
	char said[128];
	json_t *p;

	if (argc != 3 || strcmp(argv[1], "pos") != 0)
		return cli_usage("usage: slicectl filter del SLICE pos N");
	p = json_pack("{s:o}", "slice", cli_slice(argv[0]));
	if (cli_put_uint(p, SP_FILTER_POSITION, argv[2], UINT32_MAX) != 0) {
		json_decref(p);
		return EXIT_USAGE;
	}
	snprintf(said, sizeof(said), "filter at position %s of slice %s deleted", argv[2], argv[0]);
	return cli_call_and_say(cli, SP_M_FILTER_DELETE, p, said);
}

static int
filter_list(struct cli *cli, int argc, char **argv)
{
	int status;
	json_t *r, *o;
	struct table *t;
	size_t i;

	if (argc != 1)
		return cli_usage("usage: slicectl filter list SLICE");
	r = cli_call_for_table(cli, SP_M_FILTER_LIST, json_pack("{s:o}", "slice",
							      cli_slice(argv[0])), &status);
	if (r == NULL)
		return status;
	t = table_new(8, "POS", "KEY", "MASK", "ENDPOINT", "QUEUE", "NEXTHOP", "DATA", "HITS");
	json_array_foreach(r, i, o) {
		json_t *res = json_object_get(o, SP_FILTER_RESULT);
		char b[4][24];

		/* As the answer has them: the fleet's registry keeps filters as they were given. */
		snprintf(b[0], 24, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(o, SP_FILTER_POSITION)));
		snprintf(b[1], 24, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(res, SP_RESULT_ENDPOINT)));
		snprintf(b[2], 24, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(res, SP_RESULT_QUEUE)));
		snprintf(b[3], 24, "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(o, SP_FILTER_HITS)));
		table_row(t, b[0], json_string_value(json_object_get(o, SP_FILTER_KEY)),
			  json_string_value(json_object_get(o, SP_FILTER_MASK)), b[1], b[2],
			  json_string_value(json_object_get(res, SP_RESULT_NEXT_HOP)),
			  json_string_value(json_object_get(res, SP_RESULT_DATA)), b[3]);
	}
	table_print(t);
	json_decref(r);
	return 0;
}

/* One filter object per line (JSON Lines); blank lines and lines starting with # skipped. */
static json_t *
read_lines(FILE *f, const char *path)
{
	json_t *all = json_array();
	char *line = NULL;
	size_t cap = 0;
	unsigned int lineno = 0;

	while (getline(&line, &cap, f) >= 0) {
		size_t skip = strspn(line, " \t\r\n");
		json_error_t je;
		json_t *one;

		lineno++;
		if (line[skip] == '\0' || line[skip] == '#')
			continue;
		one = json_loads(line, 0, &je);
		if (!json_is_object(one)) {
			cli_usage("filter load: %s: line %u: %s", path, lineno,
				  one == NULL ? je.text : "not a filter object");
			json_decref(one);
			json_decref(all);
			all = NULL;
			break;
		}
		json_array_append_new(all, one);
	}
	free(line);
	return all;
}

/* The filters of a file: one JSON array, or JSON Lines. */
static json_t *
read_filters(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	json_t *all;
	json_error_t je;
	int c;

	if (f == NULL) {
		cli_usage("filter load: cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	while ((c = fgetc(f)) == ' ' || c == '\n' || c == '\t' || c == '\r')
		;
	ungetc(c, f);
	if (c == '[') {
		all = json_loadf(f, 0, &je);
		if (!json_is_array(all)) {
			cli_usage("filter load: %s: line %d: %s", path, je.line,
				  all == NULL ? je.text : "not an array of filters");
			json_decref(all);
			all = NULL;
		}
	} else {
		all = read_lines(f, path);
	}
	if (f != stdin)
		fclose(f);
	return all;
}

/* filter load SLICE FILE [batch N]: many filters, N a request (each all or none). */
static int
filter_load(struct cli *cli, int argc, char **argv)
{
	static const char *const keys[] = {"batch", NULL};
	const char *v[1];
	uint64_t batch = SP_FILTER_BATCH;
	struct timespec t0, t1;
	json_t *all;
	size_t n, done = 0;
	double secs;
	int rc;

	if (argc < 2)
		return cli_usage("usage: slicectl filter load SLICE FILE|- [batch N]");
	rc = cli_pairs(argc - 2, argv + 2, keys, v);
	if (rc == 0 && v[0] != NULL)
		rc = cli_uint("batch", v[0], SP_MAX_FILTER_BATCH, &batch);
	if (rc != 0 || (all = read_filters(argv[1])) == NULL)
		return rc != 0 ? rc : EXIT_USAGE;
	n = json_array_size(all);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (done < n) {
		size_t take = n - done < batch ? n - done : batch;
		json_t *part = json_array();
		json_t *r;

		for (size_t i = 0; i < take; i++)
			json_array_append(part, json_array_get(all, done + i));
		r = cli_call(cli, SP_M_FILTER_INSERT, json_pack("{s:o, s:o}", "slice",
							     cli_slice(argv[0]), "filters", part), &rc);
		if (r == NULL) {
			fprintf(stderr, "slicectl: filters %zu to %zu of %s were not written; the %zu "
					"before them were\n", done, done + take - 1, argv[1], done);
			json_decref(all);
			return rc;
		}
		json_decref(r);
		done += take;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	json_decref(all);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (cli->json)
		printf("{\"written\": %zu, \"seconds\": %.3f}\n", n, secs);
	else
		printf("%zu filters written in %.3f s (%.0f writes/s)\n", n, secs,
		       secs > 0 ? (double)n / secs : 0.0);
	return 0;
}

int
cmd_filter(struct cli *cli, int argc, char **argv)
{
	static const struct cli_command cmds[] = {
		{"list", filter_list, "SLICE"},
		{"add", filter_add, "SLICE pos N (key HEX mask HEX | [dst PREFIX] [src PREFIX] "
				    "[sport PORT[-PORT]] [dport PORT[-PORT]] [proto P]) endpoint E "
				    "queue Q nexthop IP:PORT [data HEX]"},
		{"del", filter_del, "SLICE pos N"},
		{"load", filter_load, "SLICE FILE|- [batch N]"},
		{NULL, NULL, NULL},
	};

	return cli_run(cli, "filter", cmds, argc, argv);
}
