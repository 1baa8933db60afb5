/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>

#include "http.h"

/* Prometheus' text exposition format. */
#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define REQUEST "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"metrics.text\"}"

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
	struct job *j;

	if (evhttp_request_get_command(req) != EVHTTP_REQ_GET || path == NULL ||
	    strcmp(path, "/metrics") != 0) {
		evhttp_send_error(req, HTTP_NOTFOUND, "the metrics are at GET /metrics");
		return;
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL || (j->line = strdup(REQUEST)) == NULL) {
		free(j);
		evhttp_send_error(req, HTTP_SERVUNAVAIL, "out of memory");
		return;
	}
	j->len = strlen(REQUEST);
	/* The node's own figures: asked as an operator, whoever connects to localhost. */
	j->who = (struct caller){.uid = 0, .operator = true};
	j->complete = answer;
	j->complete_arg = req;
	worker_submit(h->worker, j);
}

struct metrics_http *
metrics_http_open(struct event_base *base, const char *addr, struct worker *w, char *bound,
		  size_t boundlen, char *err, size_t errlen)
{
	struct metrics_http *h = calloc(1, sizeof(*h));
	struct evhttp_bound_socket *sock;
	struct sockaddr_in sa;
	socklen_t salen = sizeof(sa);
	char host[64];
	const char *colon = strrchr(addr, ':');
	char *end;
	unsigned long port = colon != NULL ? strtoul(colon + 1, &end, 10) : 0;

	if (colon == NULL || (size_t)(colon - addr) >= sizeof(host) || *end != '\0' || port > 65535) {
		snprintf(err, errlen, "--metrics: \"%s\" is not ADDRESS:PORT (or off)", addr);
		free(h);
		return NULL;
	}
	if (h == NULL) {
		snprintf(err, errlen, "out of memory for the metrics endpoint");
		return NULL;
	}
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	h->worker = w;
	h->http = evhttp_new(base);
	sock = h->http != NULL ? evhttp_bind_socket_with_handle(h->http, host, (uint16_t)port)
			       : NULL;
	if (sock == NULL) {
		snprintf(err, errlen, "cannot serve metrics on %s (address in use, or not this "
			 "machine's?); give --metrics another ADDRESS:PORT, or off", addr);
		metrics_http_close(h);
		return NULL;
	}
	evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET);
	evhttp_set_gencb(h->http, on_request, h);
	if (getsockname(evhttp_bound_socket_get_fd(sock), (struct sockaddr *)&sa, &salen) == 0)
		snprintf(bound, boundlen, "%s:%u", host, ntohs(sa.sin_port));
	else
		snprintf(bound, boundlen, "%s", addr);
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
