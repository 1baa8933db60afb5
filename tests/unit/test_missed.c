/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A slice's last missed keys (src/npe/missed.h): newest first, at most
 * SP_MISSED_KEEP, the oldest overwritten as the ring wraps; an entry being
 * written when read is left out, never read half old and half new; and a
 * reader on another thread while the writer writes as fast as it can only
 * ever sees whole entries, newest first.
 */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "npe/missed.h"

/* Write n's key: every byte n's low byte, endpoint n's low 16 bits, injected if n is odd. */
static void
record(struct sp_missed *m, uint64_t n)
{
	struct sp_key k;

	memset(k.b, (int)(n & 0xff), sizeof(k.b));
	sp_missed_record(m, &k, (uint16_t)n, n & 1, n);
}

/* k is write n whole (record()'s), and nothing of another write. */
static bool
is_write(const struct sp_missed_key *k, uint64_t n)
{
	for (unsigned int i = 0; i < SP_KEY_BYTES; i++)
		if (k->key.b[i] != (uint8_t)n)
			return false;
	return k->nth == n && k->tsc == n && k->in_ep == (uint16_t)n && k->injected == (n & 1);
}

static void
test_empty(void **state)
{
	static struct sp_missed m;
	struct sp_missed_key out[SP_MISSED_KEEP];

	(void)state;
	assert_int_equal(sp_missed_read(&m, out), 0);
}

static void
test_fields_and_order(void **state)
{
	struct sp_missed m = {0};
	struct sp_missed_key out[SP_MISSED_KEEP];
	const struct sp_key key = {{0xc0, 0xa8, 0x01, 0x05, 0xc0, 0x00, 0x02, 0x01, 0x03, 0xe8,
				    0x0b, 0xb8, 0x11, 0x00}};

	(void)state;
	sp_missed_record(&m, &key, 513, false, 1000);
	record(&m, 1);
	record(&m, 2);
	assert_int_equal(sp_missed_read(&m, out), 3);
	/* Newest first. */
	assert_true(is_write(&out[0], 2));
	assert_true(is_write(&out[1], 1));
	assert_memory_equal(out[2].key.b, key.b, SP_KEY_BYTES);
	assert_int_equal(out[2].nth, 0);
	assert_int_equal(out[2].in_ep, 513);
	assert_false(out[2].injected);
	assert_int_equal(out[2].tsc, 1000);
}

static void
test_wraparound_keeps_the_last(void **state)
{
	struct sp_missed m = {0};
	struct sp_missed_key out[SP_MISSED_KEEP];

	(void)state;
	for (uint64_t n = 0; n < 3 * SP_MISSED_KEEP + 3; n++) {
		unsigned int kept = n + 1 < SP_MISSED_KEEP ? (unsigned int)n + 1 : SP_MISSED_KEEP;

		record(&m, n);
		assert_int_equal(sp_missed_read(&m, out), kept);
		for (unsigned int i = 0; i < kept; i++)
			assert_true(is_write(&out[i], n - i));
	}
}

/* A reader between the writer's two halves: the slot being rewritten is left out. */
static void
test_read_during_write(void **state)
{
	struct sp_missed m = {0};
	struct sp_missed_key out[SP_MISSED_KEEP];
	struct sp_missed_slot *s;
	struct sp_key k;

	(void)state;
	for (uint64_t n = 0; n < 10; n++)
		record(&m, n);
	s = sp_missed_begin(&m); /* write 10, over write 2 */
	assert_int_equal(sp_missed_read(&m, out), SP_MISSED_KEEP - 1);
	for (unsigned int i = 0; i < SP_MISSED_KEEP - 1; i++)
		assert_true(is_write(&out[i], 9 - i));
	/* Half of it written: still left out. */
	__atomic_store_n(&s->key[0], 0x0a0a0a0a0a0a0a0a, __ATOMIC_RELAXED);
	assert_int_equal(sp_missed_read(&m, out), SP_MISSED_KEEP - 1);
	memset(k.b, 10, sizeof(k.b));
	sp_missed_end(&m, s, &k, 10, false, 10);
	assert_int_equal(sp_missed_read(&m, out), SP_MISSED_KEEP);
	for (unsigned int i = 0; i < SP_MISSED_KEEP; i++)
		assert_true(is_write(&out[i], 10 - i));
}

#define WRITES 2000000

static struct sp_missed shared;
static bool writer_done;

static void *
writer(void *arg)
{
	(void)arg;
	for (uint64_t n = 0; n < WRITES; n++)
		record(&shared, n);
	__atomic_store_n(&writer_done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Reads while another thread writes: only whole entries, newest first, never more than kept. */
static void
test_concurrent_reader_sees_whole_entries(void **state)
{
	struct sp_missed_key out[SP_MISSED_KEEP];
	uint64_t reads = 0, seen = 0;
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, writer, NULL), 0);
	while (!__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE)) {
		unsigned int n = sp_missed_read(&shared, out);

		assert_true(n <= SP_MISSED_KEEP);
		for (unsigned int i = 0; i < n; i++) {
			if (!is_write(&out[i], out[i].nth))
				fail_msg("read %u of a read: write %" PRIu64 " torn", i, out[i].nth);
			if (i > 0)
				assert_true(out[i].nth < out[i - 1].nth);
		}
		reads++;
		seen += n;
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	print_message("%" PRIu64 " reads while writing, %" PRIu64 " entries seen whole\n", reads,
		      seen);
	assert_int_equal(sp_missed_read(&shared, out), SP_MISSED_KEEP);
	for (unsigned int i = 0; i < SP_MISSED_KEEP; i++)
		assert_true(is_write(&out[i], WRITES - 1 - i));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_fields_and_order),
		cmocka_unit_test(test_wraparound_keeps_the_last),
		cmocka_unit_test(test_read_during_write),
		cmocka_unit_test(test_concurrent_reader_sees_whole_entries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
