/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sp_ctl_reason_name: a slow path names an exception's h.reason as stats and
 * telemetry name its counter, and a number the library does not know reads
 * "unknown", never a crash or an empty string.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <slicepath/ctl.h>

static void
test_known_reasons_by_their_counter_names(void **state)
{
	(void)state;
	assert_string_equal(sp_ctl_reason_name(SP_REASON_NONE), "none");
	assert_string_equal(sp_ctl_reason_name(SP_REASON_TTL_EXPIRED), "ttl_expired");
	assert_string_equal(sp_ctl_reason_name(SP_REASON_MISS), "miss");
	assert_string_equal(sp_ctl_reason_name(SP_REASON_OPTIONS), "options");
	assert_string_equal(sp_ctl_reason_name(SP_REASON_BAD_SOURCE), "bad_source");
}

static void
test_every_reason_has_a_name(void **state)
{
	(void)state;
	for (unsigned int r = 0; r < SP_REASON_MAX; r++) {
		const char *n = sp_ctl_reason_name((uint8_t)r);

		assert_non_null(n);
		assert_true(n[0] != '\0');
		if (strcmp(n, "unknown") == 0)
			fail_msg("reason %u has no name", r);
	}
}

static void
test_unknown_numbers(void **state)
{
	(void)state;
	assert_string_equal(sp_ctl_reason_name(SP_REASON_MAX), "unknown");
	assert_string_equal(sp_ctl_reason_name(255), "unknown");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_reasons_by_their_counter_names),
		cmocka_unit_test(test_every_reason_has_a_name),
		cmocka_unit_test(test_unknown_numbers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
