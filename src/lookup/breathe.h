/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The compiler thread gives its CPU away every LK_BREATHE_US of work.
 *
 * It shares its CPUs with the management thread (every CPU but the
 * control threads' is an lcore's), and the scheduler preempts only at its
 * tick (4 ms on the 2-vCPU VM): a compile that ran on kept a write's answer
 * off the CPU for up to 5 ms, whatever the time slice asked for. A sleep of
 * a microsecond every LK_BREATHE_US lets a waiting thread run within that
 * (a spinner sharing a CPU left gaps of 8 ms; breathing every 200 us, 0.6 ms).
 */
#ifndef SP_LOOKUP_BREATHE_H
#define SP_LOOKUP_BREATHE_H

#define LK_BREATHE_US 200

/* This thread breathes from now on (other threads' calls do nothing). */
void lk_breathe_start(void);
/* Sleep a microsecond if LK_BREATHE_US have passed since the last time. */
void lk_breathe(void);

#endif
