/* SPDX-License-Identifier: BSD-3-Clause */
#include "server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "common/unixsock.h"

#define MAX_PENDING_OUT (64u << 20) /* answers a client leaves unread before it is dropped */
#define MAX_GROUPS 256

struct client {
	LIST_ENTRY(client) link;
	struct server *srv;
	struct bufferevent *bev; /* NULL once gone (while a request of it is at the worker) */
	struct caller who;
	size_t scanned;  /* input bytes already known to hold no newline */
	bool busy;       /* a request of it is at the worker */
	bool skipping;   /* the rest of a line too long to take */
	bool eof;        /* it will send no more: answer what it sent, then close */
};

struct server {
	struct event_base *base;
	struct evconnlistener *listener;
	struct event *done_ev;
	struct worker *worker;
	struct server_limits limits;
	unsigned int nb_clients;
	bool has_gid;
	gid_t operator_gid;
	char path[SP_SOCKET_PATH_LEN];
	LIST_HEAD(, client) clients;
};

static void
client_free(struct client *c)
{
	if (c->bev != NULL)
		bufferevent_free(c->bev);
	LIST_REMOVE(c, link);
	c->srv->nb_clients--;
	free(c);
}

/* The peer is gone: free it now, or when its request comes back from the worker. */
static void
client_gone(struct client *c)
{
	if (!c->busy) {
		client_free(c);
		return;
	}
	bufferevent_free(c->bev);
	c->bev = NULL;
}

static void
send_line(struct client *c, const char *text)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);

	evbuffer_add(out, text, strlen(text));
	evbuffer_add(out, "\n", 1);
}

static void
send_error(struct client *c, int code, const char *message)
{
	char *line = sp_rpc_error_line(code, "%s", message);

	if (line != NULL)
		send_line(c, line);
	free(line);
}

/* Hand the next complete line to the worker, unless one is there already. */
static void
take_lines(struct client *c)
{
	while (c->bev != NULL && !c->busy) {
		struct evbuffer *in = bufferevent_get_input(c->bev);
		size_t avail = evbuffer_get_length(in);
		struct evbuffer_ptr from, nl;
		struct job *j;

		evbuffer_ptr_set(in, &from, c->scanned, EVBUFFER_PTR_SET);
		nl = evbuffer_search(in, "\n", 1, &from);
		if (nl.pos < 0) {
			c->scanned = avail;
			if (c->skipping || avail > SP_RPC_MAX_LINE) {
				if (!c->skipping)
					send_error(c, SP_RPC_TOO_LARGE, "the request line is longer "
						   "than 16 MiB; split it (filter.insert takes "
						   "filters in batches)");
				c->skipping = true;
				evbuffer_drain(in, avail);
				c->scanned = 0;
			}
			return;
		}
		c->scanned = 0;
		if (c->skipping || (size_t)nl.pos > SP_RPC_MAX_LINE) {
			if (!c->skipping)
				send_error(c, SP_RPC_TOO_LARGE, "the request line is longer than 16 "
					   "MiB; split it (filter.insert takes filters in batches)");
			c->skipping = false;
			evbuffer_drain(in, (size_t)nl.pos + 1);
			continue;
		}
		j = calloc(1, sizeof(*j));
		if (j == NULL || (j->line = malloc((size_t)nl.pos + 1)) == NULL) {
			free(j);
			client_gone(c);
			return;
		}
		evbuffer_remove(in, j->line, (size_t)nl.pos);
		evbuffer_drain(in, 1);
		j->len = (size_t)nl.pos;
		if (j->len > 0 && j->line[j->len - 1] == '\r')
			j->len--;
		j->client = c;
		j->who = c->who;
		c->busy = true;
		worker_submit(c->srv->worker, j);
	}
}

/* A client that said all it had to say and got every answer goes. */
static void
close_if_done(struct client *c)
{
	if (c->bev != NULL && c->eof && !c->busy &&
	    evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
		client_free(c);
}

static void
on_read(struct bufferevent *bev, void *arg)
{
	(void)bev;
	take_lines(arg);
}

static void
on_written(struct bufferevent *bev, void *arg)
{
	(void)bev;
	close_if_done(arg);
}

/*
 * No byte from the client for idle_s: unless a request of it is at the
 * worker or its answers are still going out, it is told why and closed
 * once that line is written. A client reads the line where it waits for its
 * next answer, so it knows the request it sent meanwhile was not taken
 * (libslicectl then connects again and sends it again).
 */
static void
idle(struct client *c)
{
	char why[160];

	if (c->busy || evbuffer_get_length(bufferevent_get_output(c->bev)) > 0) {
		bufferevent_enable(c->bev, EV_READ); /* the timeout stopped reading */
		return;
	}
	snprintf(why, sizeof(why), "slicectld closes connections with no request for %u s "
		 "(--idle-timeout); connect again", c->srv->limits.idle_s);
	send_error(c, SP_RPC_CLOSING, why);
	c->eof = true;
	close_if_done(c);
}

static void
on_event(struct bufferevent *bev, short what, void *arg)
{
	struct client *c = arg;

	(void)bev;
	if ((what & BEV_EVENT_TIMEOUT) && (what & BEV_EVENT_READING)) {
		idle(c);
	} else if (what & BEV_EVENT_ERROR) {
		client_gone(c);
	} else if (what & BEV_EVENT_EOF) {
		/* Half closed: what it sent is still answered (echo ... | socat works). */
		c->eof = true;
		take_lines(c);
		close_if_done(c);
	}
}

/* Who the peer is: root or a member of the operator group is an operator. */
static bool
identify(const struct server *srv, int fd, struct caller *who)
{
	struct ucred cred;
	gid_t groups[MAX_GROUPS];
	socklen_t len = sizeof(cred), glen = sizeof(groups);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return false;
	who->uid = cred.uid;
	who->pid = cred.pid;
	who->operator = cred.uid == 0 || (srv->has_gid && cred.gid == srv->operator_gid);
	if (srv->has_gid && !who->operator &&
	    getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &glen) == 0)
		for (size_t i = 0; i < glen / sizeof(gid_t); i++)
			who->operator = who->operator || groups[i] == srv->operator_gid;
	return true;
}

/* Connections uid holds now. */
static unsigned int
held_by(const struct server *srv, uid_t uid)
{
	const struct client *c;
	unsigned int n = 0;

	LIST_FOREACH(c, &srv->clients, link)
		n += c->bev != NULL && c->who.uid == uid;
	return n;
}

/*
 * Why who may not have another connection, or NULL: all slots taken, the
 * last operator_slots for operators only, per_user for any other uid.
 */
static const char *
no_room_for(const struct server *srv, const struct caller *who, char *buf, size_t len)
{
	const struct server_limits *l = &srv->limits;

	if (srv->nb_clients >= l->max_clients)
		return "slicectld serves as many connections as it takes; retry later";
	if (who->operator)
		return NULL;
	if (srv->nb_clients + l->operator_slots >= l->max_clients) {
		snprintf(buf, len, "slicectld serves %u connections and keeps the last %u for its "
			 "operators; retry later", srv->nb_clients, l->operator_slots);
		return buf;
	}
	if (held_by(srv, who->uid) >= l->per_user) {
		snprintf(buf, len, "uid %u holds %u connections to slicectld, as many as one user may "
			 "(--max-clients-per-user); close one first", (unsigned int)who->uid,
			 l->per_user);
		return buf;
	}
	return NULL;
}

/* One error line to a connection that is not taken, then close it. */
static void
refuse(int fd, int code, const char *message)
{
	char *line = sp_rpc_error_line(code, "%s", message);

	if (line != NULL) {
		size_t len = strlen(line);

		line[len] = '\n';
		if (send(fd, line, len + 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			(void)0; /* it is closed anyway */
		free(line);
	}
	close(fd);
}

static void
on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int salen, void *arg)
{
	struct server *srv = arg;
	struct timeval idle_tv = {.tv_sec = srv->limits.idle_s};
	const char *full;
	struct client *c;
	char why[200];

	(void)l;
	(void)sa;
	(void)salen;
	c = calloc(1, sizeof(*c));
	if (c == NULL || !identify(srv, fd, &c->who)) {
		free(c);
		refuse(fd, SP_RPC_DENIED, "slicectld cannot tell who you are (SO_PEERCRED)");
		return;
	}
	full = no_room_for(srv, &c->who, why, sizeof(why));
	if (full != NULL) {
		free(c);
		refuse(fd, SP_RPC_NO_ROOM, full);
		return;
	}
	c->srv = srv;
	c->bev = bufferevent_socket_new(srv->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		free(c);
		close(fd);
		return;
	}
	LIST_INSERT_HEAD(&srv->clients, c, link);
	srv->nb_clients++;
	bufferevent_setcb(c->bev, on_read, on_written, on_event, c);
	/* Reading stops once a line too long to take is buffered: it is then skipped. */
	bufferevent_setwatermark(c->bev, EV_READ, 0, SP_RPC_MAX_LINE + 65536);
	bufferevent_set_timeouts(c->bev, srv->limits.idle_s > 0 ? &idle_tv : NULL, NULL);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
}

/* A client's answer: send it and take its next line. */
static void
answered(struct job *j)
{
	struct client *c = j->client;

	c->busy = false;
	if (c->bev == NULL) {
		client_free(c);
		return;
	}
	if (j->reply != NULL)
		send_line(c, j->reply);
	if (evbuffer_get_length(bufferevent_get_output(c->bev)) > MAX_PENDING_OUT) {
		client_free(c); /* it does not read what it asked for */
	} else {
		take_lines(c);
		close_if_done(c);
	}
}

/* Answers from the worker: to their clients, or to whoever else asked (metrics). */
static void
on_jobs_done(evutil_socket_t fd, short what, void *arg)
{
	struct server *srv = arg;
	struct job *j;

	(void)fd;
	(void)what;
	while ((j = worker_take_done(srv->worker)) != NULL) {
		if (j->complete != NULL)
			j->complete(j);
		else
			answered(j);
		free(j->line);
		free(j->reply);
		free(j);
	}
}

void
server_jobs_done(void *arg)
{
	struct server *srv = arg;

	event_active(srv->done_ev, EV_READ, 0);
}

struct server *
server_open(struct event_base *base, const char *path, const struct server_limits *limits,
	    bool has_gid, gid_t operator_gid, char *err, size_t errlen)
{
	struct server *srv = calloc(1, sizeof(*srv));
	int fd;

	if (srv == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* Anyone may connect: SO_PEERCRED says who it is, each method what it may do. */
	fd = sp_unix_listen(path, 0666, "the socket (--socket)", err, errlen);
	if (fd < 0) {
		free(srv);
		return NULL;
	}
	srv->base = base;
	srv->limits = *limits;
	srv->has_gid = has_gid;
	srv->operator_gid = operator_gid;
	snprintf(srv->path, sizeof(srv->path), "%s", path);
	LIST_INIT(&srv->clients);
	srv->done_ev = event_new(base, -1, 0, on_jobs_done, srv);
	srv->listener = evconnlistener_new(base, on_accept, srv, LEV_OPT_CLOSE_ON_FREE, -1, fd);
	if (srv->done_ev == NULL || srv->listener == NULL) {
		snprintf(err, errlen, "out of memory for the event loop");
		if (srv->listener == NULL)
			close(fd);
		server_close(srv);
		return NULL;
	}
	return srv;
}

void
server_set_worker(struct server *srv, struct worker *w)
{
	srv->worker = w;
}

void
server_close(struct server *srv)
{
	if (srv == NULL)
		return;
	while (!LIST_EMPTY(&srv->clients))
		client_free(LIST_FIRST(&srv->clients));
	if (srv->listener != NULL) {
		evconnlistener_free(srv->listener);
		unlink(srv->path);
	}
	if (srv->done_ev != NULL)
		event_free(srv->done_ev);
	free(srv);
}
