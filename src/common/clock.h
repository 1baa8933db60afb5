/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SP_CLOCK_H
#define SP_CLOCK_H

#include <time.h>

/* Seconds on the monotonic clock: for intervals (benchmarks, timers), never dates. */
static inline double
sp_mono_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#endif
