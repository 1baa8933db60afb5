/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: etcd's answers to the fleet (control/etcd/): the readers of
 * etcd_json.c (error bodies, ranges with base64 keys and values,
 * transactions, leases, a watch's stream) and the fleet's methods
 * (fleet*.c: slice records and their nodes, capacity, live values, the
 * policy) reading them. etcd.c's transport is replaced here by the input:
 * each call etcd_get(), etcd_txn()... takes the next answer.
 *
 * Input: byte 0 picks what runs (% 12): 0 every answer read as each kind
 * of answer; 1 the rest a watch's stream (its byte 0 the size of the pieces
 * it arrives in); 2 to 11 a fleet method (methods[] below). The rest:
 * answers separated by NUL bytes, each the HTTP status in decimal, a space
 * and the body; an answer without a status, or none left, is a member that
 * cannot be reached.
 *
 * Invariants: a reply is taken only with status 200; a refusal, a failed
 * range and a lease not granted say why; a range's keys and values are
 * text whose base64 decodes back to them; a watch passes on only events
 * with a key and a value, reads the same batches whatever the pieces its
 * stream comes in, and ends the same way; a watch request holds its prefix
 * and revision; a fleet method gives a result or an error with a code and
 * a message, never both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "etcd_json.h"
#include "fleet.h"
#include "sp_test.h"

/* ------------------------------------------------- etcd, answered by input */

struct etcd {
	const char *p, *end; /* the answers left */
	char error[512];
};

static struct etcd fake;

/* The next answer's reply, or NULL with fake.error filled. */
static json_t *
next_answer(struct etcd *e, json_t *request)
{
	char *text, *body, why[sizeof(e->error)];
	long status;
	json_t *r;

	json_decref(request);
	if (e->p >= e->end) {
		snprintf(e->error, sizeof(e->error), "etcd at fuzz: no answer left");
		return NULL;
	}
	/* A buffer of exactly the answer's length: reads past it are caught. */
	text = strndup(e->p, (size_t)(e->end - e->p));
	e->p += strlen(text) + 1;
	status = strtol(text, &body, 10);
	if (body == text) {
		snprintf(e->error, sizeof(e->error), "etcd at fuzz: unreachable");
		free(text);
		return NULL;
	}
	r = etcd_reply(status, *body == ' ' ? body + 1 : body, why, sizeof(why));
	SP_TEST_CHECK(r == NULL || status == 200, "a reply taken with HTTP status %ld", status);
	SP_TEST_CHECK(r != NULL || why[0] != '\0', "a refusal (HTTP status %ld) says nothing",
		      status);
	if (r == NULL)
		snprintf(e->error, sizeof(e->error), "etcd at fuzz: %s", why);
	free(text);
	return r;
}

struct etcd *
etcd_open(const struct etcd_opts *o, char *err, size_t len)
{
	(void)o;
	(void)err;
	(void)len;
	return &fake;
}

void
etcd_close(struct etcd *e)
{
	(void)e;
}

const char *
etcd_error(const struct etcd *e)
{
	return e->error;
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
	return etcd_range_answer(next_answer(e, etcd_range_request(key, prefix, at)), kvs,
				 revision, e->error, sizeof(e->error));
}

int
etcd_txn(struct etcd *e, json_t *compare, json_t *success, json_t *failure, int64_t *revision)
{
	json_decref(compare);
	json_decref(success);
	return etcd_txn_answer(next_answer(e, failure), revision);
}

int
etcd_put(struct etcd *e, const char *key, const char *value, int64_t lease, int64_t *revision)
{
	return etcd_put_answer(next_answer(e, etcd_op_put(key, value, lease)), revision);
}

long
etcd_delete(struct etcd *e, const char *key, bool prefix)
{
	return etcd_delete_answer(next_answer(e, etcd_delete_request(key, prefix)));
}

/* ----------------------------------------------------------------- checks */

/* s is text whose base64 decodes back to it. */
static void
check_text(const char *s, const char *what)
{
	char *b, *back;

	SP_TEST_CHECK(s != NULL, "a %s read as NULL", what);
	b = etcd_b64_encode(s, strlen(s));
	back = etcd_b64_decode(b);
	SP_TEST_CHECK(back != NULL && strcmp(back, s) == 0, "a %s \"%s\" encoded as %s decodes "
		      "to \"%s\"", what, s, b, back != NULL ? back : "(not base64)");
	free(b);
	free(back);
}

/* One answer read as each kind of answer etcd gives. */
static void
read_as_each(json_t *r)
{
	struct etcd_kv *kvs;
	char err[512] = "";
	long n = etcd_range_answer(json_incref(r), &kvs, NULL, err, sizeof(err));

	SP_TEST_CHECK(n >= 0 || (kvs == NULL && err[0] != '\0'), "a failed range says nothing");
	for (long i = 0; i < n; i++) {
		check_text(kvs[i].key, "key");
		check_text(kvs[i].value, "value");
	}
	etcd_kvs_free(kvs, n > 0 ? (size_t)n : 0);
	SP_TEST_CHECK(etcd_txn_answer(json_incref(r), NULL) >= 0, "a transaction's reply failed");
	err[0] = '\0';
	SP_TEST_CHECK(etcd_grant_answer(json_incref(r), err, sizeof(err)) > 0 || err[0] != '\0',
		      "a lease not granted says nothing");
	etcd_keepalive_answer(json_incref(r));
	etcd_delete_answer(json_incref(r));
	etcd_put_answer(r, NULL);
}

static void
read_answers(void)
{
	while (fake.p < fake.end) {
		char *text = strndup(fake.p, (size_t)(fake.end - fake.p)), *b = etcd_b64_decode(text);
		json_t *r = next_answer(&fake, NULL);

		if (b != NULL)
			check_text(b, "decoded answer");
		free(b);
		free(text);
		if (r != NULL)
			read_as_each(r);
	}
}

/* ------------------------------------------------------------------ watch */

struct batches {
	struct etcd_buf log; /* each batch and event, as text */
	int count;
};

static int
on_events(void *arg, const struct etcd_event *ev, size_t n, int64_t revision)
{
	struct batches *b = arg;
	char line[128];

	snprintf(line, sizeof(line), "batch %zu at %lld\n", n, (long long)revision);
	etcd_buf_append(&b->log, line, strlen(line));
	for (size_t i = 0; i < n; i++) {
		SP_TEST_CHECK(ev[i].kv.key != NULL && ev[i].kv.value != NULL,
			      "a watch passed on an event with %s NULL",
			      ev[i].kv.key == NULL ? "its key" : "its value");
		etcd_buf_append(&b->log, ev[i].deleted ? "D " : "P ", 2);
		etcd_buf_append(&b->log, ev[i].kv.key, strlen(ev[i].kv.key) + 1);
		etcd_buf_append(&b->log, ev[i].kv.value, strlen(ev[i].kv.value) + 1);
		snprintf(line, sizeof(line), " %lld\n", (long long)ev[i].kv.mod_revision);
		etcd_buf_append(&b->log, line, strlen(line));
	}
	return ++b->count == 4; /* the fourth batch stops it, as slicectld's stop would */
}

/* The stream in pieces of piece bytes: how it ended, into log. */
static void
watch(const char *s, size_t n, size_t piece, struct batches *b)
{
	struct etcd_watch_reader w = {.on_events = on_events, .arg = b};
	char end[600];

	for (size_t at = 0; at < n; at += piece)
		if (!etcd_watch_feed(&w, s + at, n - at < piece ? n - at : piece))
			break;
	snprintf(end, sizeof(end), "done %d broken %d compacted %lld: %s\n", w.done, w.broken,
		 (long long)w.compacted, w.error);
	etcd_buf_append(&b->log, end, strlen(end));
	SP_TEST_CHECK(w.compacted <= 0 || w.broken, "a compaction left the watch going");
	SP_TEST_CHECK(!w.broken || w.error[0] != '\0', "a watch ended without saying why");
	free(w.line.data);
}

static void
check_watch(const uint8_t *data, size_t size)
{
	struct batches whole = {0}, pieces = {0};
	size_t piece = size > 0 ? 1 + data[0] % 64 : 1;
	int64_t from = size > 0 ? data[0] : 0;
	char *req = etcd_watch_request("/slicepath/spec/", from), *key;
	json_t *o = json_loads(req, 0, NULL), *cr = json_object_get(o, "create_request");

	key = etcd_b64_decode(json_string_value(json_object_get(cr, "key")));
	SP_TEST_CHECK(key != NULL && strcmp(key, "/slicepath/spec/") == 0 &&
		      strtoll(json_string_value(json_object_get(cr, "start_revision")) ?: "-1",
			      NULL, 10) == from,
		      "a watch from %lld asked as %s", (long long)from, req);
	free(key);
	json_decref(o);
	free(req);

	if (size > 0) {
		data++;
		size--;
	}
	watch((const char *)data, size, size > 0 ? size : 1, &whole);
	watch((const char *)data, size, piece, &pieces);
	SP_TEST_CHECK(whole.log.len == pieces.log.len &&
		      memcmp(whole.log.data, pieces.log.data, whole.log.len) == 0,
		      "a watch read whole:\n%s\nand in pieces of %zu bytes:\n%s", whole.log.data,
		      piece, pieces.log.data);
	free(whole.log.data);
	free(pieces.log.data);
}

/* ------------------------------------------------------------------ fleet */

static const struct {
	const char *method, *params;
} methods[] = {
	{"node.list", "{}"},
	{"slice.list", "{}"},
	{"slice.status", "{\"slice\": \"s1\"}"},
	{"policy.get", "{}"},
	{NULL, NULL}, /* fleet_replace_down() */
	{"slice.create", "{\"name\": \"s1\", \"codeopt\": \"ipv4\", \"nodes\": 2}"},
	{"slice.delete", "{\"slice\": \"s1\"}"},
	{"slice.replace", "{\"slice\": \"s1\", \"node\": \"n1\"}"},
	{"endpoint.reserve", "{\"slice\": \"s1\", \"udp_port\": 5001}"},
	{"filter.list", "{\"slice\": \"s1\"}"},
};

static void
run_method(unsigned int k)
{
	struct etcd_opts o = {.urls = "etcd://fuzz:2379"};
	struct sp_rpc_error e = {0};
	char err[256];
	struct fleet *f = fleet_open(&o, NULL, err, sizeof(err));
	json_t *params, *r, *down;

	if (methods[k].method == NULL) {
		/* A node (capacity/n1) down since 0, its slices due to move at 1000. */
		down = json_pack("{s:f}", "n1", 0.0);
		r = fleet_replace_down(f, down, 1000.0);
		SP_TEST_CHECK(json_is_array(r), "fleet_replace_down() gave no list");
		json_decref(down);
	} else {
		params = json_loads(methods[k].params, 0, NULL);
		r = fleet_call(f, methods[k].method, params, &e);
		SP_TEST_CHECK((r != NULL) == (e.code == 0), "%s: a result %s, error code %d",
			      methods[k].method, r != NULL ? "given" : "none", e.code);
		SP_TEST_CHECK(r != NULL || e.message[0] != '\0', "%s: error %d without a message",
			      methods[k].method, e.code);
		json_decref(params);
	}
	json_decref(r);
	fleet_close(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int what;

	if (size == 0)
		return 0;
	what = data[0] % 12;
	fake.p = (const char *)data + 1;
	fake.end = (const char *)data + size;
	if (what == 0)
		read_answers();
	else if (what == 1)
		check_watch(data + 1, size - 1);
	else
		run_method(what - 2);
	return 0;
}
