/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which CPUs an lcore runs on, read from EAL's --lcores option as DPDK
 * parses it (docs/config.md, "NUMA and pinning"), without starting EAL:
 * --check-config explains two forwarding lcores on one CPU before a start.
 */
#ifndef SP_LCORE_CPUS_H
#define SP_LCORE_CPUS_H

#include <sched.h>

/*
 * The CPUs lcore runs on under the --lcores value `map` (such as
 * "0@0,1@1,2@0" or "(1,2)@(3-4),5-6"): 1 and *cpus set if map names the
 * lcore, 0 if not, -1 if map does not parse (EAL then says why).
 */
int sp_lcore_cpus(const char *map, unsigned int lcore, cpu_set_t *cpus);

#endif
