/* SPDX-License-Identifier: BSD-3-Clause */
#include "breathe.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <time.h>

#include <rte_cycles.h>

static __thread bool breathing;
static __thread uint64_t last, every;

void
lk_breathe_start(void)
{
	/* A microsecond's sleep, not the default 50 us of timer slack. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	every = rte_get_tsc_hz() / 1000000 * LK_BREATHE_US;
	last = rte_rdtsc();
	breathing = true;
}

void
lk_breathe(void)
{
	const struct timespec us = {.tv_nsec = 1000};

	if (!breathing || rte_rdtsc() - last < every)
		return;
	nanosleep(&us, NULL);
	last = rte_rdtsc();
}
