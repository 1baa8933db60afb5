/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stats missed SLICE: the slice's last missed keys (stats.missed), newest
 * first, each as `filter add` takes it: the ipv4 code option's fields
 * (slicepath/ipv4.h) for an ipv4 slice, else key and an exact mask in hex.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <slicepath/ipv4.h>

#include "cli.h"
#include "common/text.h"

/* The exact match of hex key as `filter add` arguments, into out. */
static const char *
match_args(const char *codeopt, const char *hex, char *out, size_t len)
{
	static const char *const protos[256] = {[1] = "icmp", [6] = "tcp", [17] = "udp"};
	char dst[INET_ADDRSTRLEN], src[INET_ADDRSTRLEN], proto[4];
	struct sp_key k;
	uint16_t sport, dport;

	if (hex == NULL || sp_parse_hex_key(hex, &k) < 0)
		return NULL;
	if (strcmp(codeopt, "ipv4") != 0 || k.b[SP_IPV4_KEY_ZERO] != 0) {
		snprintf(out, len, "key %s mask %.*s", hex, 2 * SP_KEY_BYTES,
			 "ffffffffffffffffffffffffffffffff");
		return out;
	}
	inet_ntop(AF_INET, &k.b[SP_IPV4_KEY_DST], dst, sizeof(dst));
	inet_ntop(AF_INET, &k.b[SP_IPV4_KEY_SRC], src, sizeof(src));
	memcpy(&sport, &k.b[SP_IPV4_KEY_SPORT], 2);
	memcpy(&dport, &k.b[SP_IPV4_KEY_DPORT], 2);
	snprintf(proto, sizeof(proto), "%u", k.b[SP_IPV4_KEY_PROTO]);
	snprintf(out, len, "dst %s src %s sport %u dport %u proto %s", dst, src, ntohs(sport),
		 ntohs(dport), protos[k.b[SP_IPV4_KEY_PROTO]] != NULL ?
		 protos[k.b[SP_IPV4_KEY_PROTO]] : proto);
	return out;
}

static const char MISSED_USAGE[] =
	"usage: slicectl stats missed SLICE\n"
	"  the slice's last missed keys (at most 8), newest first, each as filter add takes it";

static void
print_missed(json_t *r)
{
	const char *codeopt = json_string_value(json_object_get(r, "codeopt"));
	json_t *list = json_object_get(r, "missed"), *o;
	struct table *t;
	size_t i;

	printf("slice %s: %" JSON_INTEGER_FORMAT " misses in all; the last %zu kept (at most %"
	       JSON_INTEGER_FORMAT "), newest first\n",
	       json_string_value(json_object_get(r, "slice")),
	       json_integer_value(json_object_get(r, "misses")), json_array_size(list),
	       json_integer_value(json_object_get(r, "keep")));
	if (json_array_size(list) == 0)
		return;
	t = table_new(6, "AGE", "ENDPOINT", "PORT", "FROM", "KEY", "MATCH");
	json_array_foreach(list, i, o) {
		const char *key = json_string_value(json_object_get(o, "key"));
		json_t *ep = json_object_get(o, "endpoint");
		char age[32], index[8], match[160];

		snprintf(age, sizeof(age), "%.3fs",
			 (double)json_integer_value(json_object_get(o, "age_ms")) / 1e3);
		snprintf(index, sizeof(index), "%" JSON_INTEGER_FORMAT, json_integer_value(ep));
		table_row(t, age, ep != NULL ? index : NULL,
			  json_string_value(json_object_get(o, "port")),
			  json_is_true(json_object_get(o, "injected")) ? "slow_path" : "wire", key,
			  match_args(codeopt != NULL ? codeopt : "", key, match, sizeof(match)));
	}
	table_print(t);
}

int
cmd_stats_missed(struct cli *cli, int argc, char **argv)
{
	int status;
	json_t *r;

	if (argc != 1 || cli_is_help(argv[0]))
		return argc == 1 ? cli_help(MISSED_USAGE) : cli_usage("%s", MISSED_USAGE);
	r = cli_call_for_table(cli, SP_M_STATS_MISSED, json_pack("{s:o}", "slice",
								  cli_slice(argv[0])), &status);
	if (r == NULL)
		return status;
	print_missed(r);
	json_decref(r);
	return 0;
}
