/* SPDX-License-Identifier: BSD-3-Clause */
#include "etcd.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#define MAX_MEMBERS 16
#define DEFAULT_TIMEOUT_MS 5000
#define CONNECT_TIMEOUT_MS 2000
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

/* ------------------------------------------------------------------ base64 */

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *
b64_encode(const char *s, size_t n)
{
	char *out = malloc((n + 2) / 3 * 4 + 1), *p = out;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)(unsigned char)s[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)(unsigned char)s[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)s[i + 2];
		*p++ = B64[v >> 18 & 63];
		*p++ = B64[v >> 12 & 63];
		*p++ = i + 1 < n ? B64[v >> 6 & 63] : '=';
		*p++ = i + 2 < n ? B64[v & 63] : '=';
	}
	*p = '\0';
	return out;
}

/* Decoded text (NUL-terminated; etcd keys and our values are text), or NULL if not base64. */
static char *
b64_decode(const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;
	char *out = malloc(n / 4 * 3 + 1), *p = out;
	uint32_t v = 0;
	int bits = 0;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n && s[i] != '='; i++) {
		const char *c = strchr(B64, s[i]);

		if (c == NULL || s[i] == '\0') {
			free(out);
			return NULL;
		}
		v = v << 6 | (uint32_t)(c - B64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			*p++ = (char)(v >> bits & 0xff);
		}
	}
	*p = '\0';
	return out;
}

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

struct buf {
	char *data;
	size_t len;
};

static size_t
collect(char *p, size_t size, size_t n, void *arg)
{
	struct buf *b = arg;
	char *d = realloc(b->data, b->len + size * n + 1);

	if (d == NULL)
		return 0;
	memcpy(d + b->len, p, size * n);
	b->len += size * n;
	d[b->len] = '\0';
	b->data = d;
	return size * n;
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

/*
 * POST body to path on the member i: the reply object, or NULL (e->error);
 * *transport true when the member could not be reached at all.
 */
static json_t *
post_to(struct etcd *e, unsigned int i, const char *path, const char *body, bool *transport)
{
	struct buf b = {0};
	struct curl_slist *h;
	char url[400];
	json_t *r = NULL, *msg;
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
	*transport = rc != CURLE_OK || status == 503;
	if (rc != CURLE_OK) {
		fail(e, "etcd at %s: %s", e->base[i], curl_easy_strerror(rc));
	} else {
		r = b.data != NULL ? json_loads(b.data, 0, NULL) : NULL;
		msg = json_object_get(r, "message");
		if (msg == NULL)
			msg = json_object_get(r, "error");
		if (r == NULL || status != 200) {
			if (json_is_string(msg))
				fail(e, "etcd at %s: %s", e->base[i], json_string_value(msg));
			else
				fail(e, "etcd at %s: HTTP status %ld", e->base[i], status);
			json_decref(r);
			r = NULL;
		}
	}
	free(b.data);
	return r;
}

/* POST to the member last reached, then the others: the reply, or NULL. */
static json_t *
post_any(struct etcd *e, const char *path, const char *body)
{
	for (unsigned int k = 0; k < e->nb; k++) {
		unsigned int i = (e->cur + k) % e->nb;
		bool transport;
		json_t *r = post_to(e, i, path, body, &transport);

		if (r != NULL || !transport) {
			e->cur = i;
			return r;
		}
	}
	return NULL;
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

static int64_t
num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	/* The gateway writes 64-bit numbers as strings. */
	return json_is_string(v) ? strtoll(json_string_value(v), NULL, 10) : json_integer_value(v);
}

/* The key just past every key beginning with prefix (etcd's range_end), base64. */
static char *
prefix_end(const char *prefix)
{
	size_t n = strlen(prefix);
	char *end = strdup(prefix), *b;

	while (n > 0 && (unsigned char)end[n - 1] == 0xff)
		n--;
	if (n == 0) {
		free(end);
		return strdup("AA=="); /* "\0": every key */
	}
	end[n - 1]++;
	b = b64_encode(end, n);
	free(end);
	return b;
}

/* {"key": key, ["range_end"]} for a key or a prefix. */
static json_t *
key_range(const char *key, bool prefix)
{
	char *k = b64_encode(key, strlen(key));
	json_t *o = json_pack("{s:s}", "key", k);

	free(k);
	if (prefix) {
		char *end = prefix_end(key);

		json_object_set_new(o, "range_end", json_string(end));
		free(end);
	}
	return o;
}

static bool
kv_from(json_t *o, struct etcd_kv *kv)
{
	const char *v = json_string_value(json_object_get(o, "value"));

	kv->key = b64_decode(json_string_value(json_object_get(o, "key")));
	kv->value = v != NULL ? b64_decode(v) : strdup("");
	kv->create_revision = num(o, "create_revision");
	kv->mod_revision = num(o, "mod_revision");
	kv->lease = num(o, "lease");
	return kv->key != NULL && kv->value != NULL;
}

void
etcd_kvs_free(struct etcd_kv *kvs, size_t n)
{
	for (size_t i = 0; kvs != NULL && i < n; i++) {
		free(kvs[i].key);
		free(kvs[i].value);
	}
	free(kvs);
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
	json_t *req = key_range(key, prefix), *r, *list, *o;
	size_t i, n;

	if (at > 0) {
		char rev[24];

		snprintf(rev, sizeof(rev), "%" PRId64, at);
		json_object_set_new(req, "revision", json_string(rev));
	}
	r = call(e, "/v3/kv/range", req);

	*kvs = NULL;
	if (r == NULL)
		return -1;
	list = json_object_get(r, "kvs");
	n = json_array_size(list);
	if (revision != NULL)
		*revision = num(json_object_get(r, "header"), "revision");
	*kvs = calloc(n + 1, sizeof(**kvs));
	json_array_foreach(list, i, o) {
		if (*kvs == NULL || !kv_from(o, &(*kvs)[i])) {
			etcd_kvs_free(*kvs, i + 1);
			*kvs = NULL;
			json_decref(r);
			return fail(e, "etcd's answer to a range is not as documented");
		}
	}
	json_decref(r);
	return (long)n;
}

json_t *
etcd_op_put(const char *key, const char *value, int64_t lease)
{
	char *k = b64_encode(key, strlen(key)), *v = b64_encode(value, strlen(value));
	json_t *o = json_pack("{s:s, s:s}", "key", k, "value", v);

	if (lease != 0) {
		char l[24];

		snprintf(l, sizeof(l), "%" PRId64, lease);
		json_object_set_new(o, "lease", json_string(l));
	}
	free(k);
	free(v);
	return json_pack("{s:o}", "request_put", o);
}

json_t *
etcd_op_delete(const char *key, bool prefix)
{
	return json_pack("{s:o}", "request_delete_range", key_range(key, prefix));
}

json_t *
etcd_cmp_mod(const char *key, int64_t mod_revision)
{
	char *k = b64_encode(key, strlen(key)), rev[24];
	json_t *o;

	snprintf(rev, sizeof(rev), "%" PRId64, mod_revision);
	o = json_pack("{s:s, s:s, s:s, s:s}", "key", k, "target", "MOD", "result", "EQUAL",
		      "mod_revision", rev);
	free(k);
	return o;
}

int
etcd_txn(struct etcd *e, json_t *compare, json_t *success, json_t *failure, int64_t *revision)
{
	json_t *r = call(e, "/v3/kv/txn", json_pack("{s:o, s:o, s:o}", "compare", compare,
						    "success", success, "failure",
						    failure != NULL ? failure : json_array()));
	int held;

	if (r == NULL)
		return -1;
	held = json_is_true(json_object_get(r, "succeeded"));
	if (revision != NULL)
		*revision = num(json_object_get(r, "header"), "revision");
	json_decref(r);
	return held;
}

int
etcd_put(struct etcd *e, const char *key, const char *value, int64_t lease, int64_t *revision)
{
	json_t *op = etcd_op_put(key, value, lease), *r;

	r = call(e, "/v3/kv/put", json_incref(json_object_get(op, "request_put")));
	json_decref(op);
	if (r == NULL)
		return -1;
	if (revision != NULL)
		*revision = num(json_object_get(r, "header"), "revision");
	json_decref(r);
	return 0;
}

long
etcd_delete(struct etcd *e, const char *key, bool prefix)
{
	json_t *r = call(e, "/v3/kv/deleterange", key_range(key, prefix));
	long n;

	if (r == NULL)
		return -1;
	n = (long)num(r, "deleted");
	json_decref(r);
	return n;
}

int64_t
etcd_lease_grant(struct etcd *e, unsigned int ttl)
{
	json_t *r = call(e, "/v3/lease/grant", json_pack("{s:i}", "TTL", (int)ttl));
	int64_t id;

	if (r == NULL)
		return -1;
	id = num(r, "ID");
	json_decref(r);
	return id > 0 ? id : fail(e, "etcd granted no lease");
}

static json_t *
lease_id(int64_t lease)
{
	char id[24];

	snprintf(id, sizeof(id), "%" PRId64, lease);
	return json_pack("{s:s}", "ID", id);
}

long
etcd_lease_keepalive(struct etcd *e, int64_t lease)
{
	/* The gateway streams keepalive; one request, one answer, then it ends the call. */
	json_t *r = call(e, "/v3/lease/keepalive", lease_id(lease));
	long ttl;

	if (r == NULL)
		return -1;
	ttl = (long)num(json_object_get(r, "result"), "TTL");
	json_decref(r);
	return ttl;
}

int
etcd_lease_revoke(struct etcd *e, int64_t lease)
{
	json_t *r = call(e, "/v3/lease/revoke", lease_id(lease));

	json_decref(r);
	return r != NULL ? 0 : -1;
}

/* ------------------------------------------------------------------ watch */

struct watch {
	struct etcd *e;
	struct buf line;
	int (*on_events)(void *, const struct etcd_event *, size_t, int64_t);
	bool (*stop)(void *);
	void *arg;
	int64_t compacted;
	bool done;    /* on_events or stop said so, or etcd ended it */
	bool broken;  /* etcd ended it */
	bool created; /* etcd accepted the watch */
};

/* One answer of the stream: events for on_events, or the watch's end. */
static void
answer(struct watch *w, const char *text)
{
	json_t *o = json_loads(text, 0, NULL), *res = json_object_get(o, "result"), *evs, *ev;
	struct etcd_event *list;
	size_t i, n;

	if (res == NULL) {
		fail(w->e, "etcd ended the watch: %.200s", text);
		w->done = w->broken = true;
		json_decref(o);
		return;
	}
	if (json_is_true(json_object_get(res, "created")))
		w->created = true;
	if (json_is_true(json_object_get(res, "canceled"))) {
		w->compacted = num(res, "compact_revision");
		fail(w->e, "etcd cancelled the watch%s", w->compacted > 0 ?
		     ": its start was compacted" : "");
		w->done = w->broken = true;
		json_decref(o);
		return;
	}
	evs = json_object_get(res, "events");
	n = json_array_size(evs);
	list = calloc(n + 1, sizeof(*list));
	json_array_foreach(evs, i, ev) {
		list[i].deleted = json_is_string(json_object_get(ev, "type")) &&
				  strcmp(json_string_value(json_object_get(ev, "type")), "DELETE") == 0;
		kv_from(json_object_get(ev, "kv"), &list[i].kv);
	}
	if (n > 0 && w->on_events(w->arg, list, n, num(json_object_get(res, "header"), "revision")))
		w->done = true;
	for (i = 0; i < n; i++) {
		free(list[i].kv.key);
		free(list[i].kv.value);
	}
	free(list);
	json_decref(o);
}

static size_t
stream(char *p, size_t size, size_t n, void *arg)
{
	struct watch *w = arg;
	char *nl;

	if (collect(p, size, n, &w->line) != size * n)
		return 0;
	/* The gateway ends each answer with a newline. */
	while (!w->done && (nl = memchr(w->line.data, '\n', w->line.len)) != NULL) {
		size_t used = (size_t)(nl - w->line.data) + 1;

		*nl = '\0';
		if (used > 1)
			answer(w, w->line.data);
		memmove(w->line.data, nl + 1, w->line.len - used + 1);
		w->line.len -= used;
	}
	return w->done ? 0 : size * n;
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
	while (running && !w->done) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		if (running)
			curl_multi_poll(m, NULL, 0, POLL_MS, NULL);
		if (w->stop(w->arg))
			w->done = true;
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
	struct watch w = {.e = e, .on_events = on_events, .stop = stop, .arg = arg};
	json_t *req = key_range(prefix, true);
	struct curl_slist *h;
	char rev[24], *body, url[400];
	CURL *c = curl_easy_init();
	CURLcode rc;

	snprintf(rev, sizeof(rev), "%" PRId64, from);
	json_object_set_new(req, "start_revision", json_string(rev));
	body = json_dumps(json_pack("{s:o}", "create_request", req), JSON_COMPACT);
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
	free(w.line.data);
	if (w.compacted > 0) {
		*compacted = w.compacted;
		return -2;
	}
	if (w.done && !w.broken)
		return 0;
	if (!w.broken)
		fail(e, "etcd at %s: the watch broke: %s", e->base[e->cur],
		     rc != CURLE_OK ? curl_easy_strerror(rc) : "the member ended it");
	e->cur = (e->cur + 1) % e->nb; /* the next try goes to another member */
	return -1;
}
