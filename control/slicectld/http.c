/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>

#include "http.h"

/* Prometheus' text exposition format. */
#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

struct metrics_http {
	struct evhttp *http;
	struct worker *worker;
};

/*
 * The worker's answer, back on the event loop's thread: the text; if
 * slicepathd did not answer, the one figure there is, with why. (A scraper
 * that hung up meanwhile: libevent frees the request when replying.)
 */
static void
answer(struct job *j)
{
	struct evhttp_request *req = j->complete_arg;
	json_t *reply = j->reply != NULL ? json_loads(j->reply, 0, NULL) : NULL;
	const char *text = json_string_value(json_object_get(json_object_get(reply, "result"),
							   "text"));
	const char *why = json_string_value(json_object_get(json_object_get(reply, "error"),
							  "message"));
	struct evbuffer *body = evbuffer_new();

	if (text != NULL)
		evbuffer_add(body, text, strlen(text));
	else
		evbuffer_add_printf(body, "# slicectld: %s\n# TYPE slicepath_up gauge\n"
				    "slicepath_up 0\n", why != NULL ? why : "no answer");
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type", CONTENT_TYPE);
	evhttp_send_reply(req, HTTP_OK, "OK", body);
	evbuffer_free(body);
	json_decref(reply);
}

static void
on_request(struct evhttp_request *req, void *arg)
{
	struct metrics_http *h = arg;
	const char *path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	json_t *request;
	struct job *j;

	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET || path == NULL ||
	    strcmp(path, "/metrics") != 0) {
		evhttp_send_error(req, HTTP_NOTFOUND, "the metrics are at GET /metrics");
		return;
	}
	request = json_pack("{s:s, s:i, s:s}", "jsonrpc", "2.0", "id", 1, "method",
			    SP_M_METRICS_TEXT);
	j = calloc(1, sizeof(*j));
	if (j != NULL)
		j->line = json_dumps(request, JSON_COMPACT);
	json_decref(request);
	if (j == NULL || j->line == NULL) {
		free(j);
		evhttp_send_error(req, HTTP_SERVUNAVAIL, "out of memory");
		return;
	}
	j->len = strlen(j->line);
	/* The node's own figures: asked as an operator, whoever connects to localhost. */
	j->who = (struct caller){.uid = 0, .operator = true};
	j->complete = answer;
	j->complete_arg = req;
	worker_submit(h->worker, j);
}

/*
 * A listening socket on host:port, or -1 with why in err. Resolved here and
 * not by libevent, which asks with AI_ADDRCONFIG: that refuses 127.0.0.1 on a
 * host whose only address besides loopback is IPv6 (a NIC's link-local one
 * before DHCP answers, or the node's own tap), and slicectld would not start.
 */
static int
listen_on(const char *addr, const char *host, const char *port, char *err, size_t errlen)
{
	const struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				       .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
	struct addrinfo *ai;
	int one = 1, fd, rc = getaddrinfo(host, port, &hints, &ai);

	if (rc != 0) {
		snprintf(err, errlen, "--metrics %s: %s: %s; give another ADDRESS:PORT, or off",
			 addr, host, gai_strerror(rc));
		return -1;
	}
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0) {
		snprintf(err, errlen, "cannot serve metrics on %s: %s; give --metrics another "
			 "ADDRESS:PORT, or off", addr, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/* "ADDR:PORT" of a bound socket, an IPv6 address in brackets. */
static void
name_of(int fd, const char *addr, char *bound, size_t boundlen)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	char host[INET6_ADDRSTRLEN], port[8];

	if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0 ||
	    getnameinfo((struct sockaddr *)&sa, len, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		snprintf(bound, boundlen, "%s", addr);
	else if (sa.ss_family == AF_INET6)
		snprintf(bound, boundlen, "[%s]:%s", host, port);
	else
		snprintf(bound, boundlen, "%s:%s", host, port);
}

int
metrics_addr_parse(const char *addr, char *host, char *port, char *err, size_t errlen)
{
	const char *colon = strrchr(addr, ':'), *first = addr, *last = colon;
	char *end;
	unsigned long n = colon != NULL ? strtoul(colon + 1, &end, 10) : 0;

	if (colon != NULL && addr[0] == '[' && colon > addr && colon[-1] == ']') {
		first++; /* [IPv6]:PORT */
		last--;
	}
	if (colon == NULL || last <= first || (size_t)(last - first) >= METRICS_HOST_LEN ||
	    colon[1] == '\0' || *end != '\0' || n > 65535 || strlen(colon + 1) >= METRICS_PORT_LEN) {
		snprintf(err, errlen, "--metrics: \"%s\" is not ADDRESS:PORT (or off)", addr);
		return -1;
	}
	memcpy(host, first, (size_t)(last - first));
	host[last - first] = '\0';
	snprintf(port, METRICS_PORT_LEN, "%s", colon + 1);
	return 0;
}

struct metrics_http *
metrics_http_open(struct event_base *base, const char *addr, struct worker *w, char *bound,
		  size_t boundlen, char *err, size_t errlen)
{
	struct metrics_http *h;
	char host[METRICS_HOST_LEN], port[METRICS_PORT_LEN];
	int fd;

	if (metrics_addr_parse(addr, host, port, err, errlen) < 0)
		return NULL;
	fd = listen_on(addr, host, port, err, errlen);
	if (fd < 0)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (h == NULL || (h->http = evhttp_new(base)) == NULL ||
	    evhttp_accept_socket_with_handle(h->http, fd) == NULL) {
		snprintf(err, errlen, "out of memory for the metrics endpoint");
		close(fd);
		metrics_http_close(h);
		return NULL;
	}
	h->worker = w;
	evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET);
	evhttp_set_gencb(h->http, on_request, h);
	name_of(fd, addr, bound, boundlen);
	return h;
}

void
metrics_http_close(struct metrics_http *h)
{
	if (h == NULL)
		return;
	if (h->http != NULL)
		evhttp_free(h->http);
	free(h);
}
