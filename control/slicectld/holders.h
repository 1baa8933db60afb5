/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef CTLD_HOLDERS_H
#define CTLD_HOLDERS_H

#include <stdint.h>
#include <sys/types.h>

#include "ctld.h"

/* When pid started (clock ticks after boot, /proc/PID/stat), 0 if there is no such process. */
uint64_t holder_start_time(pid_t pid);
/* Release the endpoints (and their queues) whose holding process is gone. */
void holders_reap(struct ctld *c);

#endif
