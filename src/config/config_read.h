/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The config parser's shared parts (config_read.c): the parser state, the
 * error messages with their JSON paths, and the typed field readers that
 * the section parsers (config.c, config_slices.c) build on.
 */
#ifndef SP_CONFIG_READ_H
#define SP_CONFIG_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../common/json.h"
#include "config.h"

/* Longest JSON path we print, e.g. "slices[254].filters[1048575].result.next_hop". */
#define PATH_LEN 128

/* Return from the calling function on error (negative errno). */
#define TRY(expr)                                                                                  \
	do {                                                                                       \
		int rc_ = (expr);                                                                  \
		if (rc_ < 0)                                                                       \
			return rc_;                                                                \
	} while (0)

struct parser {
	struct sp_config *cfg;
	char *err;
	size_t errlen;
};

/* A whole number within [min, max]; absent means def unless required. */
struct uint_spec {
	const char *key;
	uint64_t min, max, def;
	bool required;
	bool pow2;
};

#define MIB (UINT64_C(1) << 20)

#define OPT(k, lo, hi, d) { .key = k, .min = lo, .max = hi, .def = d }
#define REQ(k, lo, hi) { .key = k, .min = lo, .max = hi, .required = true }

/* 10T: the highest rate a scheduler takes (src/qm/qm.h). */

/* Append to the string in buf (truncating: paths and lists only feed messages). */
void cfg_append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "parent.key"; just "key" at the top level; just "parent" without a key. */
void cfg_field_path(char *out, const char *parent, const char *key);

/* "parent.key[i]". */
void cfg_item_path(char *out, const char *parent, const char *key, size_t i);

/* Set the whole error message (no path). */
void cfg_set_error_f(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write "path: message" as the error and return -EINVAL. */
int cfg_fail(struct parser *p, const char *parent, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* -ENOMEM, saying which field could not be stored. */
int cfg_out_of_memory(struct parser *p, const char *path);


/* v must be an object whose keys are all in valid (NULL-terminated). */
int cfg_check_object(struct parser *p, json_t *v, const char *path, const char *const *valid);

/* A required key is missing: -EINVAL with "add it" advice. */
int cfg_missing(struct parser *p, const char *path, const char *key);

/* obj's s->key by s (cfg_uint_value). */
int cfg_get_uint(struct parser *p, json_t *obj, const char *path, const struct uint_spec *s,
		 uint64_t *out);

/* 1 and *out set when present, 0 when absent and optional, else an error. */
int cfg_get_string(struct parser *p, json_t *obj, const char *path, const char *key, bool required,
		   size_t maxlen, const char **out);

/* A required string copied into dst (of size dstlen). */
int cfg_get_text(struct parser *p, json_t *obj, const char *path, const char *key, char *dst,
		 size_t dstlen);

/* A required name: [A-Za-z0-9_], shorter than SP_NAME_LEN. Names key DPDK
 * telemetry dictionaries, which accept no other characters. */
int cfg_get_name(struct parser *p, json_t *obj, const char *path, const char *key, char *dst);

/* Absent (optional) arrays leave *out NULL; present ones hold min..max entries. */
int cfg_get_array(struct parser *p, json_t *obj, const char *path, const char *key, bool required,
		  size_t min, size_t max, json_t **out);

/* A required dotted-quad unicast address. */
int cfg_get_ipv4(struct parser *p, json_t *obj, const char *path, const char *key,
		 uint32_t *ip_be);

/* An optional unicast IPv6 address; *present tells whether the key was there. */
int cfg_get_ipv6(struct parser *p, json_t *obj, const char *path, const char *key,
		 uint8_t ip6[16], bool *present);

/* A unicast MAC; *present tells whether the (optional) key was there. */
int cfg_get_mac(struct parser *p, json_t *obj, const char *path, const char *key, bool required,
		uint8_t mac[6], bool *present);

/* A rate as written in a config: with the largest suffix that keeps it whole. */
const char *cfg_rate_text(uint64_t bps, char buf[32]);

/* Bits/s (a number, or a string with an optional k/K, M, G or T suffix), within what the
 * queue manager takes (SP_MAX_RATE). */
int cfg_get_sched_rate(struct parser *p, json_t *obj, const char *path, const char *key,
		       uint64_t def, uint64_t *bps);

/* For "use one of ..." lists: the port names. */
void cfg_port_names(const struct sp_config *cfg, char *buf, size_t len);

/* The index of the port named name, or -1. */
int cfg_find_port(const struct sp_config *cfg, const char *name);

/* A required reference to a port by name. */
int cfg_get_port_ref(struct parser *p, json_t *obj, const char *path, const char *key,
		     uint16_t *port);

/* An index (read per s) into a list of count entries, named list in messages. */
int cfg_get_index(struct parser *p, json_t *obj, const char *path, const struct uint_spec *s,
		  unsigned int count, const char *what, const char *list, uint16_t *out);

/* A nonempty string shorter than maxlen (the size of its destination). */
int cfg_string_value(struct parser *p, json_t *v, const char *path, const char *key, size_t maxlen,
		     const char **out);

/* v as a whole number within s's [min, max] (s->key names it in messages). */
int cfg_uint_value(struct parser *p, json_t *v, const char *path, const char *key,
		   const struct uint_spec *s, uint64_t *out);

/* The "slices" section (config_slices.c), after ports and NPEs. */
int cfg_parse_slices(struct parser *p, json_t *root);

#endif
