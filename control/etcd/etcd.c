/* SPDX-License-Identifier: BSD-3-Clause */
#include "etcd.h"
#include "etcd_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#define MAX_MEMBERS 16
#define DEFAULT_TIMEOUT_MS 5000
#define CONNECT_TIMEOUT_MS 2000
/* An election takes etcd about a second (its default election timeout); a round of members all
 * answering "unavailable" is tried again for this long, then fails. */
#define ELECTION_WAIT_MS 3000
#define ELECTION_RETRY_MS 100

/* How a member answered: a reply (or an error of the request's own), not at all, or that it
 * cannot serve now (HTTP 503: no leader, leader changed). */
enum member_answer { ANSWERED, UNREACHABLE, UNAVAILABLE };
#define POLL_MS 10 /* how often a watch asks its stop() */

struct etcd {
	char base[MAX_MEMBERS][256]; /* "http://host:port" */
	unsigned int nb, cur;        /* members, the one last reached */
	struct etcd_opts o;
	char *cacert, *cert, *key, *user, *password; /* copies of o's */
	char token[512];             /* etcd's, after authenticating */
	CURL *curl;
	char error[512];
};

/* ------------------------------------------------------------------ handle */

static int
fail(struct etcd *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
fail(struct etcd *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->error, sizeof(e->error), fmt, ap);
	va_end(ap);
	return -1;
}

static char *
dup_or_null(const char *s)
{
	return s != NULL ? strdup(s) : NULL;
}

struct etcd *
etcd_open(const struct etcd_opts *o, char *err, size_t len)
{
	static bool curl_ready; /* curl_global_init: once, before threads use it (main calls us first) */
	struct etcd *e = calloc(1, sizeof(*e));
	const char *scheme = "http", *p = o->urls;

	if (e == NULL) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	if (strncmp(p, "etcds://", 8) == 0) {
		scheme = "https";
		p += 8;
	} else if (strncmp(p, "etcd://", 7) == 0) {
		p += 7;
	} else {
		snprintf(err, len, "cluster \"%s\": give etcd://HOST:PORT[,HOST:PORT...] (or etcds:// "
			 "for TLS)", o->urls);
		free(e);
		return NULL;
	}
	while (*p != '\0') {
		size_t n = strcspn(p, ",");

		if (n == 0 || n > 200 || e->nb == MAX_MEMBERS || memchr(p, '/', n) != NULL) {
			snprintf(err, len, "cluster \"%s\": members are HOST:PORT, at most %d, "
				 "separated by commas", o->urls, MAX_MEMBERS);
			free(e);
			return NULL;
		}
		snprintf(e->base[e->nb++], sizeof(e->base[0]), "%s://%.*s", scheme, (int)n, p);
		p += n + (p[n] == ',');
	}
	if (e->nb == 0) {
		snprintf(err, len, "cluster \"%s\" names no member", o->urls);
		free(e);
		return NULL;
	}
	if (!curl_ready) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		curl_ready = true;
	}
	e->o = *o;
	e->cacert = dup_or_null(o->cacert);
	e->cert = dup_or_null(o->cert);
	e->key = dup_or_null(o->key);
	e->user = dup_or_null(o->user);
	e->password = dup_or_null(o->password);
	e->curl = curl_easy_init();
	return e;
}

void
etcd_close(struct etcd *e)
{
	if (e == NULL)
		return;
	curl_easy_cleanup(e->curl);
	free(e->cacert);
	free(e->cert);
	free(e->key);
	free(e->user);
	free(e->password);
	free(e);
}

const char *
etcd_error(const struct etcd *e)
{
	return e->error;
}

/* ------------------------------------------------------------------ calls */

static size_t
collect(char *p, size_t size, size_t n, void *arg)
{
	return etcd_buf_append(arg, p, size * n) ? size * n : 0;
}

/* The options every request of e carries: TLS files, the token, JSON. */
static struct curl_slist *
prepare(struct etcd *e, CURL *c, const char *url, const char *body)
{
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	char auth[600];

	/* No "Expect: 100-continue" for bodies over 1 KiB: a round trip more a write. */
	h = curl_slist_append(h, "Expect:");
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)CONNECT_TIMEOUT_MS);
	if (e->cacert != NULL)
		curl_easy_setopt(c, CURLOPT_CAINFO, e->cacert);
	if (e->cert != NULL)
		curl_easy_setopt(c, CURLOPT_SSLCERT, e->cert);
	if (e->key != NULL)
		curl_easy_setopt(c, CURLOPT_SSLKEY, e->key);
	if (e->token[0] != '\0') {
		snprintf(auth, sizeof(auth), "Authorization: %s", e->token);
		h = curl_slist_append(h, auth);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	return h;
}

/* POST body to path on the member i: the reply object, or NULL (e->error); *how, how it answered. */
static json_t *
post_to(struct etcd *e, unsigned int i, const char *path, const char *body,
	enum member_answer *how)
{
	struct etcd_buf b = {0};
	struct curl_slist *h;
	char url[400];
	json_t *r = NULL;
	long status = 0;
	CURLcode rc;

	snprintf(url, sizeof(url), "%s%s", e->base[i], path);
	curl_easy_reset(e->curl);
	h = prepare(e, e->curl, url, body);
	curl_easy_setopt(e->curl, CURLOPT_TIMEOUT_MS,
			 (long)(e->o.timeout_ms != 0 ? e->o.timeout_ms : DEFAULT_TIMEOUT_MS));
	curl_easy_setopt(e->curl, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(e->curl, CURLOPT_WRITEDATA, &b);
	rc = curl_easy_perform(e->curl);
	curl_slist_free_all(h);
	curl_easy_getinfo(e->curl, CURLINFO_RESPONSE_CODE, &status);
	*how = rc != CURLE_OK ? UNREACHABLE : status == 503 ? UNAVAILABLE : ANSWERED;
	if (rc != CURLE_OK) {
		fail(e, "etcd at %s: %s", e->base[i], curl_easy_strerror(rc));
	} else {
		char why[sizeof(e->error)];

		r = etcd_reply(status, b.data, why, sizeof(why));
		if (r == NULL)
			fail(e, "etcd at %s: %s", e->base[i], why);
	}
	free(b.data);
	return r;
}

/*
 * POST to the member last reached, then the others: the reply, or NULL. A
 * round in which a member was up but could not serve (an election under way)
 * is tried again until ELECTION_WAIT_MS; one in which none could be reached
 * fails at once.
 */
static json_t *
post_any(struct etcd *e, const char *path, const char *body)
{
	for (unsigned int waited = 0;; waited += ELECTION_RETRY_MS) {
		bool unavailable = false;

		for (unsigned int k = 0; k < e->nb; k++) {
			unsigned int i = (e->cur + k) % e->nb;
			enum member_answer how;
			json_t *r = post_to(e, i, path, body, &how);

			if (how == ANSWERED) {
				e->cur = i;
				return r;
			}
			unavailable |= how == UNAVAILABLE;
		}
		if (!unavailable || waited >= ELECTION_WAIT_MS)
			return NULL;
		usleep(ELECTION_RETRY_MS * 1000);
	}
}

static int
authenticate(struct etcd *e)
{
	json_t *body = json_pack("{s:s, s:s}", "name", e->user, "password",
				 e->password != NULL ? e->password : "");
	char *text = json_dumps(body, JSON_COMPACT);
	json_t *r;

	json_decref(body);
	e->token[0] = '\0';
	r = post_any(e, "/v3/auth/authenticate", text);
	free(text);
	if (r == NULL)
		return -1;
	snprintf(e->token, sizeof(e->token), "%s",
		 json_string_value(json_object_get(r, "token")) ?: "");
	json_decref(r);
	return e->token[0] != '\0' ? 0 : fail(e, "etcd gave no token for user %s", e->user);
}

/* One call (body stolen): the reply, or NULL. An expired token is renewed once. */
static json_t *
call(struct etcd *e, const char *path, json_t *body)
{
	char *text = json_dumps(body, JSON_COMPACT);
	json_t *r = NULL;

	json_decref(body);
	if (text == NULL) {
		fail(e, "out of memory");
		return NULL;
	}
	if (e->user == NULL || e->token[0] != '\0' || authenticate(e) == 0) {
		r = post_any(e, path, text);
		if (r == NULL && e->user != NULL && strstr(e->error, "auth token") != NULL &&
		    authenticate(e) == 0)
			r = post_any(e, path, text);
	}
	free(text);
	return r;
}

long
etcd_get(struct etcd *e, const char *key, bool prefix, struct etcd_kv **kvs, int64_t *revision)
{
	return etcd_get_at(e, key, prefix, 0, kvs, revision);
}

long
etcd_get_at(struct etcd *e, const char *key, bool prefix, int64_t at, struct etcd_kv **kvs,
	    int64_t *revision)
{
	return etcd_range_answer(call(e, "/v3/kv/range", etcd_range_request(key, prefix, at)), kvs,
				 revision, e->error, sizeof(e->error));
}

int
etcd_txn(struct etcd *e, json_t *compare, json_t *success, json_t *failure, int64_t *revision)
{
	return etcd_txn_answer(call(e, "/v3/kv/txn", json_pack("{s:o, s:o, s:o}", "compare",
							       compare, "success", success, "failure",
							       failure != NULL ? failure : json_array())),
			       revision);
}

int
etcd_put(struct etcd *e, const char *key, const char *value, int64_t lease, int64_t *revision)
{
	json_t *op = etcd_op_put(key, value, lease), *r;

	r = call(e, "/v3/kv/put", json_incref(json_object_get(op, "request_put")));
	json_decref(op);
	return etcd_put_answer(r, revision);
}

long
etcd_delete(struct etcd *e, const char *key, bool prefix)
{
	return etcd_delete_answer(call(e, "/v3/kv/deleterange", etcd_delete_request(key, prefix)));
}

int64_t
etcd_lease_grant(struct etcd *e, unsigned int ttl)
{
	return etcd_grant_answer(call(e, "/v3/lease/grant", json_pack("{s:i}", "TTL", (int)ttl)),
				 e->error, sizeof(e->error));
}

long
etcd_lease_keepalive(struct etcd *e, int64_t lease)
{
	return etcd_keepalive_answer(call(e, "/v3/lease/keepalive", etcd_lease_request(lease)));
}

int
etcd_lease_revoke(struct etcd *e, int64_t lease)
{
	json_t *r = call(e, "/v3/lease/revoke", etcd_lease_request(lease));

	json_decref(r);
	return r != NULL ? 0 : -1;
}

/* ------------------------------------------------------------------ watch */

struct watch {
	struct etcd_watch_reader r;
	bool (*stop)(void *); /* asked with r.arg */
};

static size_t
stream(char *p, size_t size, size_t n, void *arg)
{
	struct watch *w = arg;

	return etcd_watch_feed(&w->r, p, size * n) ? size * n : 0;
}

/* Run the watch's transfer, asking stop() every POLL_MS: its result. */
static CURLcode
run_watch(CURL *c, struct watch *w)
{
	CURLM *m = curl_multi_init();
	CURLcode rc = CURLE_OK;
	CURLMsg *msg;
	int running = 1, left;

	curl_multi_add_handle(m, c);
	while (running && !w->r.done) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		if (running)
			curl_multi_poll(m, NULL, 0, POLL_MS, NULL);
		if (w->stop(w->r.arg))
			w->r.done = true;
	}
	while ((msg = curl_multi_info_read(m, &left)) != NULL)
		if (msg->msg == CURLMSG_DONE)
			rc = msg->data.result;
	curl_multi_remove_handle(m, c);
	curl_multi_cleanup(m);
	return rc;
}

int
etcd_watch(struct etcd *e, const char *prefix, int64_t from,
	   int (*on_events)(void *arg, const struct etcd_event *ev, size_t n, int64_t revision),
	   bool (*stop)(void *arg), void *arg, int64_t *compacted)
{
	struct watch w = {.r = {.on_events = on_events, .arg = arg}, .stop = stop};
	char *body = etcd_watch_request(prefix, from), url[400];
	struct curl_slist *h;
	CURL *c = curl_easy_init();
	CURLcode rc;

	if (e->user != NULL && e->token[0] == '\0' && authenticate(e) < 0) {
		free(body);
		curl_easy_cleanup(c);
		return -1;
	}
	snprintf(url, sizeof(url), "%s/v3/watch", e->base[e->cur]);
	h = prepare(e, c, url, body);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, stream);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &w);
	/* A member that vanishes without closing the connection is noticed by keepalives. */
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPIDLE, 2L);
	curl_easy_setopt(c, CURLOPT_TCP_KEEPINTVL, 1L);
	rc = run_watch(c, &w);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	free(body);
	free(w.r.line.data);
	if (w.r.compacted > 0) {
		*compacted = w.r.compacted;
		fail(e, "%s", w.r.error);
		return -2;
	}
	if (w.r.done && !w.r.broken)
		return 0;
	if (w.r.broken)
		fail(e, "%s", w.r.error);
	else
		fail(e, "etcd at %s: the watch broke: %s", e->base[e->cur],
		     rc != CURLE_OK ? curl_easy_strerror(rc) : "the member ended it");
	e->cur = (e->cur + 1) % e->nb; /* the next try goes to another member */
	return -1;
}
