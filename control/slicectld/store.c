/* SPDX-License-Identifier: BSD-3-Clause */
#include "store.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "common/unixsock.h"

#define SCHEMA_VERSION 6
#define BUSY_TIMEOUT_MS 5000

static const char SCHEMA[] =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS slices(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL,"
	" owner INTEGER NOT NULL, codeopt TEXT NOT NULL, npe INTEGER NOT NULL,"
	" memory INTEGER NOT NULL, filter_quota INTEGER NOT NULL, queue_quota INTEGER NOT NULL,"
	" buffer_quota INTEGER NOT NULL, bandwidth INTEGER NOT NULL, inbound INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS endpoints(slice INTEGER REFERENCES slices(id) ON DELETE CASCADE,"
	" idx INTEGER, port TEXT NOT NULL, udp_port INTEGER NOT NULL, bandwidth INTEGER NOT NULL,"
	" inbound INTEGER NOT NULL, tcp INTEGER NOT NULL DEFAULT 0,"
	" holder_pid INTEGER NOT NULL DEFAULT 0, holder_start INTEGER NOT NULL DEFAULT 0,"
	" PRIMARY KEY(slice, idx));"
	"CREATE TABLE IF NOT EXISTS queues(slice INTEGER REFERENCES slices(id) ON DELETE CASCADE,"
	" qid INTEGER, endpoint INTEGER NOT NULL, threshold INTEGER NOT NULL,"
	" threshold_packets INTEGER NOT NULL, share INTEGER NOT NULL, PRIMARY KEY(slice, qid));"
	"CREATE TABLE IF NOT EXISTS filters(slice INTEGER REFERENCES slices(id) ON DELETE CASCADE,"
	" position INTEGER, key BLOB NOT NULL, mask BLOB NOT NULL, endpoint INTEGER NOT NULL,"
	" queue INTEGER NOT NULL, nh_ip INTEGER NOT NULL, nh_port INTEGER NOT NULL,"
	" data BLOB NOT NULL, nh_ip6 BLOB, PRIMARY KEY(slice, position)) WITHOUT ROWID;"
	"CREATE INDEX IF NOT EXISTS filters_by_endpoint ON filters(slice, endpoint);"
	"CREATE INDEX IF NOT EXISTS filters_by_queue ON filters(slice, queue);"
	"CREATE TABLE IF NOT EXISTS memory(slice INTEGER REFERENCES slices(id) ON DELETE CASCADE,"
	" page INTEGER, data BLOB NOT NULL, PRIMARY KEY(slice, page));"
	"CREATE TABLE IF NOT EXISTS schedulers(npe INTEGER, port TEXT, rate INTEGER NOT NULL,"
	" overhead INTEGER NOT NULL, PRIMARY KEY(npe, port));"
	/* Added in place: a database without it gets it, empty, when opened. */
	"CREATE TABLE IF NOT EXISTS codeopt_data(slice INTEGER PRIMARY KEY REFERENCES slices(id)"
	" ON DELETE CASCADE, data BLOB NOT NULL);"
	"CREATE TABLE IF NOT EXISTS host_slices(slice INTEGER PRIMARY KEY REFERENCES slices(id)"
	" ON DELETE CASCADE, netns TEXT NOT NULL, nat_ports INTEGER NOT NULL,"
	" netns_made INTEGER NOT NULL, nat_first INTEGER NOT NULL DEFAULT 0);";

/* The statements, prepared once. */
enum query {
	Q_BEGIN, Q_COMMIT, Q_ROLLBACK,
	Q_PUT_SLICE, Q_DEL_SLICE, Q_PUT_ENDPOINT, Q_DEL_ENDPOINT, Q_PUT_QUEUE, Q_DEL_QUEUE,
	Q_PUT_SCHED, Q_PUT_FILTER, Q_DEL_FILTER, Q_FILTERS_BY_ENDPOINT, Q_FILTERS_BY_QUEUE,
	Q_FILTERS, Q_GET_PAGE, Q_PUT_PAGE, Q_PAGES, Q_PUT_CODEOPT_DATA, Q_GET_CODEOPT_DATA,
	Q_LOAD_SLICES, Q_LOAD_ENDPOINTS, Q_LOAD_QUEUES, Q_LOAD_SCHEDS, Q_PUT_HOST, Q_LOAD_HOSTS,
	Q_MAX
};

static const char *const SQL[Q_MAX] = {
	[Q_BEGIN] = "BEGIN IMMEDIATE",
	[Q_COMMIT] = "COMMIT",
	[Q_ROLLBACK] = "ROLLBACK",
	/* An upsert: REPLACE would delete the row first, and with it (cascading) all it holds. */
	[Q_PUT_SLICE] = "INSERT INTO slices VALUES(?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE"
			" SET name = excluded.name, owner = excluded.owner,"
			" codeopt = excluded.codeopt, npe = excluded.npe, memory = excluded.memory,"
			" filter_quota = excluded.filter_quota, queue_quota = excluded.queue_quota,"
			" buffer_quota = excluded.buffer_quota, bandwidth = excluded.bandwidth,"
			" inbound = excluded.inbound",
	[Q_DEL_SLICE] = "DELETE FROM slices WHERE id = ?",
	[Q_PUT_ENDPOINT] = "INSERT OR REPLACE INTO endpoints VALUES(?,?,?,?,?,?,?,?,?)",
	[Q_DEL_ENDPOINT] = "DELETE FROM endpoints WHERE slice = ? AND idx = ?",
	[Q_PUT_QUEUE] = "INSERT OR REPLACE INTO queues VALUES(?,?,?,?,?,?)",
	[Q_DEL_QUEUE] = "DELETE FROM queues WHERE slice = ? AND qid = ?",
	[Q_PUT_SCHED] = "INSERT OR REPLACE INTO schedulers VALUES(?,?,?,?)",
	[Q_PUT_FILTER] = "INSERT OR REPLACE INTO filters VALUES(?,?,?,?,?,?,?,?,?,?)",
	[Q_DEL_FILTER] = "DELETE FROM filters WHERE slice = ? AND position = ?",
	[Q_FILTERS_BY_ENDPOINT] = "SELECT position FROM filters WHERE slice = ? AND endpoint = ?"
				  " ORDER BY position",
	[Q_FILTERS_BY_QUEUE] = "SELECT position FROM filters WHERE slice = ? AND queue = ?"
			       " ORDER BY position",
	[Q_FILTERS] = "SELECT position, key, mask, endpoint, queue, nh_ip, nh_port, data, nh_ip6"
		      " FROM filters WHERE slice = ? ORDER BY position",
	[Q_GET_PAGE] = "SELECT data FROM memory WHERE slice = ? AND page = ?",
	[Q_PUT_PAGE] = "INSERT OR REPLACE INTO memory VALUES(?,?,?)",
	[Q_PAGES] = "SELECT page, data FROM memory WHERE slice = ? ORDER BY page",
	[Q_PUT_CODEOPT_DATA] = "INSERT OR REPLACE INTO codeopt_data VALUES(?,?)",
	[Q_GET_CODEOPT_DATA] = "SELECT data FROM codeopt_data WHERE slice = ?",
	[Q_LOAD_SLICES] = "SELECT id, name, owner, codeopt, npe, memory, filter_quota, queue_quota,"
			  " buffer_quota, bandwidth, inbound FROM slices",
	[Q_LOAD_ENDPOINTS] = "SELECT slice, idx, port, udp_port, bandwidth, inbound, tcp,"
			     " holder_pid, holder_start FROM endpoints",
	[Q_LOAD_QUEUES] = "SELECT slice, qid, endpoint, threshold, threshold_packets, share"
			  " FROM queues",
	[Q_LOAD_SCHEDS] = "SELECT npe, port, rate, overhead FROM schedulers ORDER BY npe, port",
	[Q_PUT_HOST] = "INSERT OR REPLACE INTO host_slices VALUES(?,?,?,?,?)",
	[Q_LOAD_HOSTS] = "SELECT slice, netns, nat_ports, netns_made, nat_first FROM host_slices",
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *stmt[Q_MAX];
	char error[512];
};

static int
fail(struct store *st, const char *what)
{
	/* what may be a whole statement: its start is enough to tell which. */
	snprintf(st->error, sizeof(st->error), "%.200s: %.300s", what, sqlite3_errmsg(st->db));
	return -1;
}

/* Statement q, reset, with its first n integer parameters bound from v. */
static sqlite3_stmt *
query(struct store *st, enum query q, unsigned int n, const int64_t *v)
{
	sqlite3_stmt *s = st->stmt[q];

	if (s == NULL && sqlite3_prepare_v3(st->db, SQL[q], -1, SQLITE_PREPARE_PERSISTENT,
					    &st->stmt[q], NULL) != SQLITE_OK) {
		fail(st, SQL[q]);
		return NULL;
	}
	s = st->stmt[q];
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	for (unsigned int i = 0; i < n; i++)
		sqlite3_bind_int64(s, (int)i + 1, v[i]);
	return s;
}

/* Run a statement that returns no rows. */
static int
run(struct store *st, sqlite3_stmt *s, const char *what)
{
	if (s == NULL)
		return -1;
	if (sqlite3_step(s) != SQLITE_DONE) {
		int rc = fail(st, what);

		sqlite3_reset(s);
		return rc;
	}
	sqlite3_reset(s);
	return 0;
}

#define ARGS(...) (const int64_t[]){__VA_ARGS__}
#define NARGS(...) (sizeof(ARGS(__VA_ARGS__)) / sizeof(int64_t))
#define QUERY(st, q, ...) query(st, q, NARGS(__VA_ARGS__), ARGS(__VA_ARGS__))

static int
exec(struct store *st, const char *sql)
{
	return sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : fail(st, sql);
}

/* One step from version to version + 1: the changes and the new version, in one transaction. */
static int
migrate(struct store *st, const char *changes, int to)
{
	char sql[1024];

	snprintf(sql, sizeof(sql), "BEGIN IMMEDIATE;%sUPDATE meta SET value = %d WHERE key = "
		 "'schema';COMMIT;", changes, to);
	if (exec(st, sql) == 0)
		return 0;
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL); /* st->error keeps why */
	return -1;
}

/* A database of version (1 to SCHEMA_VERSION - 1) brought to SCHEMA_VERSION, step by step. */
static int
migrate_from(struct store *st, int version)
{
	char inbound[512];
	const char *steps[SCHEMA_VERSION] = {
		/* 1 had no inbound quota: a slice gets the default, or what its endpoints hold
		 * inbound if that is more, so nothing stored breaks it. */
		[1] = inbound,
		/* 2 had no TCP endpoints (host_slices is made with the schema). */
		[2] = "ALTER TABLE endpoints ADD COLUMN tcp INTEGER NOT NULL DEFAULT 0;",
		/* 3 had no endpoints held by a process (the socket shim's). */
		[3] = "ALTER TABLE endpoints ADD COLUMN holder_pid INTEGER NOT NULL DEFAULT 0;"
		      "ALTER TABLE endpoints ADD COLUMN holder_start INTEGER NOT NULL DEFAULT 0;",
		/* 4 did not keep a host slice's NAT range, only its size: learnt at replay. */
		[4] = "ALTER TABLE host_slices ADD COLUMN nat_first INTEGER NOT NULL DEFAULT 0;",
		/* 5 had IPv4 next hops only: NULL is one (nh_ip's). */
		[5] = "ALTER TABLE filters ADD COLUMN nh_ip6 BLOB;",
	};

	snprintf(inbound, sizeof(inbound), "ALTER TABLE slices ADD COLUMN inbound INTEGER NOT "
		 "NULL DEFAULT %" PRIu64 ";UPDATE slices SET inbound = MAX(inbound, (SELECT "
		 "COALESCE(SUM(inbound), 0) FROM endpoints WHERE endpoints.slice = slices.id));",
		 SP_DEFAULT_SLICE_BANDWIDTH);
	for (int v = version; v < SCHEMA_VERSION; v++)
		if (migrate(st, steps[v], v + 1) < 0)
			return -1;
	return 0;
}

/* The schema, made or checked. */
static int
set_up(struct store *st, bool sync_full)
{
	sqlite3_stmt *s;
	int version = 0;
	char sql[80];

	if (exec(st, "PRAGMA journal_mode=WAL") < 0 ||
	    exec(st, sync_full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL") < 0 ||
	    exec(st, "PRAGMA foreign_keys=ON") < 0 || exec(st, SCHEMA) < 0)
		return -1;
	if (sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key = 'schema'", -1, &s,
			       NULL) != SQLITE_OK)
		return fail(st, "reading the schema version");
	if (sqlite3_step(s) == SQLITE_ROW)
		version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	if (version == 0) {
		snprintf(sql, sizeof(sql), "INSERT INTO meta VALUES('schema', %d)", SCHEMA_VERSION);
		return exec(st, sql);
	}
	if (version >= 1 && version < SCHEMA_VERSION)
		return migrate_from(st, version);
	if (version != SCHEMA_VERSION) {
		snprintf(st->error, sizeof(st->error), "the database has schema version %d; this "
			 "slicectld reads version %d", version, SCHEMA_VERSION);
		return -1;
	}
	return 0;
}

/* The database's directory, private to the daemon. */
static int
make_dir(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == NULL || slash == dir)
		return 0;
	*slash = '\0';
	return sp_mkdirs(dir, 0750);
}

int
store_open(struct store **out, const char *path, bool sync_full, char *err, size_t errlen)
{
	struct store *st = calloc(1, sizeof(*st));
	int rc = make_dir(path);

	*out = NULL;
	if (st == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (rc < 0) {
		snprintf(err, errlen, "cannot create the directory of the database %s: %s", path,
			 strerror(-rc));
		free(st);
		return -1;
	}
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "cannot open the database %s: %s", path,
			 st->db != NULL ? sqlite3_errmsg(st->db) : "out of memory");
		store_close(st);
		return -1;
	}
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	if (set_up(st, sync_full) < 0) {
		snprintf(err, errlen, "the database %s: %s", path, st->error);
		store_close(st);
		return -1;
	}
	*out = st;
	return 0;
}

void
store_close(struct store *st)
{
	if (st == NULL)
		return;
	for (unsigned int q = 0; q < Q_MAX; q++)
		sqlite3_finalize(st->stmt[q]);
	sqlite3_close(st->db);
	free(st);
}

const char *
store_error(const struct store *st)
{
	return st->error;
}

int
store_begin(struct store *st)
{
	return run(st, query(st, Q_BEGIN, 0, NULL), "beginning a transaction");
}

int
store_commit(struct store *st)
{
	return run(st, query(st, Q_COMMIT, 0, NULL), "committing");
}

void
store_rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		run(st, query(st, Q_ROLLBACK, 0, NULL), "rolling back");
}

static int
column_text(sqlite3_stmt *s, int col, char *dst, size_t len)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	snprintf(dst, len, "%s", t != NULL ? (const char *)t : "");
	return 0;
}

static int
load_slices(struct store *st, struct model *m)
{
	sqlite3_stmt *s = query(st, Q_LOAD_SLICES, 0, NULL);
	int rc = SQLITE_ERROR;

	while (s != NULL && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		struct ctld_slice *sl;

		if (id <= 0 || id >= SP_MAX_SLICES)
			continue;
		sl = &m->slices[id];
		sl->used = true;
		sl->id = (uint16_t)id;
		column_text(s, 1, sl->name, sizeof(sl->name));
		sl->owner = (uint32_t)sqlite3_column_int64(s, 2);
		column_text(s, 3, sl->codeopt, sizeof(sl->codeopt));
		sl->npe = (uint16_t)sqlite3_column_int64(s, 4);
		sl->memory = (uint32_t)sqlite3_column_int64(s, 5);
		sl->filter_quota = (uint32_t)sqlite3_column_int64(s, 6);
		sl->queue_quota = (uint16_t)sqlite3_column_int64(s, 7);
		sl->buffer_quota = (uint32_t)sqlite3_column_int64(s, 8);
		sl->bandwidth = (uint64_t)sqlite3_column_int64(s, 9);
		sl->inbound = (uint64_t)sqlite3_column_int64(s, 10);
	}
	return s == NULL || rc != SQLITE_DONE ? fail(st, "loading the slices") : 0;
}

static int
load_endpoints_and_queues(struct store *st, struct model *m)
{
	sqlite3_stmt *s = query(st, Q_LOAD_ENDPOINTS, 0, NULL);
	int rc = SQLITE_ERROR;

	while (s != NULL && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0), idx = sqlite3_column_int64(s, 1);
		struct ctld_endpoint *e;

		if (id <= 0 || id >= SP_MAX_SLICES || idx < 0 || idx >= SP_MAX_SLICE_ENDPOINTS)
			continue;
		e = &m->slices[id].ep[idx];
		e->used = true;
		column_text(s, 2, e->port, sizeof(e->port));
		e->l4_port = (uint16_t)sqlite3_column_int64(s, 3);
		e->bandwidth = (uint64_t)sqlite3_column_int64(s, 4);
		e->inbound = (uint64_t)sqlite3_column_int64(s, 5);
		e->tcp = sqlite3_column_int64(s, 6) != 0;
		e->holder = (pid_t)sqlite3_column_int64(s, 7);
		e->holder_start = (uint64_t)sqlite3_column_int64(s, 8);
	}
	if (s == NULL || rc != SQLITE_DONE)
		return fail(st, "loading the endpoints");
	s = query(st, Q_LOAD_QUEUES, 0, NULL);
	while (s != NULL && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0), qid = sqlite3_column_int64(s, 1);
		struct ctld_queue *q;

		if (id <= 0 || id >= SP_MAX_SLICES || qid < 0 || qid >= SP_MAX_SLICE_QUEUES)
			continue;
		q = &m->slices[id].q[qid];
		q->bound = true;
		q->endpoint = (uint16_t)sqlite3_column_int64(s, 2);
		q->threshold = (uint32_t)sqlite3_column_int64(s, 3);
		q->threshold_packets = (uint32_t)sqlite3_column_int64(s, 4);
		q->share = (uint64_t)sqlite3_column_int64(s, 5);
	}
	return s == NULL || rc != SQLITE_DONE ? fail(st, "loading the queues") : 0;
}

static int
load_scheds(struct store *st, struct model *m)
{
	sqlite3_stmt *s = query(st, Q_LOAD_SCHEDS, 0, NULL);
	int rc = SQLITE_ERROR;

	while (s != NULL && (rc = sqlite3_step(s)) == SQLITE_ROW && m->nb_scheds < SP_MAX_SCHEDS) {
		struct ctld_sched *c = &m->scheds[m->nb_scheds++];

		c->npe = (uint16_t)sqlite3_column_int64(s, 0);
		column_text(s, 1, c->port, sizeof(c->port));
		c->rate = (uint64_t)sqlite3_column_int64(s, 2);
		c->overhead = (uint16_t)sqlite3_column_int64(s, 3);
	}
	return s == NULL || (rc != SQLITE_DONE && rc != SQLITE_ROW) ? fail(st, "loading the "
									 "schedulers") : 0;
}

static int
load_hosts(struct store *st, struct model *m)
{
	sqlite3_stmt *s = query(st, Q_LOAD_HOSTS, 0, NULL);
	int rc = SQLITE_ERROR;

	while (s != NULL && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(s, 0);
		struct ctld_slice *sl;

		if (id <= 0 || id >= SP_MAX_SLICES)
			continue;
		sl = &m->slices[id];
		column_text(s, 1, sl->netns, sizeof(sl->netns));
		sl->nat_ports = (uint16_t)sqlite3_column_int64(s, 2);
		sl->netns_made = sqlite3_column_int64(s, 3) != 0;
		sl->nat_first = (uint16_t)sqlite3_column_int64(s, 4);
	}
	return s == NULL || rc != SQLITE_DONE ? fail(st, "loading the host slices") : 0;
}

int
store_load(struct store *st, struct model *m)
{
	memset(m, 0, sizeof(*m));
	if (load_slices(st, m) < 0 || load_endpoints_and_queues(st, m) < 0 ||
	    load_scheds(st, m) < 0 || load_hosts(st, m) < 0)
		return -1;
	return 0;
}

int
store_put_slice(struct store *st, const struct ctld_slice *s)
{
	sqlite3_stmt *q = QUERY(st, Q_PUT_SLICE, s->id, 0, s->owner, 0, s->npe, s->memory,
				s->filter_quota, s->queue_quota, s->buffer_quota,
				(int64_t)s->bandwidth, (int64_t)s->inbound);

	if (q == NULL)
		return -1;
	sqlite3_bind_text(q, 2, s->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, s->codeopt, -1, SQLITE_STATIC);
	if (run(st, q, "storing a slice") < 0)
		return -1;
	if (s->netns[0] == '\0')
		return 0;
	q = QUERY(st, Q_PUT_HOST, s->id, 0, s->nat_ports, s->netns_made, s->nat_first);
	if (q == NULL)
		return -1;
	sqlite3_bind_text(q, 2, s->netns, -1, SQLITE_STATIC);
	return run(st, q, "storing a host slice");
}

int
store_del_slice(struct store *st, uint16_t id)
{
	return run(st, QUERY(st, Q_DEL_SLICE, id), "deleting a slice");
}

int
store_put_endpoint(struct store *st, uint16_t slice, uint16_t index, const struct ctld_endpoint *e)
{
	sqlite3_stmt *q = QUERY(st, Q_PUT_ENDPOINT, slice, index, 0, e->l4_port,
				(int64_t)e->bandwidth, (int64_t)e->inbound, e->tcp, e->holder,
				(int64_t)e->holder_start);

	if (q == NULL)
		return -1;
	sqlite3_bind_text(q, 3, e->port, -1, SQLITE_STATIC);
	return run(st, q, "storing an endpoint");
}

int
store_del_endpoint(struct store *st, uint16_t slice, uint16_t index)
{
	return run(st, QUERY(st, Q_DEL_ENDPOINT, slice, index), "deleting an endpoint");
}

int
store_put_queue(struct store *st, uint16_t slice, uint16_t id, const struct ctld_queue *q)
{
	return run(st, QUERY(st, Q_PUT_QUEUE, slice, id, q->endpoint, q->threshold,
			     q->threshold_packets, (int64_t)q->share), "storing a queue");
}

int
store_del_queue(struct store *st, uint16_t slice, uint16_t id)
{
	return run(st, QUERY(st, Q_DEL_QUEUE, slice, id), "deleting a queue");
}

int
store_put_sched(struct store *st, const struct ctld_sched *s)
{
	sqlite3_stmt *q = QUERY(st, Q_PUT_SCHED, s->npe, 0, (int64_t)s->rate, s->overhead);

	if (q == NULL)
		return -1;
	sqlite3_bind_text(q, 2, s->port, -1, SQLITE_STATIC);
	return run(st, q, "storing a scheduler");
}

int
store_put_filter(struct store *st, uint16_t slice, const struct sp_ctl_filter *f)
{
	sqlite3_stmt *q = QUERY(st, Q_PUT_FILTER, slice, f->position, 0, 0, f->result.endpoint,
				f->result.queue, f->result.nh_ip, f->result.nh_port);

	if (q == NULL)
		return -1;
	sqlite3_bind_blob(q, 3, f->key.b, SP_KEY_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(q, 4, f->mask.b, SP_KEY_BYTES, SQLITE_STATIC);
	sqlite3_bind_blob(q, 9, f->result.data, SP_RESULT_DATA_BYTES, SQLITE_STATIC);
	/* An IPv4 next hop has none: NULL, as the rows of schema 5 have. */
	if (f->result.nh_family == SP_NH_IPV6)
		sqlite3_bind_blob(q, 10, f->result.nh_ip6, sizeof(f->result.nh_ip6), SQLITE_STATIC);
	return run(st, q, "storing a filter");
}

int
store_del_filter(struct store *st, uint16_t slice, uint32_t position)
{
	return run(st, QUERY(st, Q_DEL_FILTER, slice, position), "deleting a filter");
}

int
store_filters_naming(struct store *st, uint16_t slice, bool queue, uint16_t value, char *list,
		     size_t len)
{
	sqlite3_stmt *s = QUERY(st, queue ? Q_FILTERS_BY_QUEUE : Q_FILTERS_BY_ENDPOINT, slice,
				value);
	int n = 0, rc = SQLITE_ERROR;

	list[0] = '\0';
	while (s != NULL && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		size_t used = strlen(list);

		/* As many as fit, then "...". */
		if (used + 32 < len)
			snprintf(list + used, len - used, "%s%lld", n > 0 ? ", " : "",
				 (long long)sqlite3_column_int64(s, 0));
		else if (strstr(list, "...") == NULL)
			snprintf(list + used, len - used, ", ...");
		n++;
	}
	return s == NULL || rc != SQLITE_DONE ? fail(st, "finding filters") : n;
}

/* Copy a blob column of exactly len bytes; false if it is not one. */
static bool
blob(sqlite3_stmt *s, int col, uint8_t *dst, int len)
{
	if (sqlite3_column_bytes(s, col) != len)
		return false;
	memcpy(dst, sqlite3_column_blob(s, col), (size_t)len);
	return true;
}

int
store_each_filter(struct store *st, uint16_t slice,
		  int (*fn)(void *arg, const struct sp_ctl_filter *f), void *arg)
{
	sqlite3_stmt *s = QUERY(st, Q_FILTERS, slice);
	int rc = SQLITE_ERROR, stop = 0;

	while (stop == 0 && s != NULL && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct sp_ctl_filter f = {.position = (uint32_t)sqlite3_column_int64(s, 0)};

		bool ip6 = sqlite3_column_type(s, 8) != SQLITE_NULL;

		if (!blob(s, 1, f.key.b, SP_KEY_BYTES) || !blob(s, 2, f.mask.b, SP_KEY_BYTES) ||
		    !blob(s, 7, f.result.data, SP_RESULT_DATA_BYTES) ||
		    (ip6 && !blob(s, 8, f.result.nh_ip6, sizeof(f.result.nh_ip6)))) {
			snprintf(st->error, sizeof(st->error), "filter %u of slice %u is damaged",
				 f.position, slice);
			sqlite3_reset(s);
			return -1;
		}
		f.result.endpoint = (uint16_t)sqlite3_column_int64(s, 3);
		f.result.queue = (uint16_t)sqlite3_column_int64(s, 4);
		f.result.nh_ip = (uint32_t)sqlite3_column_int64(s, 5);
		f.result.nh_port = (uint16_t)sqlite3_column_int64(s, 6);
		f.result.nh_family = ip6 ? SP_NH_IPV6 : SP_NH_IPV4;
		stop = fn(arg, &f);
	}
	if (s != NULL)
		sqlite3_reset(s);
	if (stop != 0)
		return stop;
	return s == NULL || rc != SQLITE_DONE ? fail(st, "reading the filters") : 0;
}

int
store_mem_write(struct store *st, uint16_t slice, uint32_t offset, const uint8_t *data, size_t len)
{
	while (len > 0) {
		uint32_t page = offset / STORE_PAGE, at = offset % STORE_PAGE;
		size_t n = len < STORE_PAGE - at ? len : STORE_PAGE - at;
		uint8_t buf[STORE_PAGE] = {0};
		sqlite3_stmt *s = QUERY(st, Q_GET_PAGE, slice, page);

		if (s == NULL)
			return -1;
		/* A page partly written keeps the rest of what it held. */
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_bytes(s, 0) == STORE_PAGE)
			memcpy(buf, sqlite3_column_blob(s, 0), STORE_PAGE);
		sqlite3_reset(s);
		memcpy(buf + at, data, n);
		s = QUERY(st, Q_PUT_PAGE, slice, page);
		if (s == NULL)
			return -1;
		sqlite3_bind_blob(s, 3, buf, STORE_PAGE, SQLITE_TRANSIENT);
		if (run(st, s, "storing slice memory") < 0)
			return -1;
		offset += (uint32_t)n;
		data += n;
		len -= n;
	}
	return 0;
}

int
store_each_mem_page(struct store *st, uint16_t slice,
		    int (*fn)(void *arg, uint32_t offset, const uint8_t *page, size_t len), void *arg)
{
	sqlite3_stmt *s = QUERY(st, Q_PAGES, slice);
	int rc = SQLITE_ERROR, stop = 0;

	while (stop == 0 && s != NULL && (rc = sqlite3_step(s)) == SQLITE_ROW)
		stop = fn(arg, (uint32_t)sqlite3_column_int64(s, 0) * STORE_PAGE,
			  sqlite3_column_blob(s, 1), (size_t)sqlite3_column_bytes(s, 1));
	if (s != NULL)
		sqlite3_reset(s);
	if (stop != 0)
		return stop;
	return s == NULL || rc != SQLITE_DONE ? fail(st, "reading slice memory") : 0;
}

int
store_codeopt_data_put(struct store *st, uint16_t slice, const uint8_t *data, size_t len)
{
	sqlite3_stmt *s = QUERY(st, Q_PUT_CODEOPT_DATA, slice);

	if (s == NULL)
		return -1;
	sqlite3_bind_blob(s, 2, data, (int)len, SQLITE_TRANSIENT);
	return run(st, s, "storing the code option's data");
}

int
store_codeopt_data_get(struct store *st, uint16_t slice, uint8_t **data, size_t *len)
{
	sqlite3_stmt *s = QUERY(st, Q_GET_CODEOPT_DATA, slice);
	int rc;

	*data = NULL;
	*len = 0;
	if (s == NULL)
		return -1;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*len = (size_t)sqlite3_column_bytes(s, 0);
		*data = malloc(*len > 0 ? *len : 1);
		if (*data != NULL)
			memcpy(*data, sqlite3_column_blob(s, 0), *len);
	}
	sqlite3_reset(s);
	if (rc == SQLITE_ROW && *data == NULL)
		return fail(st, "out of memory for the code option's data");
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(st, "reading the code option's data");
}
