/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Residence time: how long frames spend inside the node, from the LC's rx
 * burst to the port taking them. The LC stamps one received frame every
 * SP_RESIDENCE_INTERVAL_US (whatever the rate, a few cycles a round) and
 * its tx adds the stamped frames' times to the lcore's histogram
 * (stats.h). As in DPDK's latencystats, the stamp travels in an mbuf
 * dynamic field, marked by a dynamic flag: frames keep both through the
 * rings to other NPE lcores and back.
 */
#ifndef SP_RESIDENCE_H
#define SP_RESIDENCE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#define SP_RESIDENCE_INTERVAL_US 100

struct sp_residence {
	int tsc_offset;    /* the stamp's dynamic field */
	uint64_t flag;     /* the dynamic flag of a stamped frame */
	uint64_t interval; /* TSC cycles between stamps */
	double ns_per_tsc;
};

/* Register the field and flag (once per process, later calls find them). 0 or -rte_errno. */
int sp_residence_init(struct sp_residence *r);

static inline void
sp_residence_stamp(const struct sp_residence *r, struct rte_mbuf *m, uint64_t tsc)
{
	*RTE_MBUF_DYNFIELD(m, r->tsc_offset, uint64_t *) = tsc;
	m->ol_flags |= r->flag;
}

static inline bool
sp_residence_stamped(const struct sp_residence *r, const struct rte_mbuf *m)
{
	return (m->ol_flags & r->flag) != 0;
}

static inline uint64_t
sp_residence_stamp_of(const struct sp_residence *r, struct rte_mbuf *m)
{
	return *RTE_MBUF_DYNFIELD(m, r->tsc_offset, uint64_t *);
}

#endif
