/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The metrics endpoint: GET /metrics on a local HTTP port (libevent's
 * server) answers with metrics.text, asked of the worker like any request.
 */
#ifndef CTLD_HTTP_H
#define CTLD_HTTP_H

#include <stddef.h>

#include <event2/event.h>

#include "worker.h"

struct metrics_http;

/* Room for the two parts of a metrics address, their terminators included. */
#define METRICS_HOST_LEN 64
#define METRICS_PORT_LEN 8

/*
 * Split "ADDR:PORT" or "[IPV6]:PORT" into host[METRICS_HOST_LEN] and
 * port[METRICS_PORT_LEN]: 0, or -1 with why in err (for the command line: a
 * malformed address is a bad argument).
 */
int metrics_addr_parse(const char *addr, char *host, char *port, char *err, size_t errlen);

/*
 * Serve on addr ("ADDR:PORT"; port 0 picks one) through worker. NULL with
 * the reason in err. The address it listens on goes into bound.
 */
struct metrics_http *metrics_http_open(struct event_base *base, const char *addr,
				       struct worker *w, char *bound, size_t boundlen, char *err,
				       size_t errlen);
void metrics_http_close(struct metrics_http *h);

#endif
