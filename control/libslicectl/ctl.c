/* SPDX-License-Identifier: BSD-3-Clause */
/* The connection: one JSON-RPC request line out, its answer line in. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_int.h"

#define DEFAULT_TIMEOUT_MS 120000
#define READ_CHUNK 65536

struct sp_ctl {
	int fd;            /* -1 after a failure of the socket: the connection is done */
	struct sockaddr_un addr; /* to connect again when slicectld closed an idle one */
	unsigned int timeout_ms;
	json_int_t next_id;
	char *in;          /* bytes read, not yet taken */
	size_t in_len, in_cap;
	int code;
	char error[600];
};

int
sp_ctl_fail(struct sp_ctl *c, int err, int code, const char *fmt, ...)
{
	va_list ap;

	c->code = code;
	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
	return -err;
}

/* The socket failed: nothing more can be read in step with the requests. */
static int
broken(struct sp_ctl *c, int err, const char *what)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	return sp_ctl_fail(c, err, 0, "%s: %s", what, strerror(err));
}

/* A new socket to c->addr with c's timeout, in c->fd; -errno. */
static int
dial(struct sp_ctl *c)
{
	int err;

	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd >= 0 && connect(c->fd, (struct sockaddr *)&c->addr, sizeof(c->addr)) == 0 &&
	    sp_ctl_set_timeout(c, c->timeout_ms) == 0)
		return 0;
	err = errno;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	return -err;
}

struct sp_ctl *
sp_ctl_open(const char *path)
{
	struct sp_ctl *c;
	int rc;

	if (path == NULL)
		path = getenv(SP_CTL_SOCKET_ENV);
	if (path == NULL || path[0] == '\0')
		path = SP_CTL_DEFAULT_SOCKET;
	if (strlen(path) >= sizeof(c->addr.sun_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->addr.sun_family = AF_UNIX;
	memcpy(c->addr.sun_path, path, strlen(path) + 1);
	c->timeout_ms = DEFAULT_TIMEOUT_MS;
	c->next_id = 1;
	rc = dial(c);
	if (rc < 0) {
		free(c);
		errno = -rc;
		return NULL;
	}
	return c;
}

void
sp_ctl_close(struct sp_ctl *c)
{
	if (c == NULL)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->in);
	free(c);
}

int
sp_ctl_set_timeout(struct sp_ctl *c, unsigned int ms)
{
	struct timeval tv = {.tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000};

	if (c->fd < 0)
		return -ENOTCONN;
	c->timeout_ms = ms;
	if (setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	return 0;
}

const char *
sp_ctl_error(const struct sp_ctl *c)
{
	return c->error;
}

int
sp_ctl_error_code(const struct sp_ctl *c)
{
	return c->code;
}

int
sp_ctl_fd(const struct sp_ctl *c)
{
	return c->fd;
}

/*
 * Send the whole request. A peer that closed (EPIPE, ECONNRESET) leaves the
 * socket open: what it said before it closed is still to be read.
 */
static int
send_all(struct sp_ctl *c, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return -errno;
		if (n < 0)
			return broken(c, errno == EAGAIN ? ETIMEDOUT : errno, "cannot send the request");
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The next line (its newline replaced by '\0'); *len its length. */
static int
read_line(struct sp_ctl *c, char **line, size_t *len)
{
	size_t scanned = 0;
	char *nl;

	/* Nothing buffered yet may mean no buffer yet (c->in NULL): no pointer arithmetic on it. */
	while ((nl = c->in_len > scanned ? memchr(c->in + scanned, '\n', c->in_len - scanned)
					 : NULL) == NULL) {
		ssize_t n;

		scanned = c->in_len;
		if (c->in_cap - c->in_len < READ_CHUNK) {
			char *grown = realloc(c->in, c->in_cap + READ_CHUNK);

			if (grown == NULL)
				return broken(c, ENOMEM, "cannot read the answer");
			c->in = grown;
			c->in_cap += READ_CHUNK;
		}
		n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return broken(c, errno == EAGAIN ? ETIMEDOUT : errno, "no answer");
		if (n == 0)
			return broken(c, ECONNRESET, "the server closed the connection");
		c->in_len += (size_t)n;
	}
	*nl = '\0';
	*line = c->in;
	*len = (size_t)(nl - c->in);
	return 0;
}

/* Drop the line read_line() gave. */
static void
take_line(struct sp_ctl *c, size_t len)
{
	memmove(c->in, c->in + len + 1, c->in_len - len - 1);
	c->in_len -= len + 1;
}

static int
errno_of(int code)
{
	switch (code) {
	case SP_RPC_NOT_FOUND: return ENOENT;
	case SP_RPC_QUOTA: return EDQUOT;
	case SP_RPC_NO_ROOM: return ENOSPC;
	case SP_RPC_BUSY: return EBUSY;
	case SP_RPC_TOO_LARGE: return E2BIG;
	case SP_RPC_DENIED: return EACCES;
	case SP_RPC_EXISTS: return EEXIST;
	case SP_RPC_UNAVAILABLE: return EAGAIN;
	case SP_RPC_INVALID_PARAMS: return EINVAL;
	default: return EPROTO;
	}
}

/* The answer to request id: its result, or the error it carries. */
static int
answer(struct sp_ctl *c, json_int_t id, const char *line, size_t len, json_t **result)
{
	json_t *r = json_loadb(line, len, 0, NULL), *res, *err;
	int rc = 0;

	if (r == NULL)
		return broken(c, EPROTO, "the answer is not JSON");
	res = json_object_get(r, "result");
	err = json_object_get(r, "error");
	if (json_is_object(err)) {
		int code = (int)json_integer_value(json_object_get(err, "code"));
		const char *msg = json_string_value(json_object_get(err, "message"));

		rc = sp_ctl_fail(c, errno_of(code), code, "%s", msg != NULL ? msg : "(no message)");
	} else if (json_integer_value(json_object_get(r, "id")) != id || res == NULL) {
		rc = broken(c, EPROTO, "an answer to another request");
	} else if (result != NULL) {
		*result = json_incref(res);
	}
	json_decref(r);
	return rc;
}

/* Whether line is slicectld's word that it closes this idle connection (SP_RPC_CLOSING). */
static bool
closing_notice(const char *line, size_t len)
{
	json_t *r = json_loadb(line, len, 0, NULL);
	json_t *err = json_object_get(r, "error");
	bool closing = json_is_null(json_object_get(r, "id")) &&
		       json_integer_value(json_object_get(err, "code")) == SP_RPC_CLOSING;

	json_decref(r);
	return closing;
}

/*
 * Send the request line (text, len bytes with its newline) and read the
 * answer's line, even if the server closed before it took the request: what
 * it said then is the answer. 1 when that was slicectld closing the
 * connection as idle (then the connection is gone and nothing was done).
 */
static int
exchange(struct sp_ctl *c, const char *text, size_t len, char **line, size_t *line_len)
{
	int sent = send_all(c, text, len), rc;

	if (c->fd < 0)
		return sent;
	rc = read_line(c, line, line_len);
	if (rc == 0 && closing_notice(*line, *line_len)) {
		close(c->fd);
		c->fd = -1;
		c->in_len = 0;
		return 1;
	}
	/* Else a line the server sent before it closed (a refusal: no room) is its answer. */
	return rc;
}

int
sp_ctl_call_json(struct sp_ctl *c, const char *method, json_t *params, json_t **result)
{
	json_int_t id = c->next_id++;
	json_t *req;
	char *text, *line = NULL;
	size_t len = 0, line_len = 0;
	int rc;

	if (result != NULL)
		*result = NULL;
	if (c->fd < 0) {
		json_decref(params);
		return sp_ctl_fail(c, ENOTCONN, 0, "the connection failed earlier: %s", c->error);
	}
	req = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", id, "method", method);
	if (params != NULL)
		json_object_set_new(req, "params", params);
	text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (text == NULL)
		return sp_ctl_fail(c, ENOMEM, 0, "out of memory for the request");
	len = strlen(text);
	text[len] = '\n'; /* json_dumps' terminating NUL becomes the line's end */
	rc = exchange(c, text, len + 1, &line, &line_len);
	/* Closed as idle, the request untaken: once more on a new connection. */
	if (rc == 1) {
		rc = dial(c);
		rc = rc < 0 ? broken(c, -rc, "cannot connect again after slicectld closed the idle "
				     "connection") : exchange(c, text, len + 1, &line, &line_len);
		if (rc == 1)
			rc = broken(c, ECONNRESET, "slicectld closed the new connection at once");
	}
	free(text);
	if (rc < 0)
		return rc;
	rc = answer(c, id, line, line_len, result);
	if (c->fd >= 0)
		take_line(c, line_len);
	return rc;
}

int
sp_ctl_call(struct sp_ctl *c, const char *method, const char *params, char **result)
{
	json_t *p = NULL, *r = NULL;
	json_error_t je;
	int rc;

	if (result != NULL)
		*result = NULL;
	if (params != NULL) {
		p = json_loads(params, 0, &je);
		if (!json_is_object(p)) {
			json_decref(p);
			return sp_ctl_fail(c, EINVAL, SP_RPC_INVALID_PARAMS, "the parameters must be "
					   "a JSON object: %s", p == NULL ? je.text : "not an object");
		}
	}
	rc = sp_ctl_call_json(c, method, p, result != NULL ? &r : NULL);
	if (rc == 0 && result != NULL) {
		*result = json_dumps(r, JSON_COMPACT | JSON_ENCODE_ANY);
		json_decref(r);
		if (*result == NULL)
			return sp_ctl_fail(c, ENOMEM, 0, "out of memory for the result");
	}
	return rc;
}
