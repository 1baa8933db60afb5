/* SPDX-License-Identifier: BSD-3-Clause */
/* slicepath-gen's spec file: JSON, every field checked, errors name the field. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/text.h"
#include "gen.h"

#define DEFAULT_DURATION 10.0
#define DEFAULT_DRAIN 0.5
#define DEFAULT_INTERVAL 1.0
#define MAX_SECONDS 86400.0
#define MAX_PPS 1e9
/* Stream names go into tables, CSV and file names. */
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-."

struct parse {
	char *err;
	size_t errlen;
};

static int __attribute__((format(printf, 3, 4)))
fail(struct parse *p, const char *path, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "%s: %s", path, msg);
	return -1;
}

/* s as it may appear in a one-line message: control bytes as \xNN, cut to fit size. */
static const char *
shown(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s != '\0' && n + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;

		n += (size_t)(c < 0x20 || c == 0x7f ? snprintf(buf + n, 5, "\\x%02x", c)
						     : snprintf(buf + n, 2, "%c", c));
	}
	buf[n] = '\0';
	return buf;
}

static const char *const TOP_KEYS[] = {"duration", "drain", "interval", "streams", NULL};
static const char *const STREAM_KEYS[] = {
	"name", "tx_port", "rx_port", "src_mac", "dst_mac", "src_ip", "dst_ip", "src_port",
	"dst_port", "inner_src", "inner_dst", "inner_sport", "inner_dport", "ttl", "flows",
	"payload", "pps", "bps", "phases", "i3_id", NULL,
};

static int
known_keys(struct parse *p, json_t *o, const char *path, const char *const *keys)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		unsigned int i = 0;

		while (keys[i] != NULL && strcmp(keys[i], k) != 0)
			i++;
		if (keys[i] == NULL) {
			char buf[100];

			return fail(p, path, "unknown key \"%s\"", shown(k, buf, sizeof(buf)));
		}
	}
	return 0;
}

/* A number (integer: a whole one) in [lo, hi]; def when absent. */
static int
get_value(struct parse *p, json_t *o, const char *path, const char *key, bool integer, double lo,
	  double hi, double def, double *out)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL) {
		*out = def;
		return 0;
	}
	if (!(integer ? json_is_integer(v) : json_is_number(v)) ||
	    !isfinite(json_number_value(v)) || json_number_value(v) < lo ||
	    json_number_value(v) > hi)
		return fail(p, path, "\"%s\" must be %s from %.15g to %.15g", key,
			    integer ? "an integer" : "a number", lo, hi);
	*out = json_number_value(v);
	return 0;
}

static int
get_number(struct parse *p, json_t *o, const char *path, const char *key, double lo, double hi,
	   double def, double *out)
{
	return get_value(p, o, path, key, false, lo, hi, def, out);
}

/* Integers here are at most 2^24: exact as doubles. */
static int
get_uint(struct parse *p, json_t *o, const char *path, const char *key, uint64_t lo, uint64_t hi,
	 uint64_t def, uint64_t *out)
{
	double v;

	if (get_value(p, o, path, key, true, (double)lo, (double)hi, (double)def, &v) < 0)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* A string field parsed by fn (an address); def when absent and def != NULL. */
static int
get_text(struct parse *p, json_t *o, const char *path, const char *key, const char *def,
	 int (*fn)(const char *, void *), void *out, const char *what)
{
	json_t *v = json_object_get(o, key);
	const char *s = v != NULL ? json_string_value(v) : def;

	if (s == NULL)
		return fail(p, path, v == NULL ? "\"%s\" is required (%s)" : "\"%s\" must be a "
			    "string (%s)", key, what);
	if (fn(s, out) != 0) {
		char buf[100];

		return fail(p, path, "\"%s\": \"%s\" is not %s", key, shown(s, buf, sizeof(buf)),
			    what);
	}
	return 0;
}

static int
parse_ip(const char *s, void *out)
{
	return sp_parse_ipv4(s, out);
}

/*
 * An address of either family, IPv4 held as mapped (common/ipaddr.h); an
 * IPv4-mapped IPv6 address is refused: is it IPv4's outer header or IPv6's?
 */
static int
parse_ip_any(const char *s, void *out)
{
	struct sp_ip *ip = out;
	uint8_t ip6[16];
	uint32_t ip4;

	if (sp_parse_ipv4(s, &ip4) == 0) {
		*ip = sp_ip_v4(ip4);
		return 0;
	}
	if (sp_parse_ipv6(s, ip6) != 0)
		return -1;
	*ip = sp_ip_v6(ip6);
	return sp_ip_is_v4(ip) ? -1 : 0;
}

static int
parse_mac(const char *s, void *out)
{
	return sp_parse_mac(s, out);
}

static int
get_phases(struct parse *p, json_t *o, const char *path, double duration,
	   struct gen_stream_spec *st)
{
	json_t *arr = json_object_get(o, "phases"), *ph;
	size_t i;

	if (arr == NULL) {
		st->nb_phases = 1;
		st->phases[0] = (struct gen_phase){0, duration};
		return 0;
	}
	if (!json_is_array(arr) || json_array_size(arr) == 0 ||
	    json_array_size(arr) > GEN_MAX_PHASES)
		return fail(p, path, "\"phases\" must be a list of 1 to %d [start, stop] pairs",
			    GEN_MAX_PHASES);
	json_array_foreach(arr, i, ph) {
		json_t *a = json_array_get(ph, 0), *b = json_array_get(ph, 1);
		double start = json_number_value(a), stop = json_number_value(b);

		if (!json_is_array(ph) || json_array_size(ph) != 2 || !json_is_number(a) ||
		    !json_is_number(b) || !(start >= 0) || !(stop > start) || stop > duration)
			return fail(p, path, "phases[%zu] must be [start, stop] seconds with 0 <= "
				    "start < stop <= duration (%g)", i, duration);
		if (i > 0 && start < st->phases[i - 1].stop)
			return fail(p, path, "phases[%zu] starts before phases[%zu] stops", i, i - 1);
		st->phases[i] = (struct gen_phase){start, stop};
	}
	st->nb_phases = (unsigned int)json_array_size(arr);
	return 0;
}

/* "pps" (a number) or "bps" (a rate: bits on the wire, "100M"), exactly one. */
static int
get_rate(struct parse *p, json_t *o, const char *path, struct gen_stream_spec *st)
{
	json_t *pps = json_object_get(o, "pps"), *bps = json_object_get(o, "bps");
	uint64_t bits;
	unsigned int frame;
	double wire;

	if ((pps == NULL) == (bps == NULL))
		return fail(p, path, "give the rate as exactly one of \"pps\" and \"bps\"");
	if (pps != NULL)
		return get_number(p, o, path, "pps", 1e-3, MAX_PPS, 0, &st->pps);
	if (json_is_integer(bps) && json_integer_value(bps) > 0)
		bits = (uint64_t)json_integer_value(bps);
	else if (!json_is_string(bps) || sp_parse_rate(json_string_value(bps), &bits) != 0 ||
		 bits == 0)
		return fail(p, path, "\"bps\" must be a rate such as \"100M\" or a positive integer");
	/* What one frame takes on the wire: padded to 60 bytes, plus the overhead. */
	frame = st->outer_len + st->inner_len + st->payload;
	wire = (double)(frame < 60 ? 60 : frame) + GEN_WIRE_OVERHEAD;
	st->pps = (double)bits / (wire * 8);
	if (st->pps < 1e-3 || st->pps > MAX_PPS)
		return fail(p, path, "\"bps\" gives %g packets/s, outside 0.001 to %g", st->pps,
			    MAX_PPS);
	return 0;
}

/* "i3_id", 64 hex digits: the stream sends i3 data packets to that ID. */
static int
get_i3_id(struct parse *p, json_t *o, const char *path, struct gen_stream_spec *st)
{
	json_t *v = json_object_get(o, "i3_id");
	const char *hex = json_string_value(v);

	if (v == NULL)
		return 0;
	if (hex == NULL || strlen(hex) != 2 * GEN_I3_ID_LEN ||
	    strspn(hex, "0123456789abcdefABCDEF") != 2 * GEN_I3_ID_LEN)
		return fail(p, path, "\"i3_id\" must be an i3 ID: %d hex digits", 2 * GEN_I3_ID_LEN);
	for (int i = 0; i < GEN_I3_ID_LEN; i++) {
		char byte[3] = {hex[2 * i], hex[2 * i + 1], 0};

		st->i3_id[i] = (uint8_t)strtoul(byte, NULL, 16);
	}
	st->i3 = true;
	return 0;
}

static int
parse_stream(struct parse *p, json_t *o, unsigned int i, double duration,
	     struct gen_stream_spec *st)
{
	char path[48];
	uint64_t v;
	json_t *name;

	snprintf(path, sizeof(path), "streams[%u]", i);
	if (!json_is_object(o))
		return fail(p, path, "must be an object");
	if (known_keys(p, o, path, STREAM_KEYS) < 0)
		return -1;
	name = json_object_get(o, "name");
	if (name != NULL && (!json_is_string(name) || json_string_length(name) == 0 ||
			     json_string_length(name) >= GEN_NAME_LEN ||
			     strspn(json_string_value(name), NAME_CHARS) != json_string_length(name)))
		return fail(p, path, "\"name\" must be 1 to %d letters, digits, '_', '-' or '.'",
			    GEN_NAME_LEN - 1);
	if (name != NULL)
		snprintf(st->name, sizeof(st->name), "%s", json_string_value(name));
	else
		snprintf(st->name, sizeof(st->name), "s%u", i);
	if (get_uint(p, o, path, "tx_port", 0, GEN_MAX_PORTS - 1, 0, &v) < 0)
		return -1;
	st->tx_port = (uint16_t)v;
	if (get_uint(p, o, path, "rx_port", 0, GEN_MAX_PORTS - 1, st->tx_port, &v) < 0)
		return -1;
	st->rx_port = (uint16_t)v;
	if (get_text(p, o, path, "src_mac", "02:00:00:00:00:01", parse_mac, st->src_mac,
		     "a unicast MAC address") < 0 ||
	    get_text(p, o, path, "dst_mac", NULL, parse_mac, st->dst_mac,
		     "a unicast MAC address (the node port's)") < 0 ||
	    get_text(p, o, path, "src_ip", NULL, parse_ip_any, &st->src_ip,
		     "an IPv4 or IPv6 address") < 0 ||
	    get_text(p, o, path, "dst_ip", NULL, parse_ip_any, &st->dst_ip,
		     "an IPv4 or IPv6 address (the node port's)") < 0 ||
	    get_text(p, o, path, "inner_src", "192.168.0.1", parse_ip, &st->inner_src,
		     "an IPv4 address") < 0 ||
	    get_i3_id(p, o, path, st) < 0 ||
	    get_text(p, o, path, "inner_dst", st->i3 ? "0.0.0.0" : NULL, parse_ip,
		     &st->inner_dst, "an IPv4 address") < 0)
		return -1;
	if (sp_ip_is_v4(&st->src_ip) != sp_ip_is_v4(&st->dst_ip))
		return fail(p, path, "\"src_ip\" and \"dst_ip\" must be of one family");
	st->outer_len = sp_ip_is_v4(&st->dst_ip) ? GEN_OUTER_LEN : GEN_OUTER6_LEN;
	st->inner_len = st->i3 ? GEN_I3_INNER_LEN : GEN_IPV4_INNER_LEN;
	if (get_uint(p, o, path, "src_port", 1, 65535, 4000, &v) < 0)
		return -1;
	st->src_port = (uint16_t)v;
	if (get_uint(p, o, path, "dst_port", 1, 65535, 0, &v) < 0)
		return -1;
	if (v == 0)
		return fail(p, path, "\"dst_port\" is required: the endpoint's UDP port");
	st->dst_port = (uint16_t)v;
	if (get_uint(p, o, path, "inner_sport", 1, 65535, 1000, &v) < 0)
		return -1;
	st->inner_sport = (uint16_t)v;
	if (get_uint(p, o, path, "inner_dport", 1, 65535, 2000, &v) < 0)
		return -1;
	st->inner_dport = (uint16_t)v;
	if (get_uint(p, o, path, "ttl", 1, 255, 64, &v) < 0)
		return -1;
	st->ttl = (uint8_t)v;
	if (get_uint(p, o, path, "flows", 1, 1u << 24, 1, &v) < 0)
		return -1;
	st->flows = (uint32_t)v;
	if (get_uint(p, o, path, "payload", 0, GEN_MAX_FRAME - st->outer_len - st->inner_len, 64,
		     &v) < 0)
		return -1;
	st->payload = (uint16_t)v;
	if (get_rate(p, o, path, st) < 0)
		return -1;
	return get_phases(p, o, path, duration, st);
}

int
gen_spec_parse(const char *text, struct gen_spec *spec, char *err, size_t errlen)
{
	struct parse p = {err, errlen};
	json_error_t je;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je), *streams, *o;
	int rc = -1;
	size_t i;

	memset(spec, 0, sizeof(*spec));
	if (root == NULL) {
		char buf[sizeof(je.text)];

		/* jansson quotes the input near the error. */
		snprintf(err, errlen, "line %d column %d: %s", je.line, je.column,
			 shown(je.text, buf, sizeof(buf)));
		return -1;
	}
	if (!json_is_object(root)) {
		fail(&p, "spec", "must be a JSON object");
		goto out;
	}
	if (known_keys(&p, root, "spec", TOP_KEYS) < 0 ||
	    get_number(&p, root, "spec", "duration", 1e-3, MAX_SECONDS, DEFAULT_DURATION,
		       &spec->duration) < 0 ||
	    get_number(&p, root, "spec", "drain", 0, 60, DEFAULT_DRAIN, &spec->drain) < 0 ||
	    get_number(&p, root, "spec", "interval", 0, MAX_SECONDS, DEFAULT_INTERVAL,
		       &spec->interval) < 0)
		goto out;
	streams = json_object_get(root, "streams");
	if (!json_is_array(streams) || json_array_size(streams) == 0 ||
	    json_array_size(streams) > GEN_MAX_STREAMS) {
		fail(&p, "spec", "\"streams\" must be a list of 1 to %d streams", GEN_MAX_STREAMS);
		goto out;
	}
	json_array_foreach(streams, i, o) {
		if (parse_stream(&p, o, (unsigned int)i, spec->duration, &spec->streams[i]) < 0)
			goto out;
		for (size_t k = 0; k < i; k++) {
			const struct gen_stream_spec *a = &spec->streams[k], *b = &spec->streams[i];

			if (a->payload < GEN_SIG_LEN && b->payload < GEN_SIG_LEN &&
			    a->rx_port == b->rx_port) {
				fail(&p, "streams", "streams %zu and %zu both carry no signature "
				     "(payload under %d) to port %u: their packets could not be told "
				     "apart", k, i, GEN_SIG_LEN, b->rx_port);
				goto out;
			}
			if (strcmp(spec->streams[k].name, spec->streams[i].name) == 0) {
				fail(&p, "streams", "streams %zu and %zu are both named %s", k, i,
				     spec->streams[i].name);
				goto out;
			}
		}
		spec->nb_streams = (unsigned int)i + 1;
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

int
gen_spec_load(const char *path, struct gen_spec *spec, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	static char text[1 << 20];
	char msg[512];
	size_t n;

	if (f == NULL) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	n = fread(text, 1, sizeof(text) - 1, f);
	if (!feof(f)) {
		snprintf(err, errlen, "%s: %s", path, ferror(f) ? strerror(errno) :
			 "longer than 1 MiB");
		fclose(f);
		return -1;
	}
	fclose(f);
	text[n] = '\0';
	if (gen_spec_parse(text, spec, msg, sizeof(msg)) == 0)
		return 0;
	snprintf(err, errlen, "%s: %s", path, msg); /* which file */
	return -1;
}
