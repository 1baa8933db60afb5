/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libslicectl against a server that closes idle connections as slicectld
 * does (an SP_RPC_CLOSING line, then close): the call made after is sent
 * again on a new connection and answered; a server that closes without the
 * notice is an error, never a second send.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include <slicepath/ctl.h>

#define CLOSING "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":1009,\"message\":\"idle\"}}\n"

/* The server's script: per connection, what it does. */
enum act { NOTICE_AND_CLOSE, CLOSE, ANSWER };

struct server {
	int fd;
	char path[108];
	enum act acts[4];
	unsigned int nb_acts;
	unsigned int requests; /* request lines read */
};

static void
answer_one(struct server *s, int fd)
{
	char buf[4096], reply[256];
	ssize_t n = 0, got;
	long id = -1;

	while (n < (ssize_t)sizeof(buf) - 1 && (got = read(fd, buf + n, sizeof(buf) - 1 - n)) > 0) {
		n += got;
		if (memchr(buf, '\n', (size_t)n) != NULL)
			break;
	}
	buf[n > 0 ? n : 0] = '\0';
	if (strstr(buf, "\"id\":") != NULL)
		id = strtol(strstr(buf, "\"id\":") + 5, NULL, 10);
	s->requests++;
	snprintf(reply, sizeof(reply), "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":{\"uid\":7}}\n",
		 id);
	if (write(fd, reply, strlen(reply)) < 0)
		return;
}

static void *
serve(void *arg)
{
	struct server *s = arg;

	for (unsigned int i = 0; i < s->nb_acts; i++) {
		int fd = accept(s->fd, NULL, NULL);

		if (fd < 0)
			break;
		if (s->acts[i] == NOTICE_AND_CLOSE && write(fd, CLOSING, strlen(CLOSING)) < 0)
			break;
		if (s->acts[i] == ANSWER)
			answer_one(s, fd);
		close(fd);
	}
	return NULL;
}

static void
server_start(struct server *s, pthread_t *t)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};

	snprintf(s->path, sizeof(s->path), "/tmp/sp-test-reconnect-%d.sock", getpid());
	unlink(s->path);
	memcpy(a.sun_path, s->path, strlen(s->path) + 1);
	s->fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(s->fd >= 0);
	assert_int_equal(bind(s->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(s->fd, 4), 0);
	assert_int_equal(pthread_create(t, NULL, serve, s), 0);
}

static void
server_stop(struct server *s, pthread_t t)
{
	pthread_join(t, NULL);
	close(s->fd);
	unlink(s->path);
}

/*
 * One whoami on a connection the server's script acts on, once the server
 * has had time to close it: the call's return, its result in *result (NULL:
 * not wanted) and its error message in err.
 */
static int
call_after_close(struct server *s, char **result, char *err, size_t errlen)
{
	struct sp_ctl *c;
	pthread_t t;
	int rc;

	server_start(s, &t);
	c = sp_ctl_open(s->path);
	assert_non_null(c);
	usleep(100000); /* the server acts on the connection meanwhile */
	rc = sp_ctl_call(c, SP_M_WHOAMI, NULL, result);
	snprintf(err, errlen, "%s (code %d)", sp_ctl_error(c), sp_ctl_error_code(c));
	sp_ctl_close(c);
	server_stop(s, t);
	return rc;
}

/* Closed as idle before the call: the call goes out again on a new connection. */
static void
test_idle_close_then_call(void **state)
{
	struct server s = {.acts = {NOTICE_AND_CLOSE, ANSWER}, .nb_acts = 2};
	char *result = NULL, err[700];

	(void)state;
	assert_int_equal(call_after_close(&s, &result, err, sizeof(err)), 0);
	assert_string_equal(result, "{\"uid\":7}");
	free(result);
	assert_int_equal(s.requests, 1);
}

/* Closed with no notice (the daemon died): an error, and the call is not sent twice. */
static void
test_close_without_notice_fails(void **state)
{
	struct server s = {.acts = {CLOSE, ANSWER}, .nb_acts = 1};
	char err[700];

	(void)state;
	assert_int_equal(call_after_close(&s, NULL, err, sizeof(err)), -ECONNRESET);
	assert_non_null(strstr(err, "the server closed the connection"));
	assert_non_null(strstr(err, "(code 0)"));
	assert_int_equal(s.requests, 0);
}

/* Twice in a row closed as idle: the second time is an error, not a loop. */
static void
test_closed_again_fails(void **state)
{
	struct server s = {.acts = {NOTICE_AND_CLOSE, NOTICE_AND_CLOSE}, .nb_acts = 2};
	char err[700];

	(void)state;
	assert_int_equal(call_after_close(&s, NULL, err, sizeof(err)), -ECONNRESET);
	assert_non_null(strstr(err, "closed the new connection"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_close_then_call),
		cmocka_unit_test(test_close_without_notice_fails),
		cmocka_unit_test(test_closed_again_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
