/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The management socket: a Unix stream socket only root (or the daemon's
 * own user) may use, one JSON-RPC request per line. Served by poll() from
 * the management thread, without blocking: a client that sends half a line
 * and waits, or does not read its answers, holds only its own buffers.
 */
#include "rpc_server.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_common.h>

#include "../common/unixsock.h"
#include "rpc.h"

#define READ_CHUNK 65536
#define MAX_LINES_PER_POLL 64     /* then the other clients get their turn */
#define MAX_PENDING_OUT (64u << 20) /* answers a client leaves unread before it is dropped */

struct client {
	int fd;
	char *in;
	size_t in_len, in_cap;
	bool skipping; /* the rest of a line too long to take */
	char *out;
	size_t out_len, out_off;
	struct sp_rpc_pending pending; /* an answer waiting for a compile; the next lines too */
};

struct sp_rpc_server {
	int fd;
	char path[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
	unsigned int nb_clients;
	struct client clients[SP_RPC_MAX_CLIENTS];
};

static void
drop(struct sp_rpc_server *srv, unsigned int i)
{
	struct client *c = &srv->clients[i];

	close(c->fd);
	free(c->in);
	free(c->out);
	sp_rpc_pending_free(&c->pending);
	*c = srv->clients[--srv->nb_clients];
}

/* Queue a response line; false if the client has left too much unread. */
static bool
queue_out(struct client *c, char *text)
{
	size_t len = strlen(text);

	if (c->out_len - c->out_off + len + 1 > MAX_PENDING_OUT) {
		free(text);
		return false;
	}
	if (c->out_off > 0) {
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	char *grown = realloc(c->out, c->out_len + len + 1);

	if (grown == NULL) {
		free(text);
		return false;
	}
	c->out = grown;
	memcpy(c->out + c->out_len, text, len);
	c->out[c->out_len + len] = '\n';
	c->out_len += len + 1;
	free(text);
	return true;
}

/* Write what the socket takes; false if the client is gone. */
static bool
flush(struct client *c)
{
	while (c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->out_off += (size_t)n;
	}
	c->out_off = c->out_len = 0;
	return true;
}

/*
 * Answer the complete lines in c->in, at most MAX_LINES_PER_POLL, in order:
 * a pending answer first, once it may go, and none after it until then.
 * False to drop the client.
 */
static bool
handle_lines(struct sp_node *node, struct client *c)
{
	size_t start = 0;
	unsigned int lines = 0;
	char *nl, *answer;

	if (c->pending.table != NULL) {
		if (!sp_rpc_pending_ready(&c->pending, &answer))
			return true;
		if (answer != NULL && !queue_out(c, answer))
			return false;
	}
	if (c->in_len == 0)
		return true; /* nothing read: c->in may be NULL, no pointer for memchr */
	while (lines < MAX_LINES_PER_POLL && c->pending.table == NULL &&
	       (nl = memchr(c->in + start, '\n', c->in_len - start)) != NULL) {
		size_t len = (size_t)(nl - (c->in + start));

		answer = NULL;
		if (c->skipping)
			c->skipping = false; /* the end of the line answered as too large */
		else
			answer = sp_rpc_handle(node, c->in + start, len, &c->pending);
		start += len + 1;
		lines++;
		if (c->pending.table != NULL)
			c->pending.answer = answer;
		else if (answer != NULL && !queue_out(c, answer))
			return false;
	}
	memmove(c->in, c->in + start, c->in_len - start);
	c->in_len -= start;
	if (c->in_len > SP_RPC_MAX_LINE && !c->skipping && memchr(c->in, '\n', c->in_len) == NULL) {
		c->skipping = true;
		c->in_len = 0;
		return queue_out(c, sp_rpc_error_line(SP_RPC_TOO_LARGE, "the request line is longer "
						      "than %u bytes; split it (filter.insert takes "
						      "filters in batches)", SP_RPC_MAX_LINE));
	}
	if (c->skipping)
		c->in_len = 0; /* no newline yet: keep skipping */
	return true;
}

/* Read what is there; false to drop the client (gone, or out of memory). */
static bool
receive(struct client *c)
{
	for (;;) {
		ssize_t n;

		if (c->in_cap - c->in_len < READ_CHUNK) {
			char *grown = realloc(c->in, c->in_cap + READ_CHUNK);

			if (grown == NULL)
				return false;
			c->in = grown;
			c->in_cap += READ_CHUNK;
		}
		n = recv(c->fd, c->in + c->in_len, READ_CHUNK, 0);
		if (n == 0)
			return false;
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->in_len += (size_t)n;
		if (c->in_len > SP_RPC_MAX_LINE)
			return true; /* answered as too large before more is read */
	}
}

/* Root, or whoever runs the daemon: nobody else may change the node. */
static bool
allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return false;
	return cred.uid == 0 || cred.uid == geteuid();
}

/* One error line to a client that is not taken, then close: it may read it or not. */
static void
refuse(int fd, int code, const char *message)
{
	char *line = sp_rpc_error_line(code, "%s", message);

	if (line != NULL) {
		struct iovec iov[2] = {{line, strlen(line)}, {(void *)"\n", 1}};
		struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};

		if (sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			(void)0; /* it is being closed anyway */
		free(line);
	}
	close(fd);
}

static void
accept_all(struct sp_rpc_server *srv)
{
	int fd;

	while ((fd = accept4(srv->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		if (!allowed(fd)) {
			refuse(fd, SP_RPC_DENIED, "the management socket is root's; use slicectl");
			continue;
		}
		if (srv->nb_clients == SP_RPC_MAX_CLIENTS) {
			refuse(fd, SP_RPC_NO_ROOM, "too many management connections; retry later");
			continue;
		}
		srv->clients[srv->nb_clients++] = (struct client){.fd = fd};
	}
}

unsigned int
sp_rpc_server_pollfds(const struct sp_rpc_server *srv, struct pollfd *fds)
{
	fds[0] = (struct pollfd){.fd = srv->fd, .events = POLLIN};
	for (unsigned int i = 0; i < srv->nb_clients; i++) {
		const struct client *c = &srv->clients[i];

		fds[i + 1] = (struct pollfd){.fd = c->fd, .events = POLLIN};
		if (c->out_len > c->out_off)
			fds[i + 1].events |= POLLOUT;
	}
	return srv->nb_clients + 1;
}

void
sp_rpc_server_serve(struct sp_rpc_server *srv, struct sp_node *node, const struct pollfd *fds,
		    unsigned int n)
{
	/* Every client polled, read or not: lines left from the last turn are answered too.
	 * Backwards: dropping client i moves the last one into its slot. */
	for (unsigned int i = n - 1; i-- > 0;) {
		struct client *c = &srv->clients[i];
		bool ok = true;

		if (fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR))
			ok = receive(c) || c->in_len > 0;
		if (ok)
			ok = handle_lines(node, c) && flush(c);
		if (!ok || ((fds[i + 1].revents & POLLHUP) && c->in_len == 0 &&
			    c->out_len == c->out_off))
			drop(srv, i);
	}
	if (fds[0].revents & POLLIN)
		accept_all(srv);
}

struct sp_rpc_server *
sp_rpc_server_open(const char *path, char *err, size_t errlen)
{
	const char *unhandled = sp_rpc_unhandled();
	struct sp_rpc_server *srv;

	if (unhandled != NULL) { /* a build without one of the list's rpc_*.c */
		snprintf(err, errlen, "the management socket has no handler for %s", unhandled);
		return NULL;
	}
	srv = calloc(1, sizeof(*srv));
	if (srv == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* Root's: the file mode keeps others out, SO_PEERCRED checks again. */
	srv->fd = sp_unix_listen(path, 0600, "\"mgmt_socket\"", err, errlen);
	if (srv->fd < 0) {
		free(srv);
		return NULL;
	}
	snprintf(srv->path, sizeof(srv->path), "%s", path);
	return srv;
}

void
sp_rpc_server_close(struct sp_rpc_server *srv)
{
	if (srv == NULL)
		return;
	while (srv->nb_clients > 0)
		drop(srv, srv->nb_clients - 1);
	close(srv->fd);
	unlink(srv->path);
	free(srv);
}
