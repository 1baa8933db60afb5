/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to src/node: the waits that make a change safe while the lcores forward. */
#ifndef SP_NODE_INT_H
#define SP_NODE_INT_H

#include "node.h"

/* Every lcore has passed a quiescent state: nothing unpublished before is still in use. */
void sp_node_wait_lcores(const struct sp_node *node);

/*
 * Packets of a withdrawn slice may still wait in the rings into the NPEs
 * (from the LC lcores, from a slow path). Wait until the NPEs have taken
 * them (and dropped them, the slice being gone), so that none is ever
 * taken for a packet of a slice created later with the same id, or by an
 * NPE the slice has left.
 */
void sp_node_drain_npe_inputs(const struct sp_node *node);

#endif
