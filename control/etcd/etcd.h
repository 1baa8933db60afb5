/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A client of etcd's v3 API through its JSON gateway (POST /v3/...; keys and
 * values base64 in the JSON, which this hides): ranges, puts, deletes,
 * transactions, leases and watches, over HTTP or HTTPS (a CA, a client
 * certificate) with etcd's user/password authentication. libcurl carries it.
 *
 * A handle is one connection at a time, for one thread; a call that cannot
 * reach one member tries the next of the list, and etcd_error() says why
 * the last call failed.
 */
#ifndef SP_ETCD_H
#define SP_ETCD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#define ETCD_URLS_LEN 1024
#define ETCD_TXN_OPS 128 /* operations in one transaction: etcd's default --max-txn-ops */

/* How to reach the cluster: "etcd://HOST:PORT,HOST:PORT" (HTTP) or "etcds://..." (TLS). */
struct etcd_opts {
	char urls[ETCD_URLS_LEN];
	const char *cacert, *cert, *key; /* TLS: files, or NULL */
	const char *user, *password;     /* etcd authentication, or NULL */
	unsigned int timeout_ms;         /* per call (not a watch); 0: 5000 */
};

struct etcd;

/* A handle (connects at the first call), or NULL with err filled (bad URL list). */
struct etcd *etcd_open(const struct etcd_opts *o, char *err, size_t len);
void etcd_close(struct etcd *e);
const char *etcd_error(const struct etcd *e);

/* One key-value: key and value as text (decoded), revisions as etcd gives them. */
struct etcd_kv {
	char *key, *value;
	int64_t create_revision, mod_revision, lease;
};

void etcd_kvs_free(struct etcd_kv *kvs, size_t n);

/*
 * The keys at key (prefix: all beginning with it), in key order, into *kvs
 * (etcd_kvs_free), the store's revision into *revision (may be NULL): the
 * number found, or -1.
 */
long etcd_get(struct etcd *e, const char *key, bool prefix, struct etcd_kv **kvs,
	      int64_t *revision);
/* The same as the store was at revision at (0: now). */
long etcd_get_at(struct etcd *e, const char *key, bool prefix, int64_t at, struct etcd_kv **kvs,
		 int64_t *revision);
/* Put value at key (lease 0: none): 0 or -1; *revision (may be NULL) the new revision. */
int etcd_put(struct etcd *e, const char *key, const char *value, int64_t lease, int64_t *revision);
/* Delete key (prefix: every key beginning with it): the number deleted, or -1. */
long etcd_delete(struct etcd *e, const char *key, bool prefix);

/* Transactions: compares and operations built with these, then etcd_txn. */
json_t *etcd_cmp_mod(const char *key, int64_t mod_revision); /* unchanged since (0: absent) */
json_t *etcd_op_put(const char *key, const char *value, int64_t lease);
json_t *etcd_op_delete(const char *key, bool prefix);
/*
 * If every compare holds, do success, else failure (arrays, stolen): 1 when
 * the compares held, 0 when not, -1 on error; *revision the store's after.
 */
int etcd_txn(struct etcd *e, json_t *compare, json_t *success, json_t *failure,
	     int64_t *revision);

/* A lease of ttl seconds: its id, or -1. */
int64_t etcd_lease_grant(struct etcd *e, unsigned int ttl);
/* Renew it: its seconds left, 0 if it has expired, -1 on error. */
long etcd_lease_keepalive(struct etcd *e, int64_t lease);
int etcd_lease_revoke(struct etcd *e, int64_t lease);

/* One change a watch saw. */
struct etcd_event {
	bool deleted;
	struct etcd_kv kv; /* a deleted key has no value ("") */
};

/*
 * Watch the keys beginning with prefix from revision from: each batch of
 * events (with the revision it brings the store to) goes to on_events;
 * returns when on_events or stop() says so (0), when the connection breaks
 * (-1), or when from was compacted (-2, *compacted the oldest revision
 * left). stop is asked every 10 ms (it may do other work of its thread).
 */
int etcd_watch(struct etcd *e, const char *prefix, int64_t from,
	       int (*on_events)(void *arg, const struct etcd_event *ev, size_t n,
				int64_t revision),
	       bool (*stop)(void *arg), void *arg, int64_t *compacted);

#endif
