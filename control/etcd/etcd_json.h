/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * etcd's v3 JSON gateway both ways, without I/O: the requests etcd.c sends
 * and the reading of what etcd answers (error bodies, ranges, transactions,
 * leases, a watch's stream), pure functions so they can be fuzzed
 * (tests/fuzz/fuzz_etcd.c). An answer function takes the reply (NULL: the
 * call failed, its error already said) and releases it.
 */
#ifndef SP_ETCD_JSON_H
#define SP_ETCD_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "etcd.h"

/* base64: n bytes of s encoded; decoded text (NUL-terminated), or NULL if not base64. */
char *etcd_b64_encode(const char *s, size_t n);
char *etcd_b64_decode(const char *s);

/* A growing buffer, NUL-terminated: append n bytes (false: out of memory). */
struct etcd_buf {
	char *data;
	size_t len;
};
bool etcd_buf_append(struct etcd_buf *b, const char *p, size_t n);

/* ---- requests */
/* A range (prefix: every key beginning with key) as etcd was at revision at (0: now). */
json_t *etcd_range_request(const char *key, bool prefix, int64_t at);
json_t *etcd_delete_request(const char *key, bool prefix);
json_t *etcd_lease_request(int64_t lease);
/* A watch's create_request, as text. */
char *etcd_watch_request(const char *prefix, int64_t from);

/* ---- answers */
/* The reply object of an HTTP answer, or NULL with err: etcd's message, or the status. */
json_t *etcd_reply(long status, const char *body, char *err, size_t len);
/* A range's keys into *kvs (etcd_kvs_free), the store's revision (may be NULL): the count, or -1. */
long etcd_range_answer(json_t *r, struct etcd_kv **kvs, int64_t *revision, char *err,
		       size_t len);
/* A transaction: 1 when its compares held, 0 when not, -1 (r NULL); *revision (may be NULL). */
int etcd_txn_answer(json_t *r, int64_t *revision);
/* A put: 0, or -1 (r NULL); *revision (may be NULL) the new revision. */
int etcd_put_answer(json_t *r, int64_t *revision);
/* A delete: the number deleted, or -1 (r NULL). */
long etcd_delete_answer(json_t *r);
/* A lease granted: its id, or -1 (err filled). */
int64_t etcd_grant_answer(json_t *r, char *err, size_t len);
/* A keepalive: the lease's seconds left (0: expired), or -1 (r NULL). */
long etcd_keepalive_answer(json_t *r);

/*
 * A watch's stream: answers, one a line, fed in pieces as they arrive. Each
 * batch of events goes to on_events; the watch is done when on_events says
 * so or etcd ends it (broken, error filled; compacted > 0 when its start
 * revision was compacted).
 */
struct etcd_watch_reader {
	int (*on_events)(void *arg, const struct etcd_event *ev, size_t n, int64_t revision);
	void *arg;
	struct etcd_buf line; /* what came of an answer not yet ended */
	int64_t compacted;
	bool done, broken;
	char error[512];
};
/* Read n bytes of the stream: false once the watch is done or out of memory. */
bool etcd_watch_feed(struct etcd_watch_reader *w, const char *p, size_t n);

#endif
