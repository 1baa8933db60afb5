/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The drop funnel: every packet that leaves the fast path other than through
 * a queue (a drop, an exception) ends here, in exactly one counter. Below
 * both the NPE (src/npe/) and the host slices (src/hostslice/), which retire what
 * they do not send.
 */
#ifndef SP_FASTPATH_RETIRE_H
#define SP_FASTPATH_RETIRE_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "fastpath.h"

/* Count packets that left the fast path (exception or drop), any number, by reason; hand
 * the exceptions of slices with a slow path connected to the management
 * thread (fp->exc_ring), free the others. */
void sp_retire_burst(const struct sp_fastpath *fp, struct rte_mbuf **pkts, uint16_t n,
		     struct sp_lcore_stats *st);

#endif
