/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replay: make slicepathd hold exactly the stored state, after either
 * daemon (re)started or a change could not be stored. A managed slice
 * slicepathd has as stored is left running, only its filters brought in
 * step; one that differs is re-created (and counted: the database is the
 * truth); one missing is created with its endpoints (at their indexes),
 * queues, memory and filters; a managed slice the store does not have (a
 * change not acknowledged) is deleted. Slices of slicepathd's config are
 * left alone. What slicepathd refuses is skipped and the rest written: the
 * slice is then degraded (or absent, if not even the slice could be made)
 * with the first reason in its "trouble", never deleted from the store, and
 * reconcile_retry() writes what is missing again.
 */
#ifndef CTLD_RECONCILE_H
#define CTLD_RECONCILE_H

#include "ctld.h"

void reconcile_all(struct ctld *c);
/* The slice of this id only (stored or not), and no other. */
void reconcile_slice(struct ctld *c, uint16_t id);
void reconcile_schedulers(struct ctld *c);
/* The slices not in force (degraded or absent), each tried again. */
void reconcile_retry(struct ctld *c);

#endif
