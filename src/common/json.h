/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the config parser and the API servers both need of a JSON value:
 * its type in words, and a whole number read the same way everywhere
 * (an integer, or a real such as 1e6 that is one). No DPDK.
 */
#ifndef SP_JSON_H
#define SP_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

/* "an object", "a string", ... for messages about what someone wrote. */
const char *sp_json_type_name(const json_t *v);

/* Whether v is a whole number >= 0 (into *u); text gets it as written, for messages. */
bool sp_json_whole(const json_t *v, uint64_t *u, char text[32]);

#endif
