/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A host slice's life on the node (hslice_ops.c), on the management thread:
 * its interface and NAT range (hostslice/hslice.h) made and taken apart.
 */
#ifndef SP_NODE_HSLICE_OPS_H
#define SP_NODE_HSLICE_OPS_H

#include <stddef.h>

#include "../hostslice/hslice.h"

struct sp_node;
struct sp_slice;

/*
 * Give slice s its interface in the namespace (named as the slice, cut to
 * 15 characters) and its NAT range (the one from spec->nat_first, or the
 * lowest free one of the config's NAT ports, on every port with an
 * address). 0, or a negative errno with
 * why in err; nothing left behind on error.
 */
int sp_hslice_create(struct sp_node *node, struct sp_slice *s, const struct sp_hslice_spec *spec,
		     char *err, size_t errlen);
/* After the slice is withdrawn and the lcores are past it: its interface and NAT go. */
void sp_hslice_destroy(struct sp_node *node, struct sp_slice *s);
/* Its NAT range out of the endpoint table: first, before the slice is withdrawn. */
void sp_hslice_withdraw(struct sp_node *node, struct sp_slice *s);

/*
 * Management thread, about once a second: has a host slice's namespace been
 * deleted, or its interface failed? Logged once, shown in slice.list, and
 * its frames dropped as netns_gone from then on.
 */
void sp_hslices_watch(struct sp_node *node);

#endif
