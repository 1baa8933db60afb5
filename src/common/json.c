/* SPDX-License-Identifier: BSD-3-Clause */
#include "json.h"

#include <inttypes.h>
#include <stdio.h>

const char *
sp_json_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

bool
sp_json_whole(const json_t *v, uint64_t *u, char text[32])
{
	double d;

	*u = 0;
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		snprintf(text, 32, "%" JSON_INTEGER_FORMAT, i);
		*u = i >= 0 ? (uint64_t)i : 0;
		return i >= 0;
	}
	d = json_real_value(v);
	snprintf(text, 32, "%g", d);
	/* Below 2^64, d is whole when cutting its fraction off leaves it as it is. */
	if (!json_is_real(v) || d < 0 || d >= 0x1p64 || d != (double)(uint64_t)d)
		return false;
	*u = (uint64_t)d;
	return true;
}
