/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The desired state on disk: an SQLite database in WAL mode (crash-safe: a
 * transaction is in the file whole or not at all). slicectld changes it in
 * a transaction per request and acknowledges the request only once that
 * transaction is committed. Every function returns 0 (or a count) or -1,
 * with the reason in store_error().
 */
#ifndef CTLD_STORE_H
#define CTLD_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slicepath/ctl.h>

#include "ctld.h"

#define STORE_PAGE 4096 /* slice memory is kept in pages of this many bytes */

/* Open (creating it and its directory if missing) the database at path. */
int store_open(struct store **st, const char *path, bool sync_full, char *err, size_t errlen);
void store_close(struct store *st);
const char *store_error(const struct store *st);

int store_begin(struct store *st);
int store_commit(struct store *st);
void store_rollback(struct store *st);

/* Fill m with the stored slices, endpoints, queues and schedulers. */
int store_load(struct store *st, struct model *m);

int store_put_slice(struct store *st, const struct ctld_slice *s);
/* The slice with its endpoints, queues, filters and memory. */
int store_del_slice(struct store *st, uint16_t id);
int store_put_endpoint(struct store *st, uint16_t slice, uint16_t index,
		       const struct ctld_endpoint *e);
int store_del_endpoint(struct store *st, uint16_t slice, uint16_t index);
int store_put_queue(struct store *st, uint16_t slice, uint16_t id, const struct ctld_queue *q);
int store_del_queue(struct store *st, uint16_t slice, uint16_t id);
int store_put_sched(struct store *st, const struct ctld_sched *s);

int store_put_filter(struct store *st, uint16_t slice, const struct sp_ctl_filter *f);
int store_del_filter(struct store *st, uint16_t slice, uint32_t position);
/*
 * The slice's filters whose result names endpoint (or queue, if queue) value:
 * how many, and the first of their positions as text ("0, 3, 7") in list.
 */
int store_filters_naming(struct store *st, uint16_t slice, bool queue, uint16_t value,
			 char *list, size_t len);
/* fn on each of the slice's filters, in position order; stops at fn's first non-zero. */
int store_each_filter(struct store *st, uint16_t slice,
		      int (*fn)(void *arg, const struct sp_ctl_filter *f), void *arg);

/* Bytes written to the slice's memory, kept as whole pages. */
int store_mem_write(struct store *st, uint16_t slice, uint32_t offset, const uint8_t *data,
		    size_t len);
/* fn on each stored page (the others are zero), in order. */
/* The data last handed to the slice's code option (codeopt.load); get gives a malloc'd
 * copy, or NULL and 0 if there is none. */
int store_codeopt_data_put(struct store *st, uint16_t slice, const uint8_t *data, size_t len);
int store_codeopt_data_get(struct store *st, uint16_t slice, uint8_t **data, size_t *len);
int store_each_mem_page(struct store *st, uint16_t slice,
			int (*fn)(void *arg, uint32_t offset, const uint8_t *page, size_t len),
			void *arg);

#endif
