/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicectld's SQLite store (control/slicectld/store.c): what is put is what a
 * later open loads (slices, endpoints, queues, schedulers), transactions are
 * all or nothing, deleting a slice takes everything it holds, filters keep
 * their order and contents, slice memory is kept in whole pages, and a
 * database of another schema version is refused. Each test works on its own
 * database under a fresh mkdtemp directory and reopens it to check what is
 * on disk, not what a connection caches.
 */
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "store.h"

#define MAX_PAGES 16

struct fixture {
	char dir[64];	/* the mkdtemp directory */
	char path[128]; /* the database, in two directories below dir not made yet */
	struct model *want;
	struct model *got;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/sp-test-store.XXXXXX");
	f->want = calloc(1, sizeof(*f->want));
	f->got = calloc(1, sizeof(*f->got));
	if (mkdtemp(f->dir) == NULL || f->want == NULL || f->got == NULL) {
		free(f->want);
		free(f->got);
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/state/db/slicectld.db", f->dir);
	*state = f;
	return 0;
}

static int
rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	int rc = nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);

	free(f->want);
	free(f->got);
	free(f);
	return rc;
}

static struct store *
open_store(const struct fixture *f)
{
	struct store *st = NULL;
	char err[1024] = "";

	if (store_open(&st, f->path, false, err, sizeof(err)) != 0)
		fail_msg("store_open: %s", err);
	assert_non_null(st);
	return st;
}

/* Close and open again: what follows comes from the file. */
static struct store *
reopen(const struct fixture *f, struct store *st)
{
	store_close(st);
	return open_store(f);
}

/* A statement run on the file itself, beside the store: its single integer result. */
static int64_t
sql_int(const struct fixture *f, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *s;
	int64_t v = -1;

	assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return v;
}

static void
sql_exec(const struct fixture *f, const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open_v2(f->path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_changes(db), 1);
	sqlite3_close(db);
}

/* Rows of table that belong to slice. */
static int64_t
rows(const struct fixture *f, const char *table, uint16_t slice)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE slice = %u", table, slice);
	return sql_int(f, sql);
}

/* A slice whose fields all differ, some beyond 31 and 32 bits to catch narrowing. */
static struct ctld_slice *
add_slice(struct model *m, uint16_t id, const char *name)
{
	struct ctld_slice *s = &m->slices[id];

	s->used = true;
	s->id = id;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->owner = 4000000000u - id;
	snprintf(s->codeopt, sizeof(s->codeopt), "codeopt_%u", id);
	s->npe = (uint16_t)(id % 3);
	s->memory = (16u << 20) - id;
	s->filter_quota = 131072 + id;
	s->queue_quota = (uint16_t)(64 - id % 7);
	s->buffer_quota = 3000000000u + id;
	s->bandwidth = UINT64_C(12345678901234) + id;
	s->inbound = UINT64_C(9876543210987) + id;
	return s;
}

static void
add_endpoint(struct ctld_slice *s, uint16_t idx, const char *port, uint16_t udp, uint64_t bw)
{
	struct ctld_endpoint *e = &s->ep[idx];

	e->used = true;
	snprintf(e->port, sizeof(e->port), "%s", port);
	e->l4_port = udp;
	e->bandwidth = bw;
	e->inbound = bw * 3 + idx; /* distinct from the bandwidth, per endpoint */
}

static void
add_queue(struct ctld_slice *s, uint16_t qid, uint16_t ep, uint32_t thr, uint32_t pkts,
	  uint64_t share)
{
	struct ctld_queue *q = &s->q[qid];

	q->bound = true;
	q->endpoint = ep;
	q->threshold = thr;
	q->threshold_packets = pkts;
	q->share = share;
}

/* Everything in m, stored. */
static void
put_model(struct store *st, const struct model *m)
{
	for (unsigned int id = 0; id < SP_MAX_SLICES; id++) {
		const struct ctld_slice *s = &m->slices[id];

		if (!s->used)
			continue;
		assert_int_equal(store_put_slice(st, s), 0);
		for (uint16_t i = 0; i < SP_MAX_SLICE_ENDPOINTS; i++)
			if (s->ep[i].used)
				assert_int_equal(store_put_endpoint(st, s->id, i, &s->ep[i]), 0);
		for (uint16_t i = 0; i < SP_MAX_SLICE_QUEUES; i++)
			if (s->q[i].bound)
				assert_int_equal(store_put_queue(st, s->id, i, &s->q[i]), 0);
	}
	for (unsigned int i = 0; i < m->nb_scheds; i++)
		assert_int_equal(store_put_sched(st, &m->scheds[i]), 0);
}

/* got holds exactly what want does: the same slots used, every stored field equal. */
static void
assert_model_equal(const struct model *want, const struct model *got)
{
	for (unsigned int id = 0; id < SP_MAX_SLICES; id++) {
		const struct ctld_slice *w = &want->slices[id], *g = &got->slices[id];

		assert_int_equal(g->used, w->used);
		if (w->used) {
			assert_int_equal(g->id, w->id);
			assert_string_equal(g->name, w->name);
			assert_int_equal(g->owner, w->owner);
			assert_string_equal(g->codeopt, w->codeopt);
			assert_int_equal(g->npe, w->npe);
			assert_int_equal(g->memory, w->memory);
			assert_int_equal(g->filter_quota, w->filter_quota);
			assert_int_equal(g->queue_quota, w->queue_quota);
			assert_int_equal(g->buffer_quota, w->buffer_quota);
			assert_int_equal(g->bandwidth, w->bandwidth);
			assert_int_equal(g->inbound, w->inbound);
			assert_string_equal(g->netns, w->netns);
			assert_int_equal(g->nat_ports, w->nat_ports);
			assert_int_equal(g->nat_first, w->nat_first);
			assert_int_equal(g->netns_made, w->netns_made);
			assert_string_equal(g->trouble, ""); /* not stored */
		}
		for (unsigned int i = 0; i < SP_MAX_SLICE_ENDPOINTS; i++) {
			const struct ctld_endpoint *we = &w->ep[i], *ge = &g->ep[i];

			assert_int_equal(ge->used, we->used);
			if (!we->used)
				continue;
			assert_string_equal(ge->port, we->port);
			assert_int_equal(ge->l4_port, we->l4_port);
			assert_int_equal(ge->tcp, we->tcp);
			assert_int_equal(ge->bandwidth, we->bandwidth);
			assert_int_equal(ge->inbound, we->inbound);
			assert_int_equal(ge->holder, we->holder);
			assert_int_equal(ge->holder_start, we->holder_start);
		}
		for (unsigned int i = 0; i < SP_MAX_SLICE_QUEUES; i++) {
			const struct ctld_queue *wq = &w->q[i], *gq = &g->q[i];

			assert_int_equal(gq->bound, wq->bound);
			if (!wq->bound)
				continue;
			assert_int_equal(gq->endpoint, wq->endpoint);
			assert_int_equal(gq->threshold, wq->threshold);
			assert_int_equal(gq->threshold_packets, wq->threshold_packets);
			assert_int_equal(gq->share, wq->share);
		}
	}
	assert_int_equal(got->nb_scheds, want->nb_scheds);
	for (unsigned int i = 0; i < want->nb_scheds; i++) {
		assert_int_equal(got->scheds[i].npe, want->scheds[i].npe);
		assert_string_equal(got->scheds[i].port, want->scheds[i].port);
		assert_int_equal(got->scheds[i].rate, want->scheds[i].rate);
		assert_int_equal(got->scheds[i].overhead, want->scheds[i].overhead);
	}
}

/* Load into a model full of garbage: store_load must clear what it does not fill. */
static void
load(struct store *st, struct model *m)
{
	memset(m, 0xa5, sizeof(*m));
	if (store_load(st, m) != 0)
		fail_msg("store_load: %s", store_error(st));
}

static struct sp_ctl_filter
make_filter(uint32_t position, uint16_t endpoint, uint16_t queue, uint8_t seed)
{
	struct sp_ctl_filter f = {.position = position, .hits = 99};

	for (unsigned int i = 0; i < SP_KEY_BYTES; i++) {
		f.key.b[i] = (uint8_t)(seed * 16 + i);
		f.mask.b[i] = (uint8_t)(0xff - seed - i);
	}
	f.result.endpoint = endpoint;
	f.result.queue = queue;
	/* Odd seeds' next hops IPv4 (above 2^31), even seeds' IPv6. */
	if (seed % 2 == 1) {
		f.result.nh_ip = 0xc0a80000u | seed;
	} else {
		f.result.nh_family = SP_NH_IPV6;
		f.result.nh_ip6[0] = 0x20;
		f.result.nh_ip6[1] = 0x01;
		f.result.nh_ip6[15] = seed;
	}
	f.result.nh_port = (uint16_t)(0xffff - seed);
	for (unsigned int i = 0; i < SP_RESULT_DATA_BYTES; i++)
		f.result.data[i] = (uint8_t)(seed ^ (i * 37));
	return f;
}

static void
assert_filter_equal(const struct sp_ctl_filter *want, const struct sp_ctl_filter *got)
{
	assert_int_equal(got->position, want->position);
	assert_memory_equal(got->key.b, want->key.b, SP_KEY_BYTES);
	assert_memory_equal(got->mask.b, want->mask.b, SP_KEY_BYTES);
	assert_int_equal(got->result.endpoint, want->result.endpoint);
	assert_int_equal(got->result.queue, want->result.queue);
	assert_int_equal(got->result.nh_ip, want->result.nh_ip);
	assert_int_equal(got->result.nh_family, want->result.nh_family);
	assert_memory_equal(got->result.nh_ip6, want->result.nh_ip6, sizeof(want->result.nh_ip6));
	assert_int_equal(got->result.nh_port, want->result.nh_port);
	assert_memory_equal(got->result.data, want->result.data, SP_RESULT_DATA_BYTES);
	assert_int_equal(got->hits, 0); /* not stored */
}

/* What store_each_filter handed over; stop_at-th call (1-based) returns ret. */
struct seen {
	struct sp_ctl_filter f[64];
	unsigned int n;
	unsigned int stop_at;
	int ret;
};

static int
collect_filter(void *arg, const struct sp_ctl_filter *f)
{
	struct seen *s = arg;

	assert_true(s->n < 64);
	s->f[s->n++] = *f;
	return s->n == s->stop_at ? s->ret : 0;
}

static unsigned int
each_filter(struct store *st, uint16_t slice, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	assert_int_equal(store_each_filter(st, slice, collect_filter, s), 0);
	return s->n;
}

/* A slice's memory rebuilt from its stored pages; present says which were stored. */
struct image {
	uint8_t bytes[MAX_PAGES * STORE_PAGE];
	bool present[MAX_PAGES];
	unsigned int pages;
	int last; /* the last page seen: they must come in order */
};

static int
collect_page(void *arg, uint32_t offset, const uint8_t *page, size_t len)
{
	struct image *im = arg;
	uint32_t n = offset / STORE_PAGE;

	assert_int_equal(offset % STORE_PAGE, 0);
	assert_int_equal(len, STORE_PAGE);
	assert_true(n < MAX_PAGES);
	assert_true((int)n > im->last);
	im->last = (int)n;
	im->present[n] = true;
	im->pages++;
	memcpy(im->bytes + offset, page, len);
	return 0;
}

static void
read_image(struct store *st, uint16_t slice, struct image *im)
{
	memset(im, 0, sizeof(*im));
	im->last = -1;
	assert_int_equal(store_each_mem_page(st, slice, collect_page, im), 0);
}

/* A fresh database in a missing directory; what was put comes back after reopening. */
static void
test_open_and_load(void **state)
{
	struct fixture *f = *state;
	struct model *w = f->want;
	char dir[160];
	struct stat sb;
	struct store *st;
	struct ctld_slice *s;

	snprintf(dir, sizeof(dir), "%s/state", f->dir);
	assert_int_equal(stat(dir, &sb), -1);
	st = open_store(f);
	assert_int_equal(stat(f->path, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	/* The database's directory is the daemon's: no access for others. */
	snprintf(dir, sizeof(dir), "%s/state/db", f->dir);
	assert_int_equal(stat(dir, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(sb.st_mode & 0007, 0);

	/* Empty at first. */
	load(st, f->got);
	assert_model_equal(w, f->got);

	s = add_slice(w, 3, "alpha_3");
	add_endpoint(s, 0, "eth0", 5000, 10000000);
	add_endpoint(s, 2, "eth1", 65535, UINT64_C(9000000000)); /* 1 left empty */
	add_endpoint(s, SP_MAX_SLICE_ENDPOINTS - 1, "eth0", 1, 1);
	add_queue(s, 0, 2, 4000000000u, 123456, UINT64_C(7000000000));
	add_queue(s, SP_MAX_SLICE_QUEUES - 1, 0, 1, 2, 3);
	s = add_slice(w, SP_MAX_SLICES - 1, "zeta");
	add_endpoint(s, 1, "eth2", 4789, 42);
	add_queue(s, 7, 1, 9, 8, 7);
	add_slice(w, 1, "bare");
	/* A host slice: its namespace, NAT size, who made the namespace, a TCP endpoint. */
	s = add_slice(w, 9, "web");
	snprintf(s->netns, sizeof(s->netns), "web-ns.1");
	s->nat_ports = SP_MAX_NAT_PORTS;
	s->nat_first = 1024;
	s->netns_made = true;
	add_endpoint(s, 0, "eth0", 8080, 5);
	s->ep[0].tcp = true;
	add_endpoint(s, 1, "eth0", 8080, 5); /* the same number in UDP */
	s->ep[1].holder = 4242; /* held by a process (the shim's) */
	s->ep[1].holder_start = UINT64_C(123456789012);
	/* Stored out of order: loaded by (npe, port). */
	w->scheds[2] = (struct ctld_sched){.npe = 1, .port = "eth1", .rate = UINT64_C(40000000000),
					   .overhead = 24};
	w->scheds[1] = (struct ctld_sched){.npe = 0, .port = "eth2", .rate = 1, .overhead = 20};
	w->scheds[0] = (struct ctld_sched){.npe = 0, .port = "eth0", .rate = UINT64_C(10000000000),
					   .overhead = 65535};
	assert_int_equal(store_put_sched(st, &w->scheds[2]), 0);
	assert_int_equal(store_put_sched(st, &w->scheds[1]), 0);
	w->scheds[1].rate = UINT64_C(25000000000); /* the same (npe, port) again replaces it */
	w->nb_scheds = 3;
	put_model(st, w);

	st = reopen(f, st);
	load(st, f->got);
	assert_model_equal(w, f->got);
	assert_false(f->got->slices[3].ep[1].used);
	assert_true(f->got->slices[3].ep[2].used);
	assert_int_equal(sql_int(f, "SELECT value FROM meta WHERE key = 'schema'"), 6);
	store_close(st);
}

/* Deleting an endpoint or a queue takes that one only. */
static void
test_del_endpoint_queue(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	struct ctld_slice *s = add_slice(f->want, 8, "eight"), *t = add_slice(f->want, 9, "nine");

	add_endpoint(s, 0, "eth0", 100, 1000);
	add_endpoint(s, 1, "eth1", 101, 1001);
	add_queue(s, 0, 0, 1, 1, 1);
	add_queue(s, 3, 1, 2, 2, 2);
	add_endpoint(t, 1, "eth1", 102, 1002);
	add_queue(t, 3, 1, 3, 3, 3);
	put_model(st, f->want);
	assert_int_equal(store_del_endpoint(st, 8, 1), 0);
	assert_int_equal(store_del_queue(st, 8, 3), 0);
	s->ep[1].used = false;
	s->q[3].bound = false;

	st = reopen(f, st);
	load(st, f->got);
	assert_model_equal(f->want, f->got);
	store_close(st);
}

/* Rolled back or never committed: gone. Committed: there, after reopening. */
static void
test_transactions(void **state)
{
	struct fixture *f = *state;
	struct model *w = f->want;
	struct store *st = open_store(f);
	struct ctld_slice gone = {.used = true}, *s;

	/* Nothing to commit: an error, with a reason. */
	assert_int_equal(store_commit(st), -1);
	assert_true(store_error(st)[0] != '\0');
	store_rollback(st); /* outside a transaction: nothing happens */

	s = add_slice(w, 2, "kept");
	add_endpoint(s, 0, "eth0", 7000, 5);
	put_model(st, w); /* autocommit */

	assert_int_equal(store_begin(st), 0);
	add_slice(f->got, 4, "rolled_back");
	assert_int_equal(store_put_slice(st, &f->got->slices[4]), 0);
	assert_int_equal(store_put_endpoint(st, 2, 1, &s->ep[0]), 0);
	assert_int_equal(store_del_endpoint(st, 2, 0), 0);
	store_rollback(st);
	/* Gone at once on this connection too. */
	load(st, f->got);
	assert_model_equal(w, f->got);

	assert_int_equal(store_begin(st), 0);
	s = add_slice(w, 5, "committed");
	add_queue(s, 1, 0, 10, 20, 30);
	assert_int_equal(store_put_slice(st, s), 0);
	assert_int_equal(store_put_queue(st, 5, 1, &s->q[1]), 0);
	assert_int_equal(store_commit(st), 0);

	/* Open when the store closes: as if slicectld died before acknowledging it. */
	assert_int_equal(store_begin(st), 0);
	gone.id = 6;
	snprintf(gone.name, sizeof(gone.name), "uncommitted");
	assert_int_equal(store_put_slice(st, &gone), 0);

	st = reopen(f, st);
	load(st, f->got);
	assert_model_equal(w, f->got);
	store_close(st);
}

/* Two slices holding one of everything, to see what deleting one of them takes. */
static void
fill_slice(struct store *st, struct model *m, uint16_t id, const char *name)
{
	struct ctld_slice *s = add_slice(m, id, name);
	struct sp_ctl_filter a = make_filter(0, 1, 3, (uint8_t)id), b = make_filter(2, 0, 0, 7);
	const uint8_t bytes[] = {1, 2, 3};

	add_endpoint(s, 0, "eth0", (uint16_t)(6000 + id), 10);
	add_endpoint(s, 1, "eth1", (uint16_t)(7000 + id), 20);
	add_queue(s, 0, 0, 1, 1, 1);
	add_queue(s, 3, 1, 2, 2, 2);
	assert_int_equal(store_put_slice(st, s), 0);
	assert_int_equal(store_put_endpoint(st, id, 0, &s->ep[0]), 0);
	assert_int_equal(store_put_endpoint(st, id, 1, &s->ep[1]), 0);
	assert_int_equal(store_put_queue(st, id, 0, &s->q[0]), 0);
	assert_int_equal(store_put_queue(st, id, 3, &s->q[3]), 0);
	assert_int_equal(store_put_filter(st, id, &a), 0);
	assert_int_equal(store_put_filter(st, id, &b), 0);
	assert_int_equal(store_mem_write(st, id, 10, bytes, sizeof(bytes)), 0);
	assert_int_equal(store_mem_write(st, id, 2 * STORE_PAGE, bytes, sizeof(bytes)), 0);
}

static void
test_del_slice_cascade(void **state)
{
	static const char *const tables[] = {"endpoints", "queues", "filters", "memory"};
	struct fixture *f = *state;
	struct store *st = open_store(f);
	struct image *im = malloc(sizeof(*im));
	struct seen *seen = malloc(sizeof(*seen));

	assert_non_null(im);
	assert_non_null(seen);
	fill_slice(st, f->want, 5, "doomed");
	fill_slice(st, f->want, 6, "spared");
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_del_slice(st, 5), 0);
	assert_int_equal(store_commit(st), 0);
	memset(&f->want->slices[5], 0, sizeof(f->want->slices[5]));
	store_close(st);

	/* In the file: no row left of slice 5, all of slice 6's. */
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(rows(f, tables[i], 5), 0);
		assert_int_equal(rows(f, tables[i], 6), 2);
	}

	st = open_store(f);
	assert_int_equal(each_filter(st, 5, seen), 0);
	read_image(st, 5, im);
	assert_int_equal(im->pages, 0);
	load(st, f->got);
	assert_model_equal(f->want, f->got); /* slice 5's endpoints and queues too */

	assert_int_equal(each_filter(st, 6, seen), 2);
	read_image(st, 6, im);
	assert_int_equal(im->pages, 2);
	store_close(st);
	free(im);
	free(seen);
}

/* Filters come back in position order, whole; a position is put again or deleted alone. */
/* Putting a slice again changes its row and keeps what it holds (no delete and insert). */
static void
test_put_slice_again(void **state)
{
	static const char *const tables[] = {"endpoints", "queues", "filters", "memory"};
	struct fixture *f = *state;
	struct store *st = open_store(f);

	fill_slice(st, f->want, 3, "kept");
	f->want->slices[3].filter_quota = 12345;
	assert_int_equal(store_put_slice(st, &f->want->slices[3]), 0);
	st = reopen(f, st);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(rows(f, tables[i], 3), 2);
	load(st, f->got);
	assert_model_equal(f->want, f->got);
	store_close(st);
}

static void
test_filters(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	struct sp_ctl_filter in[] = {
		make_filter(7, 2, 5, 1),
		make_filter(0, 15, 63, 2),
		make_filter(UINT32_MAX, 0, 0, 3), /* the last position there is */
		make_filter(3, 1, 1, 4),
	};
	struct sp_ctl_filter other = make_filter(1, 3, 3, 5), again = make_filter(3, 9, 9, 6);
	struct seen *seen = malloc(sizeof(*seen));

	assert_non_null(seen);
	add_slice(f->want, 4, "four");
	add_slice(f->want, 5, "five");
	put_model(st, f->want);
	for (unsigned int i = 0; i < 4; i++)
		assert_int_equal(store_put_filter(st, 4, &in[i]), 0);
	assert_int_equal(store_put_filter(st, 5, &other), 0);

	st = reopen(f, st);
	assert_int_equal(each_filter(st, 4, seen), 4);
	assert_filter_equal(&in[1], &seen->f[0]);
	assert_filter_equal(&in[3], &seen->f[1]);
	assert_filter_equal(&in[0], &seen->f[2]);
	assert_filter_equal(&in[2], &seen->f[3]);

	/* Position 3 again: replaced, not added. */
	assert_int_equal(store_put_filter(st, 4, &again), 0);
	/* Position 1 is slice 5's only: deleting it in slice 4 leaves it. */
	assert_int_equal(store_del_filter(st, 4, 1), 0);
	assert_int_equal(store_del_filter(st, 4, 0), 0);

	st = reopen(f, st);
	assert_int_equal(each_filter(st, 4, seen), 3);
	assert_filter_equal(&again, &seen->f[0]);
	assert_filter_equal(&in[0], &seen->f[1]);
	assert_filter_equal(&in[2], &seen->f[2]);
	assert_int_equal(each_filter(st, 5, seen), 1);
	assert_filter_equal(&other, &seen->f[0]);
	store_close(st);
	free(seen);
}

static void
put_naming(struct store *st, uint16_t slice, uint32_t position, uint16_t endpoint, uint16_t queue)
{
	struct sp_ctl_filter f = make_filter(position, endpoint, queue, (uint8_t)position);

	assert_int_equal(store_put_filter(st, slice, &f), 0);
}

/* The filters still naming an endpoint or a queue: how many, and where. */
static void
test_filters_naming(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	char list[200];
	const char *p;
	unsigned int listed = 0;
	int n;

	add_slice(f->want, 4, "four");
	add_slice(f->want, 5, "five");
	add_slice(f->want, 6, "six");
	put_model(st, f->want);
	/* Endpoint 2 at 0, 3, 7; queue 5 at 0, 4, 7; queue 6 at 3; endpoint 1 at 4. */
	put_naming(st, 4, 7, 2, 5);
	put_naming(st, 4, 0, 2, 5);
	put_naming(st, 4, 4, 1, 5);
	put_naming(st, 4, 3, 2, 6);
	/* Another slice's filter naming the same: not counted. */
	put_naming(st, 5, 1, 2, 5);

	assert_int_equal(store_filters_naming(st, 4, false, 2, list, sizeof(list)), 3);
	assert_string_equal(list, "0, 3, 7");
	assert_int_equal(store_filters_naming(st, 4, true, 5, list, sizeof(list)), 3);
	assert_string_equal(list, "0, 4, 7");
	assert_int_equal(store_filters_naming(st, 4, true, 6, list, sizeof(list)), 1);
	assert_string_equal(list, "3");
	assert_int_equal(store_filters_naming(st, 4, false, 1, list, sizeof(list)), 1);
	assert_string_equal(list, "4");
	/* 5 is a queue that is named, but no endpoint 5 is. */
	assert_int_equal(store_filters_naming(st, 4, false, 5, list, sizeof(list)), 0);
	assert_string_equal(list, "");
	assert_int_equal(store_filters_naming(st, 5, false, 2, list, sizeof(list)), 1);
	assert_string_equal(list, "1");

	/* More than fit: whole positions in order as far as they go, then "...". */
	for (uint32_t i = 0; i < 40; i++)
		put_naming(st, 6, 1000000 + i, 3, 0);
	memset(list, 'x', sizeof(list));
	n = store_filters_naming(st, 6, false, 3, list, 64);
	assert_int_equal(n, 40);
	assert_true(strlen(list) < 64);
	assert_non_null(strstr(list, ", ..."));
	assert_string_equal(strstr(list, ", ..."), ", ...");
	for (p = list; strncmp(p, "...", 3) != 0; listed++) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		assert_true(end > p);
		assert_int_equal(v, 1000000 + listed);
		assert_int_equal(strncmp(end, ", ", 2), 0);
		p = end + 2;
	}
	assert_in_range(listed, 2, 39);
	store_close(st);
}

/* store_each_filter stops at the callback's first non-zero and returns it. */
static void
test_each_filter_stops(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	struct seen *seen = malloc(sizeof(*seen));

	assert_non_null(seen);
	add_slice(f->want, 4, "four");
	put_model(st, f->want);
	for (uint32_t i = 0; i < 5; i++) {
		struct sp_ctl_filter fl = make_filter(10 + i, 0, 0, (uint8_t)i);

		assert_int_equal(store_put_filter(st, 4, &fl), 0);
	}

	memset(seen, 0, sizeof(*seen));
	seen->stop_at = 2;
	seen->ret = 42;
	assert_int_equal(store_each_filter(st, 4, collect_filter, seen), 42);
	assert_int_equal(seen->n, 2);
	assert_int_equal(seen->f[1].position, 11);

	memset(seen, 0, sizeof(*seen));
	seen->stop_at = 1;
	seen->ret = -3;
	assert_int_equal(store_each_filter(st, 4, collect_filter, seen), -3);
	assert_int_equal(seen->n, 1);
	assert_int_equal(seen->f[0].position, 10);

	/* After a stop, the next walk starts from the first again and sees all. */
	assert_int_equal(each_filter(st, 4, seen), 5);
	assert_int_equal(seen->f[0].position, 10);
	assert_int_equal(seen->f[4].position, 14);
	/* And the store still takes changes (the stopped walk holds nothing open). */
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_del_filter(st, 4, 12), 0);
	assert_int_equal(store_commit(st), 0);
	st = reopen(f, st);
	assert_int_equal(each_filter(st, 4, seen), 4);
	store_close(st);
	free(seen);
}

static void
check_image(struct store *st, uint16_t slice, const uint8_t *want, const bool *present)
{
	struct image *im = malloc(sizeof(*im));
	unsigned int pages = 0;

	assert_non_null(im);
	read_image(st, slice, im);
	for (unsigned int i = 0; i < MAX_PAGES; i++) {
		assert_int_equal(im->present[i], present[i]);
		pages += present[i];
	}
	assert_int_equal(im->pages, pages);
	assert_memory_equal(im->bytes, want, sizeof(im->bytes));
	free(im);
}

/* Slice memory: whole pages, written across page boundaries, partial writes merged. */
static void
test_mem_pages(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	static uint8_t want[MAX_PAGES * STORE_PAGE], big[2 * STORE_PAGE + 100];
	bool present[MAX_PAGES] = {false}, none[MAX_PAGES] = {false};
	const uint8_t eight[] = {1, 2, 3, 4, 5, 6, 7, 8}, two[] = {0xa, 0xb}, one[] = {0xee};
	static uint8_t zero[MAX_PAGES * STORE_PAGE];
	uint32_t at;

	memset(want, 0, sizeof(want));
	add_slice(f->want, 9, "nine");
	add_slice(f->want, 10, "ten");
	put_model(st, f->want);

	/* 8 bytes at 4092: the last 4 of page 0, the first 4 of page 1. */
	assert_int_equal(store_mem_write(st, 9, STORE_PAGE - 4, eight, sizeof(eight)), 0);
	memcpy(want + STORE_PAGE - 4, eight, sizeof(eight));
	present[0] = present[1] = true;
	check_image(st, 9, want, present);

	/* 2 bytes into page 0 again: the 2 before them stay, page 1 is untouched. */
	assert_int_equal(store_mem_write(st, 9, STORE_PAGE - 2, two, sizeof(two)), 0);
	memcpy(want + STORE_PAGE - 2, two, sizeof(two));
	check_image(st, 9, want, present);

	/* Nothing written: no page made. */
	assert_int_equal(store_mem_write(st, 9, 12 * STORE_PAGE, eight, 0), 0);
	check_image(st, 9, want, present);

	/* Across four pages (a whole one in the middle), and one lone page after a gap. */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + 1);
	at = 3 * STORE_PAGE - 50;
	assert_int_equal(store_mem_write(st, 9, at, big, sizeof(big)), 0);
	memcpy(want + at, big, sizeof(big));
	present[2] = present[3] = present[4] = present[5] = true;
	at = 7 * STORE_PAGE + 123;
	assert_int_equal(store_mem_write(st, 9, at, one, sizeof(one)), 0);
	want[at] = one[0];
	present[7] = true;
	check_image(st, 9, want, present);

	/* Another slice's memory is its own. */
	check_image(st, 10, zero, none);
	assert_int_equal(store_mem_write(st, 10, 0, one, sizeof(one)), 0);
	zero[0] = one[0];
	none[0] = true;

	st = reopen(f, st);
	check_image(st, 9, want, present);
	check_image(st, 10, zero, none);
	store_close(st);
}

/* A stored page that ends the walk: its return comes back and no more pages are shown. */
static int
stop_at_first_page(void *arg, uint32_t offset, const uint8_t *page, size_t len)
{
	(void)offset;
	(void)page;
	(void)len;
	(*(unsigned int *)arg)++;
	return 5;
}

static void
test_each_mem_page_stops(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	const uint8_t b[] = {1};
	unsigned int calls = 0;

	add_slice(f->want, 9, "nine");
	put_model(st, f->want);
	assert_int_equal(store_mem_write(st, 9, 0, b, 1), 0);
	assert_int_equal(store_mem_write(st, 9, STORE_PAGE, b, 1), 0);
	assert_int_equal(store_each_mem_page(st, 9, stop_at_first_page, &calls), 5);
	assert_int_equal(calls, 1);
	store_close(st);
}

/* Another schema version: refused, naming both; the data is left alone. */
static void
test_schema_version(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	char err[1024] = "";

	add_slice(f->want, 1, "one");
	put_model(st, f->want);
	store_close(st);
	sql_exec(f, "UPDATE meta SET value = 7 WHERE key = 'schema'");

	st = (struct store *)&err; /* store_open must set it to NULL */
	assert_int_equal(store_open(&st, f->path, false, err, sizeof(err)), -1);
	assert_null(st);
	assert_non_null(strstr(err, "version 7"));
	assert_non_null(strstr(err, "version 6"));
	assert_non_null(strstr(err, f->path));

	/* Back to version 6: it opens, with the slice still there. */
	sql_exec(f, "UPDATE meta SET value = 6 WHERE key = 'schema'");
	st = open_store(f);
	load(st, f->got);
	assert_model_equal(f->want, f->got);
	store_close(st);
}

/*
 * A version 1 database (no inbound quota) is brought to version 2: each slice
 * gets the default inbound quota, or what its endpoints hold if more.
 */
static void
test_migrate_from_1(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	struct ctld_slice *big = add_slice(f->want, 1, "big"), *none = add_slice(f->want, 2, "none");

	add_endpoint(big, 0, "eth0", 5000, UINT64_C(400000000));
	add_endpoint(big, 1, "eth1", 5001, 7);
	put_model(st, f->want);
	store_close(st);
	sql_exec(f, "ALTER TABLE slices DROP COLUMN inbound; ALTER TABLE endpoints DROP COLUMN tcp; "
		    "ALTER TABLE endpoints DROP COLUMN holder_pid; "
		    "ALTER TABLE endpoints DROP COLUMN holder_start; "
		    "ALTER TABLE host_slices DROP COLUMN nat_first; "
		    "ALTER TABLE filters DROP COLUMN nh_ip6; "
		    "UPDATE meta SET value = 1 WHERE key = 'schema'");

	st = open_store(f);
	load(st, f->got);
	big->inbound = big->ep[0].inbound + big->ep[1].inbound;
	none->inbound = SP_DEFAULT_SLICE_BANDWIDTH;
	assert_true(big->inbound > SP_DEFAULT_SLICE_BANDWIDTH);
	assert_model_equal(f->want, f->got);
	assert_int_equal(sql_int(f, "SELECT value FROM meta WHERE key = 'schema'"), 6);
	store_close(st);
}

/* A version 2 database (no TCP endpoints) is brought to version 3: its endpoints are UDP. */
static void
test_migrate_from_2(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	struct ctld_slice *s = add_slice(f->want, 4, "old");

	add_endpoint(s, 0, "eth0", 5000, 1000);
	put_model(st, f->want);
	store_close(st);
	sql_exec(f, "ALTER TABLE endpoints DROP COLUMN tcp; ALTER TABLE endpoints DROP COLUMN "
		    "holder_pid; ALTER TABLE endpoints DROP COLUMN holder_start; ALTER TABLE "
		    "host_slices DROP COLUMN nat_first; ALTER TABLE filters DROP COLUMN nh_ip6; "
		    "UPDATE meta SET value = 2 WHERE key = 'schema'");

	st = open_store(f);
	load(st, f->got);
	assert_model_equal(f->want, f->got);
	assert_false(f->got->slices[4].ep[0].tcp);
	assert_int_equal(sql_int(f, "SELECT value FROM meta WHERE key = 'schema'"), 6);
	store_close(st);
}

/* A version 3 database (no endpoints held by a process) is brought to 4: none is held. */
static void
test_migrate_from_3(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	struct ctld_slice *s = add_slice(f->want, 5, "web");

	add_endpoint(s, 0, "eth0", 8080, 1000);
	s->ep[0].tcp = true;
	put_model(st, f->want);
	store_close(st);
	sql_exec(f, "ALTER TABLE endpoints DROP COLUMN holder_pid; ALTER TABLE endpoints DROP "
		    "COLUMN holder_start; ALTER TABLE host_slices DROP COLUMN nat_first; ALTER TABLE "
		    "filters DROP COLUMN nh_ip6; UPDATE meta SET value = 3 WHERE key = 'schema'");

	st = open_store(f);
	load(st, f->got);
	assert_model_equal(f->want, f->got);
	assert_int_equal(f->got->slices[5].ep[0].holder, 0);
	assert_int_equal(sql_int(f, "SELECT value FROM meta WHERE key = 'schema'"), 6);
	store_close(st);
}

/* A version 4 database (no NAT range kept) is brought to 5: each range is learnt at replay. */
static void
test_migrate_from_4(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	struct ctld_slice *s = add_slice(f->want, 6, "web");

	snprintf(s->netns, sizeof(s->netns), "web");
	s->nat_ports = 256;
	s->nat_first = 61000;
	put_model(st, f->want);
	store_close(st);
	sql_exec(f, "ALTER TABLE host_slices DROP COLUMN nat_first; ALTER TABLE filters DROP "
		    "COLUMN nh_ip6; UPDATE meta SET value = 4 WHERE key = 'schema'");

	st = open_store(f);
	load(st, f->got);
	s->nat_first = 0;
	assert_model_equal(f->want, f->got);
	assert_int_equal(sql_int(f, "SELECT value FROM meta WHERE key = 'schema'"), 6);
	store_close(st);
}

/* A version 5 database (IPv4 next hops only) is brought to 6: its filters' next hops stay IPv4. */
static void
test_migrate_from_5(void **state)
{
	struct fixture *f = *state;
	struct store *st = open_store(f);
	struct sp_ctl_filter in = make_filter(4, 1, 2, 7);
	struct seen *seen = malloc(sizeof(*seen));

	assert_non_null(seen);
	add_slice(f->want, 8, "old");
	put_model(st, f->want);
	assert_int_equal(store_put_filter(st, 8, &in), 0);
	store_close(st);
	sql_exec(f, "ALTER TABLE filters DROP COLUMN nh_ip6; UPDATE meta SET value = 5 WHERE key = "
		    "'schema'");

	st = open_store(f);
	load(st, f->got);
	assert_model_equal(f->want, f->got);
	assert_int_equal(each_filter(st, 8, seen), 1);
	assert_filter_equal(&in, &seen->f[0]);
	assert_int_equal(seen->f[0].result.nh_family, SP_NH_IPV4);
	assert_int_equal(sql_int(f, "SELECT value FROM meta WHERE key = 'schema'"), 6);
	store_close(st);
	free(seen);
}

/* The database's directory cannot be made (a file is in the way): an error, no store. */
static void
test_open_bad_dir(void **state)
{
	struct fixture *f = *state;
	char file[160], path[200], err[1024] = "";
	struct store *st = NULL;
	FILE *fp;

	snprintf(file, sizeof(file), "%s/file", f->dir);
	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/sub/slicectld.db", file);
	assert_int_equal(store_open(&st, path, false, err, sizeof(err)), -1);
	assert_null(st);
	assert_non_null(strstr(err, path));
}

#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_open_and_load),
		T(test_del_endpoint_queue),
		T(test_transactions),
		T(test_del_slice_cascade),
		T(test_put_slice_again),
		T(test_filters),
		T(test_filters_naming),
		T(test_each_filter_stops),
		T(test_mem_pages),
		T(test_each_mem_page_stops),
		T(test_schema_version),
		T(test_migrate_from_1),
		T(test_migrate_from_2),
		T(test_migrate_from_3),
		T(test_migrate_from_4),
		T(test_migrate_from_5),
		T(test_open_bad_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
