/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host slices (SPP's GPE vServers): a slice without a code option whose
 * endpoints' frames go, whole and unchanged, into its own network namespace
 * through an interface slicepathd made there (netns_tap.h), where ordinary
 * programs use ordinary sockets; what the namespace sends goes out through
 * the slice's queues, from its endpoints' ports or, for its own outgoing
 * connections, through its NAT range (nat.h). The lcore running the
 * slice's NPE does both directions: it alone owns the NAT table.
 */
#ifndef SP_HSLICE_H
#define SP_HSLICE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "../common/limits.h"
#include "nat.h"
#include "netns_tap.h"

struct sp_fastpath;
struct sp_npe;
struct sp_slice;
struct sp_lcore_stats;

struct sp_hslice {
	int fd; /* its interface's TAP */
	char netns[SP_NETNS_NAME_LEN];
	char ifname[SP_IFNAME_LEN];
	struct rte_ether_addr mac; /* the interface's: frames written to it are addressed to it */
	struct sp_nat *nat;        /* NULL: no NAT range; else it knows the range */
	/* Its namespace was deleted (its name gone or another namespace's) or its interface
	 * failed: frames for it are dropped (netns_gone). Set by either thread. */
	bool gone;
	bool gone_reported; /* the management thread logged it */
	uint64_t ns_dev, ns_ino; /* the namespace's file when the slice was made */
};

/* What slice.create asks of a host slice. */
struct sp_hslice_spec {
	const char *netns;
	uint16_t nat_ports; /* the NAT range's size; 0: no NAT */
	uint16_t nat_first; /* the range's first number, as stored by slicectld; 0: any */
};

/*
 * NPE lcore: frames decap handed to host slices (whole, any of them, n at
 * most SP_NPE_ROUND): mapped back through the NAT where they came to its
 * range, written into the slices' interfaces, counted, freed. The NPE's
 * host_input (fastpath.h).
 */
void sp_hslice_input(const struct sp_fastpath *fp, struct rte_mbuf **pkts, uint16_t n,
		     struct sp_lcore_stats *st);
/*
 * NPE lcore: what slice s's namespace sent (a burst at most), checked,
 * through the NAT if not from one of its endpoints, into its queue on the
 * output port; and a share of its NAT table expired.
 */
void sp_hslice_output(const struct sp_fastpath *fp, struct sp_npe *npe, struct sp_slice *s,
		      struct sp_lcore_stats *st);

#endif
