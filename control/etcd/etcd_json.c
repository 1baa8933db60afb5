/* SPDX-License-Identifier: BSD-3-Clause */
#include "etcd_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ base64 */

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *
etcd_b64_encode(const char *s, size_t n)
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

char *
etcd_b64_decode(const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;
	char *out = malloc(n * 3 / 4 + 1), *p = out; /* 6 bits a character */
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

bool
etcd_buf_append(struct etcd_buf *b, const char *p, size_t n)
{
	char *d = realloc(b->data, b->len + n + 1);

	if (d == NULL)
		return false;
	memcpy(d + b->len, p, n);
	b->len += n;
	d[b->len] = '\0';
	b->data = d;
	return true;
}

/* ---------------------------------------------------------------- requests */

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
	b = etcd_b64_encode(end, n);
	free(end);
	return b;
}

/* {"key": key, ["range_end"]} for a key or a prefix. */
static json_t *
key_range(const char *key, bool prefix)
{
	char *k = etcd_b64_encode(key, strlen(key));
	json_t *o = json_pack("{s:s}", "key", k);

	free(k);
	if (prefix) {
		char *end = prefix_end(key);

		json_object_set_new(o, "range_end", json_string(end));
		free(end);
	}
	return o;
}

json_t *
etcd_range_request(const char *key, bool prefix, int64_t at)
{
	json_t *req = key_range(key, prefix);

	if (at > 0) {
		char rev[24];

		snprintf(rev, sizeof(rev), "%" PRId64, at);
		json_object_set_new(req, "revision", json_string(rev));
	}
	return req;
}

json_t *
etcd_delete_request(const char *key, bool prefix)
{
	return key_range(key, prefix);
}

json_t *
etcd_lease_request(int64_t lease)
{
	char id[24];

	snprintf(id, sizeof(id), "%" PRId64, lease);
	return json_pack("{s:s}", "ID", id);
}

char *
etcd_watch_request(const char *prefix, int64_t from)
{
	json_t *req = key_range(prefix, true), *body;
	char rev[24], *text;

	snprintf(rev, sizeof(rev), "%" PRId64, from);
	json_object_set_new(req, "start_revision", json_string(rev));
	body = json_pack("{s:o}", "create_request", req);
	text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	return text;
}

json_t *
etcd_op_put(const char *key, const char *value, int64_t lease)
{
	char *k = etcd_b64_encode(key, strlen(key)), *v = etcd_b64_encode(value, strlen(value));
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
	char *k = etcd_b64_encode(key, strlen(key)), rev[24];
	json_t *o;

	snprintf(rev, sizeof(rev), "%" PRId64, mod_revision);
	o = json_pack("{s:s, s:s, s:s, s:s}", "key", k, "target", "MOD", "result", "EQUAL",
		      "mod_revision", rev);
	free(k);
	return o;
}

/* ----------------------------------------------------------------- answers */

json_t *
etcd_reply(long status, const char *body, char *err, size_t len)
{
	json_t *r = body != NULL ? json_loads(body, 0, NULL) : NULL;
	json_t *msg = json_object_get(r, "message");

	if (msg == NULL)
		msg = json_object_get(r, "error");
	if (r != NULL && status == 200)
		return r;
	if (json_string_length(msg) > 0) /* an empty message says less than the status */
		snprintf(err, len, "%s", json_string_value(msg));
	else
		snprintf(err, len, "HTTP status %ld", status);
	json_decref(r);
	return NULL;
}

static int64_t
num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	/* The gateway writes 64-bit numbers as strings. */
	return json_is_string(v) ? strtoll(json_string_value(v), NULL, 10) : json_integer_value(v);
}

static int64_t
revision_of(json_t *r)
{
	return num(json_object_get(r, "header"), "revision");
}

static bool
kv_from(json_t *o, struct etcd_kv *kv)
{
	const char *v = json_string_value(json_object_get(o, "value"));

	kv->key = etcd_b64_decode(json_string_value(json_object_get(o, "key")));
	kv->value = v != NULL ? etcd_b64_decode(v) : strdup("");
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
etcd_range_answer(json_t *r, struct etcd_kv **kvs, int64_t *revision, char *err, size_t len)
{
	json_t *list = json_object_get(r, "kvs"), *o;
	size_t i, n = json_array_size(list);

	*kvs = NULL;
	if (r == NULL)
		return -1;
	if (revision != NULL)
		*revision = revision_of(r);
	*kvs = calloc(n + 1, sizeof(**kvs));
	json_array_foreach(list, i, o) {
		if (*kvs == NULL || !kv_from(o, &(*kvs)[i])) {
			etcd_kvs_free(*kvs, i + 1);
			*kvs = NULL;
			json_decref(r);
			snprintf(err, len, "etcd's answer to a range is not as documented");
			return -1;
		}
	}
	json_decref(r);
	return (long)n;
}

int
etcd_txn_answer(json_t *r, int64_t *revision)
{
	int held;

	if (r == NULL)
		return -1;
	held = json_is_true(json_object_get(r, "succeeded"));
	if (revision != NULL)
		*revision = revision_of(r);
	json_decref(r);
	return held;
}

int
etcd_put_answer(json_t *r, int64_t *revision)
{
	if (r == NULL)
		return -1;
	if (revision != NULL)
		*revision = revision_of(r);
	json_decref(r);
	return 0;
}

long
etcd_delete_answer(json_t *r)
{
	long n = r != NULL ? (long)num(r, "deleted") : -1;

	json_decref(r);
	return n;
}

int64_t
etcd_grant_answer(json_t *r, char *err, size_t len)
{
	int64_t id;

	if (r == NULL)
		return -1;
	id = num(r, "ID");
	json_decref(r);
	if (id > 0)
		return id;
	snprintf(err, len, "etcd granted no lease");
	return -1;
}

long
etcd_keepalive_answer(json_t *r)
{
	/* The gateway streams keepalive; one request, one answer, then it ends the call. */
	long ttl = r != NULL ? (long)num(json_object_get(r, "result"), "TTL") : -1;

	json_decref(r);
	return ttl;
}

/* ------------------------------------------------------------------- watch */

/* One answer of the stream: events for on_events, or the watch's end. */
static void
watch_answer(struct etcd_watch_reader *w, const char *text)
{
	json_t *o = json_loads(text, 0, NULL), *res = json_object_get(o, "result"), *evs, *ev;
	struct etcd_event *list;
	bool read = true;
	size_t i, n;

	if (res == NULL) {
		snprintf(w->error, sizeof(w->error), "etcd ended the watch: %.200s", text);
		w->done = w->broken = true;
		json_decref(o);
		return;
	}
	if (json_is_true(json_object_get(res, "canceled"))) {
		w->compacted = num(res, "compact_revision");
		snprintf(w->error, sizeof(w->error), "etcd cancelled the watch%s",
			 w->compacted > 0 ? ": its start was compacted" : "");
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
		read &= kv_from(json_object_get(ev, "kv"), &list[i].kv);
	}
	if (!read) { /* a key or value not base64: its change cannot be applied, nor skipped */
		snprintf(w->error, sizeof(w->error), "etcd's answer to a watch is not as "
			 "documented: %.200s", text);
		w->done = w->broken = true;
	} else if (n > 0 && w->on_events(w->arg, list, n, revision_of(res))) {
		w->done = true;
	}
	for (i = 0; i < n; i++) {
		free(list[i].kv.key);
		free(list[i].kv.value);
	}
	free(list);
	json_decref(o);
}

bool
etcd_watch_feed(struct etcd_watch_reader *w, const char *p, size_t n)
{
	char *nl;

	if (!etcd_buf_append(&w->line, p, n))
		return false;
	/* The gateway ends each answer with a newline. */
	while (!w->done && (nl = memchr(w->line.data, '\n', w->line.len)) != NULL) {
		size_t used = (size_t)(nl - w->line.data) + 1;

		*nl = '\0';
		if (used > 1)
			watch_answer(w, w->line.data);
		memmove(w->line.data, nl + 1, w->line.len - used + 1);
		w->line.len -= used;
	}
	return !w->done;
}
