/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames through a host slice's TAP (opened with a virtio-net header,
 * netns_tap.h). Written: a burst's TCP segments of one flow are merged
 * (DPDK's GRO) into one frame of up to 64 KB that the slice's kernel takes
 * as a GSO packet, so that one system call (and one pass of its TCP
 * receive) carries tens of segments. Read: the kernel segments and
 * checksums what the slice sends (no offloads asked), frames as on a wire.
 */
#ifndef SP_TAP_IO_H
#define SP_TAP_IO_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "../npe/npe.h"

/*
 * Mark a frame whose IPv4 (hlen bytes) and TCP header the caller checked as
 * one GRO may merge: its checksums are verified here (the merged frame's are
 * not checked again), a frame with a bad one stays unmarked and goes on its
 * own (the slice's kernel then drops it).
 */
void sp_tap_mark_tcp(struct rte_mbuf *m, uint16_t ip_hlen, uint16_t tcp_hlen);

/* What became of a frame written (a merged one stands for `frames` received). */
struct sp_tap_written {
	uint8_t reason; /* SP_REASON_NONE, or why the interface did not take it */
	uint16_t frames;
	uint32_t bytes; /* as received, all of them */
};

/*
 * Merge pkts (n <= SP_NPE_ROUND, single segments) and write each result:
 * returns how many frames were written or refused, pkts[i] and out[i] for
 * each; the caller counts and frees them.
 */
uint16_t sp_tap_write_burst(int fd, struct rte_mbuf **pkts, uint16_t n,
			    struct sp_tap_written *out);

/*
 * Up to n frames from the TAP into fresh mbufs of mp; *failed when the
 * interface is gone (a read error other than "nothing now").
 */
uint16_t sp_tap_read_burst(int fd, struct rte_mempool *mp, struct rte_mbuf **pkts, uint16_t n,
			   bool *failed);

#endif
