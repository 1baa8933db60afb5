/* SPDX-License-Identifier: BSD-3-Clause */
/* The code option registry and slice creation, as a slice developer meets them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sp_test.h"
#include "npe/slice.h"

static int init_calls, fini_calls, init_rc;

static void
noop(struct sp_slice *s __rte_unused, struct rte_mbuf **pkts __rte_unused, uint16_t n __rte_unused)
{
}

static void
release_nothing(void *old __rte_unused)
{
}

static int
count_init(struct sp_slice *s)
{
	init_calls++;
	sp_slice_set_priv(s, &init_calls);
	sp_slice_log(s, RTE_LOG_INFO, "init %d", init_calls);
	return init_rc;
}

static void
count_fini(struct sp_slice *s __rte_unused)
{
	fini_calls++;
}

static const struct sp_codeopt test_co = {
	.name = "test_co",
	.abi_version = SP_CODEOPT_ABI,
	.slice_init = count_init,
	.slice_fini = count_fini,
	.parse = noop,
	.format = noop,
};
SP_CODEOPT_REGISTER(test_co);

static void
test_builtin_and_constructor_registered(void **state __rte_unused)
{
	char names[256];

	assert_ptr_equal(sp_codeopt_find("test_co"), &test_co);
	assert_non_null(sp_codeopt_find("ipv4"));
	assert_null(sp_codeopt_find("nonesuch"));
	sp_codeopt_names(names, sizeof(names));
	assert_non_null(strstr(names, "ipv4"));
	assert_non_null(strstr(names, "test_co"));
}

/* node.info's "codeopts": every registered name once, then host, then the end. */
static void
test_names_listed_one_by_one(void **state __rte_unused)
{
	unsigned int i = 0, ipv4 = 0, test = 0;

	for (; sp_codeopt_name(i) != NULL && strcmp(sp_codeopt_name(i), "host") != 0; i++) {
		ipv4 += strcmp(sp_codeopt_name(i), "ipv4") == 0;
		test += strcmp(sp_codeopt_name(i), "test_co") == 0;
	}
	assert_int_equal(ipv4, 1);
	assert_int_equal(test, 1);
	assert_string_equal(sp_codeopt_name(i), "host");
	assert_null(sp_codeopt_name(i + 1));
}

static void
test_bad_descriptors_refused(void **state __rte_unused)
{
	unsigned int refused = sp_codeopt_refused();
	struct sp_codeopt co = test_co;

	co.name = "other";
	co.abi_version = SP_CODEOPT_ABI + 1;
	assert_int_equal(sp_codeopt_register(&co), -ENOTSUP);
	co.abi_version = SP_CODEOPT_ABI;
	co.parse = NULL;
	assert_int_equal(sp_codeopt_register(&co), -EINVAL);
	co.parse = noop;
	co.name = "";
	assert_int_equal(sp_codeopt_register(&co), -EINVAL);
	co.name = "other";
	co.release = release_nothing; /* release without load */
	assert_int_equal(sp_codeopt_register(&co), -EINVAL);
	co.release = NULL;
	co.name = "test_co";
	assert_int_equal(sp_codeopt_register(&co), -EEXIST);
	assert_int_equal(sp_codeopt_register(NULL), -EINVAL);
	assert_null(sp_codeopt_find("other"));
	/* The daemon tells a refused shared object by this count. */
	assert_int_equal(sp_codeopt_refused(), refused + 6);
}

static void
test_slice_lifecycle_runs_init_and_fini(void **state __rte_unused)
{
	char err[256] = "";
	struct sp_slice *s;

	init_calls = fini_calls = init_rc = 0;
	s = sp_slice_create(3, "gamma", "test_co", 1, 128, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(init_calls, 1);
	assert_int_equal(sp_slice_id(s), 3);
	assert_int_equal(sp_slice_mem_size(s), 128);
	assert_ptr_equal(sp_slice_priv(s), &init_calls);
	for (size_t i = 0; i < 128; i++)
		assert_int_equal(((uint8_t *)sp_slice_mem(s))[i], 0);
	for (unsigned int q = 0; q < SP_MAX_SLICE_QUEUES; q++)
		assert_int_equal(s->qmap[q], SP_QUEUE_UNBOUND);
	sp_slice_destroy(s);
	assert_int_equal(fini_calls, 1);
}

static void
test_slice_errors_say_why(void **state __rte_unused)
{
	char err[256] = "";

	assert_null(sp_slice_create(4, "delta", "nonesuch", 0, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "unknown code option \"nonesuch\""));
	assert_non_null(strstr(err, "ipv4"));
	init_rc = -EPERM;
	fini_calls = 0;
	assert_null(sp_slice_create(4, "delta", "test_co", 0, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "failed to start"));
	assert_non_null(strstr(err, strerror(EPERM)));
	assert_int_equal(fini_calls, 0);
	init_rc = 0;
}

/* What sp_slice_log writes: "<codeopt>: slice <name>: ...", under the code option's own type. */
static void
test_slice_log_names_the_code_option_and_slice(void **state __rte_unused)
{
	char err[256] = "", *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct sp_slice *s;

	assert_non_null(f);
	rte_openlog_stream(f);
	/* The tests' EAL logs warnings and worse: info lines of this type let through first. */
	assert_int_equal(rte_log_set_level_pattern("slicepath.codeopt.test_co", RTE_LOG_INFO), 0);
	init_calls = 0;
	s = sp_slice_create(5, "epsilon", "test_co", 0, 0, err, sizeof(err));
	assert_non_null(s);
	sp_slice_destroy(s);
	/* Its own type: set to errors only, the code option's info lines go. */
	assert_int_equal(rte_log_set_level_pattern("slicepath.codeopt.test_co", RTE_LOG_ERR), 0);
	s = sp_slice_create(5, "epsilon", "test_co", 0, 0, err, sizeof(err));
	assert_non_null(s);
	sp_slice_destroy(s);
	rte_openlog_stream(NULL);
	fclose(f);
	assert_string_equal(text, "test_co: slice epsilon: init 1\n");
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_and_constructor_registered),
		cmocka_unit_test(test_names_listed_one_by_one),
		cmocka_unit_test(test_bad_descriptors_refused),
		cmocka_unit_test(test_slice_lifecycle_runs_init_and_fini),
		cmocka_unit_test(test_slice_errors_say_why),
		cmocka_unit_test(test_slice_log_names_the_code_option_and_slice),
	};

	sp_test_eal_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
