/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The config parser's messages and typed field readers: each reader knows
 * its field's JSON path and writes the one-line error (config_read.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_config.h>

#include "config_read.h"
/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

/* Append to the string in buf (truncating: paths and lists only feed messages). */
void __attribute__((format(printf, 3, 4)))
cfg_append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* "parent.key"; just "key" at the top level; just "parent" without a key. */
void
cfg_field_path(char *out, const char *parent, const char *key)
{
	out[0] = '\0';
	if (key == NULL)
		cfg_append(out, PATH_LEN, "%s", parent[0] != '\0' ? parent : "top level");
	else if (parent[0] == '\0')
		cfg_append(out, PATH_LEN, "%s", key);
	else
		cfg_append(out, PATH_LEN, "%s.%s", parent, key);
}

/* "parent.key[i]". */
void
cfg_item_path(char *out, const char *parent, const char *key, size_t i)
{
	cfg_field_path(out, parent, key);
	cfg_append(out, PATH_LEN, "[%zu]", i);
}

/* Write the error (one line: control characters from quoted values become '?'). */
static void
set_error(struct parser *p, const char *fmt, va_list ap)
{
	if (p->err == NULL || p->errlen == 0)
		return;
	vsnprintf(p->err, p->errlen, fmt, ap);
	for (char *c = p->err; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

void __attribute__((format(printf, 2, 3)))
cfg_set_error_f(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(p, fmt, ap);
	va_end(ap);
}

/* Write "path: message" as the error and return -EINVAL. */
int __attribute__((format(printf, 4, 5)))
cfg_fail(struct parser *p, const char *parent, const char *key, const char *fmt, ...)
{
	char path[PATH_LEN];
	char msg[SP_CONFIG_ERR_LEN];
	va_list ap;

	cfg_field_path(path, parent, key);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg_set_error_f(p, "%s: %s", path, msg);
	return -EINVAL;
}

int
cfg_out_of_memory(struct parser *p, const char *path)
{
	cfg_fail(p, path, NULL, "out of memory; free some memory or shrink the config");
	return -ENOMEM;
}

/* ------------------------------------------------------------------ */
/* Typed field readers: each knows its path and writes its message     */
/* ------------------------------------------------------------------ */

/* v must be an object whose keys are all in valid (NULL-terminated). */
int
cfg_check_object(struct parser *p, json_t *v, const char *path, const char *const *valid)
{
	if (!json_is_object(v))
		return cfg_fail(p, path, NULL, "expected an object {...}, got %s", sp_json_type_name(v));
	for (void *it = json_object_iter(v); it != NULL; it = json_object_iter_next(v, it)) {
		const char *key = json_object_iter_key(it);
		char list[256] = "";
		size_t i;

		for (i = 0; valid[i] != NULL && strcmp(valid[i], key) != 0; i++)
			cfg_append(list, sizeof(list), "%s%s", i > 0 ? ", " : "", valid[i]);
		if (valid[i] == NULL)
			return cfg_fail(p, path, key, "unknown key; the keys allowed here are %s",
				        list);
	}
	return 0;
}

int
cfg_missing(struct parser *p, const char *path, const char *key)
{
	return cfg_fail(p, path, key, "required key is missing; add \"%s\" to %s", key,
		        path[0] != '\0' ? path : "the top level");
}



int
cfg_uint_value(struct parser *p, json_t *v, const char *path, const char *key,
	   const struct uint_spec *s, uint64_t *out)
{
	char text[32];
	uint64_t u;

	if (!json_is_number(v))
		return cfg_fail(p, path, key, "expected a whole number, got %s", sp_json_type_name(v));
	if (!sp_json_whole(v, &u, text) || u < s->min || u > s->max)
		return cfg_fail(p, path, key, "%s is out of range; use a whole number from %" PRIu64
			        " to %" PRIu64, text, s->min, s->max);
	if (s->pow2 && (u & (u - 1)) != 0)
		return cfg_fail(p, path, key, "%s is not a power of two; use one of %" PRIu64
			        ", %" PRIu64 ", ... %" PRIu64, text, s->min, 2 * s->min, s->max);
	*out = u;
	return 0;
}

int
cfg_get_uint(struct parser *p, json_t *obj, const char *path, const struct uint_spec *s,
	 uint64_t *out)
{
	json_t *v = json_object_get(obj, s->key);

	if (v == NULL) {
		if (s->required)
			return cfg_missing(p, path, s->key);
		*out = s->def;
		return 0;
	}
	return cfg_uint_value(p, v, path, s->key, s, out);
}

/* A nonempty string shorter than maxlen (the size of its destination). */
int
cfg_string_value(struct parser *p, json_t *v, const char *path, const char *key, size_t maxlen,
	     const char **out)
{
	size_t len;

	if (!json_is_string(v))
		return cfg_fail(p, path, key, "expected a string, got %s", sp_json_type_name(v));
	len = json_string_length(v);
	if (len == 0)
		return cfg_fail(p, path, key, "is empty; write a value");
	if (len >= maxlen)
		return cfg_fail(p, path, key, "is %zu characters long; shorten it to at most %zu", len,
			        maxlen - 1);
	*out = json_string_value(v);
	return 0;
}

/* 1 and *out set when present, 0 when absent and optional, else an error. */
int
cfg_get_string(struct parser *p, json_t *obj, const char *path, const char *key, bool required,
	   size_t maxlen, const char **out)
{
	json_t *v = json_object_get(obj, key);

	if (v == NULL)
		return required ? cfg_missing(p, path, key) : 0;
	TRY(cfg_string_value(p, v, path, key, maxlen, out));
	return 1;
}

/* A required string copied into dst (of size dstlen). */
int
cfg_get_text(struct parser *p, json_t *obj, const char *path, const char *key, char *dst,
	 size_t dstlen)
{
	const char *s;

	TRY(cfg_get_string(p, obj, path, key, true, dstlen, &s));
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

/* A required name: [A-Za-z0-9_], shorter than SP_NAME_LEN. Names key DPDK
 * telemetry dictionaries, which accept no other characters. */
int
cfg_get_name(struct parser *p, json_t *obj, const char *path, const char *key, char *dst)
{
	TRY(cfg_get_text(p, obj, path, key, dst, SP_NAME_LEN));
	for (const char *c = dst; *c != '\0'; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '_';

		if (!ok)
			return cfg_fail(p, path, key, "\"%s\" contains '%c'; use only letters, digits "
				        "and '_'", dst, *c);
	}
	return 0;
}

/* Absent (optional) arrays leave *out NULL; present ones hold min..max entries. */
int
cfg_get_array(struct parser *p, json_t *obj, const char *path, const char *key, bool required,
	  size_t min, size_t max, json_t **out)
{
	json_t *v = json_object_get(obj, key);
	size_t n;

	*out = NULL;
	if (v == NULL)
		return required ? cfg_missing(p, path, key) : 0;
	if (!json_is_array(v))
		return cfg_fail(p, path, key, "expected an array [...], got %s", sp_json_type_name(v));
	n = json_array_size(v);
	if (n < min)
		return cfg_fail(p, path, key, "is empty; give at least %zu entr%s%s", min,
			        min == 1 ? "y" : "ies", required ? "" : " or remove the key");
	if (n > max)
		return cfg_fail(p, path, key, "has %zu entries; at most %zu are allowed", n, max);
	*out = v;
	return 0;
}

/* A required dotted-quad unicast address. */
int
cfg_get_ipv4(struct parser *p, json_t *obj, const char *path, const char *key, uint32_t *ip_be)
{
	const char *s, *why;

	TRY(cfg_get_string(p, obj, path, key, true, SIZE_MAX, &s));
	if (sp_parse_ipv4(s, ip_be) < 0)
		return cfg_fail(p, path, key, "\"%s\" is not an IPv4 address; write it as a.b.c.d", s);
	why = sp_unusable_ipv4(*ip_be);
	if (why != NULL)
		return cfg_fail(p, path, key, "%s %s; use a unicast address", s, why);
	return 0;
}

/* An optional unicast IPv6 address; *present tells whether the key was there. */
int
cfg_get_ipv6(struct parser *p, json_t *obj, const char *path, const char *key, uint8_t ip6[16],
	     bool *present)
{
	const char *s, *why;
	int rc;

	rc = cfg_get_string(p, obj, path, key, false, SIZE_MAX, &s);
	*present = rc > 0;
	if (rc <= 0)
		return rc;
	if (sp_parse_ipv6(s, ip6) < 0)
		return cfg_fail(p, path, key, "\"%s\" is not an IPv6 address; write it like "
			        "2001:db8::1", s);
	why = sp_unusable_ipv6(ip6);
	if (why != NULL)
		return cfg_fail(p, path, key, "%s %s; use a unicast address", s, why);
	return 0;
}

/* A unicast MAC; *present tells whether the (optional) key was there. */
int
cfg_get_mac(struct parser *p, json_t *obj, const char *path, const char *key, bool required,
	uint8_t mac[6], bool *present)
{
	static const uint8_t zero[6];
	const char *s;
	int rc;

	rc = cfg_get_string(p, obj, path, key, required, SIZE_MAX, &s);
	*present = rc > 0;
	if (rc <= 0)
		return rc;
	if (sp_parse_mac(s, mac) < 0)
		return cfg_fail(p, path, key, "\"%s\" is not a MAC address; write it as six hex "
			        "bytes like 02:00:00:00:00:01", s);
	if ((mac[0] & 1) != 0 || memcmp(mac, zero, sizeof(zero)) == 0)
		return cfg_fail(p, path, key, "%s is not a unicast MAC address; use one whose first "
			        "byte is even and that is not all zeros, like 02:00:00:00:00:01", s);
	return 0;
}

/* Bits/s: a number, or a string with an optional k/K, M, G or T suffix. */
static int
cfg_get_rate(struct parser *p, json_t *obj, const char *path, const char *key, uint64_t def,
	     uint64_t *bps)
{
	json_t *v = json_object_get(obj, key);
	char text[32];

	*bps = def;
	if (v == NULL)
		return 0;
	if (json_is_number(v) && (!sp_json_whole(v, bps, text) || *bps == 0))
		return cfg_fail(p, path, key, "%s is not a rate; write a whole number of bits/s above "
			        "0, or a string like \"10G\" or \"1.5M\"", text);
	if (json_is_number(v))
		return 0;
	if (!json_is_string(v))
		return cfg_fail(p, path, key, "expected a rate such as \"10G\" or a number of bits/s, "
			        "got %s", sp_json_type_name(v));
	if (sp_parse_rate(json_string_value(v), bps) < 0)
		return cfg_fail(p, path, key, "\"%s\" is not a rate; write a whole number of bits/s "
			        "above 0, optionally with a suffix k, M, G or T, like \"10G\" or "
			        "\"1.5M\"", json_string_value(v));
	return 0;
}

/* A rate as written in a config: with the largest suffix that keeps it whole. */
const char *
cfg_rate_text(uint64_t bps, char buf[32])
{
	static const char suffixes[] = "TGMk";
	uint64_t div = UINT64_C(1000000000000);

	for (const char *c = suffixes; *c != '\0'; c++, div /= 1000) {
		if (bps >= div && bps % div == 0) {
			snprintf(buf, 32, "%" PRIu64 "%c", bps / div, *c);
			return buf;
		}
	}
	snprintf(buf, 32, "%" PRIu64, bps);
	return buf;
}

/* get_rate, within what the queue manager takes. */
int
cfg_get_sched_rate(struct parser *p, json_t *obj, const char *path, const char *key, uint64_t def,
	       uint64_t *bps)
{
	char a[32], b[32];

	TRY(cfg_get_rate(p, obj, path, key, def, bps));
	if (*bps > SP_MAX_RATE)
		return cfg_fail(p, path, key, "%s is above the %s a scheduler takes; write a lower "
			        "rate", cfg_rate_text(*bps, a), cfg_rate_text(SP_MAX_RATE, b));
	return 0;
}

/* For "use one of ..." lists: the port names. */
void
cfg_port_names(const struct sp_config *cfg, char *buf, size_t len)
{
	buf[0] = '\0';
	for (uint16_t i = 0; i < cfg->nb_ports; i++)
		cfg_append(buf, len, "%s%s", i > 0 ? ", " : "", cfg->ports[i].name);
}

int
cfg_find_port(const struct sp_config *cfg, const char *name)
{
	for (uint16_t i = 0; i < cfg->nb_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return i;
	return -1;
}

/* A required reference to a port by name. */
int
cfg_get_port_ref(struct parser *p, json_t *obj, const char *path, const char *key, uint16_t *port)
{
	char names[SP_MAX_PORTS * SP_NAME_LEN];
	const char *s;
	int i;

	TRY(cfg_get_string(p, obj, path, key, true, SIZE_MAX, &s));
	i = cfg_find_port(p->cfg, s);
	if (i < 0) {
		cfg_port_names(p->cfg, names, sizeof(names));
		return cfg_fail(p, path, key, "there is no port named \"%s\"; use one of %s", s, names);
	}
	*port = (uint16_t)i;
	return 0;
}

/* An index (read per s) into a list of count entries, named list in messages. */
int
cfg_get_index(struct parser *p, json_t *obj, const char *path, const struct uint_spec *s,
	  unsigned int count, const char *what, const char *list, uint16_t *out)
{
	uint64_t v;

	TRY(cfg_get_uint(p, obj, path, s, &v));
	if (v >= count && count == 0)
		return cfg_fail(p, path, s->key, "%s %" PRIu64 " does not exist: %s is empty; define "
			        "it there first", what, v, list);
	if (v >= count)
		return cfg_fail(p, path, s->key, "%s %" PRIu64 " does not exist; %s has %u, so use 0 "
			        "to %u", what, v, list, count, count - 1);
	*out = (uint16_t)v;
	return 0;
}

