/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fast path's way out through a queue: the NPE's forwarded bursts and a
 * host slice's frames both end here, so that what the queue manager took is
 * counted once, one way.
 */
#ifndef SP_FASTPATH_OUTPUT_H
#define SP_FASTPATH_OUTPUT_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "fastpath.h"

struct sp_qm;

/*
 * Queue n packets, Ethernet headers written, into qm; count what it took as
 * its slice's fwd and its endpoint's tx (a NAT range is no endpoint), and
 * retire what it refused (queue_full and the others, set by the queue manager).
 */
void sp_output_burst(const struct sp_fastpath *fp, struct sp_qm *qm, struct rte_mbuf **pkts,
		     uint16_t n, struct sp_lcore_stats *st);

#endif
