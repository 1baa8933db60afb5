/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libslicectl-preload.so: SPP's "library routines in place of the standard
 * socket calls" for host slices. Loaded with LD_PRELOAD into an unmodified
 * program running in a host slice's namespace, with SLICEPATH_SLICE naming
 * the slice: bind() of a TCP or UDP port reserves it as an endpoint of the
 * slice through slicectld (and binds a queue for it), and the close() of
 * the last descriptor of that socket releases both; so does slicectld when
 * the process is gone however it ended (the reservation is "until_exit",
 * tied to the process that bound). A refusal is the errno
 * a program expects, EADDRINUSE when the port is taken, EINVAL for a rate
 * that is not a number and EACCES otherwise, with slicectld's message (or
 * the shim's) on stderr. Without SLICEPATH_SLICE (said at load), or for
 * other sockets, the calls are the C library's, untouched.
 *
 * Environment: SLICEPATH_SLICE (the slice), SLICEPATH_IFACE (the interface;
 * default: the one with the bound address, or the first with an address
 * for a wildcard bind), SLICEPATH_BANDWIDTH and SLICEPATH_INBOUND (bits/s,
 * default 10 Mb/s and none), SLICECTL_SOCKET (slicectld's socket).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>

#include <jansson.h>

#include <slicepath/ctl.h>
#include <slicepath/methods.h>
#include <slicepath/proto.h>

#include "common/limits.h"
#include "preload_args.h"

#define MAX_FDS 4096 /* descriptors followed: beyond, a socket's reservation outlives it */

/* What one bind() reserved: its endpoint and queue, and the descriptors holding the socket. */
struct reservation {
	char slice[SP_NAME_LEN]; /* as SLICEPATH_SLICE said then: the program may change it */
	uint16_t endpoint, queue;
	unsigned int refs;
	pid_t pid; /* the process that bound: a child's copies of the descriptors release nothing */
};

static struct {
	pthread_mutex_t lock;
	struct reservation *by_fd[MAX_FDS];
	struct sp_ctl *ctl;
	pid_t ctl_pid; /* the process that connected: slicectld ties "until_exit" to it */
} shim = {
	/* Recursive: libslicectl closes its own sockets, through close() below. */
	.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
};

static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_close)(int);
static int (*real_dup)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);

static void
say(const char *fmt, ...)
{
	va_list ap;

	fputs("slicepath: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * A program must not run as if under the shim when it is not: said once, at
 * load, when no slice is named or slicectld cannot be reached (its binds
 * would then reserve nothing, or be refused). The probe's connection is not
 * kept: a program may close every descriptor at its start, as daemons do.
 */
static void
check_loaded(void)
{
	const char *slice = getenv("SLICEPATH_SLICE"), *sock = getenv(SP_CTL_SOCKET_ENV);
	struct sp_ctl *probe;

	if (slice == NULL || *slice == '\0') {
		say("libslicectl-preload.so is loaded but SLICEPATH_SLICE is not set: bind() "
		    "reserves nothing (slicectl exec SLICE -- PROGRAM sets it)");
		return;
	}
	probe = sp_ctl_open(NULL);
	if (probe != NULL)
		sp_ctl_close(probe);
	else
		say("slice %s: slicectld cannot be reached on %s (%s): bind() of its ports will "
		    "be refused", slice, sock != NULL ? sock : SP_CTL_DEFAULT_SOCKET,
		    strerror(errno));
}

/*
 * The C library's calls. Also from the wrappers: another library's
 * constructor may close() before ours has run (libcap-ng's does, in setpriv).
 */
static void
resolve(void)
{
	real_bind = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
	real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	real_dup = (int (*)(int))dlsym(RTLD_NEXT, "dup");
	real_dup2 = (int (*)(int, int))dlsym(RTLD_NEXT, "dup2");
	real_dup3 = (int (*)(int, int, int))dlsym(RTLD_NEXT, "dup3");
}

__attribute__((constructor)) static void
init(void)
{
	resolve();
	check_loaded();
}

/*
 * This process's connection to slicectld (SLICECTL_SOCKET or the default);
 * false, said, if it cannot be had. A forked child connects anew: slicectld
 * knows a caller by the process that connected.
 */
static bool
connected(const char *what)
{
	if (shim.ctl != NULL && shim.ctl_pid != getpid()) {
		sp_ctl_close(shim.ctl); /* the child's copy of the parent's */
		shim.ctl = NULL;
	}
	if (shim.ctl == NULL) {
		shim.ctl = sp_ctl_open(NULL);
		shim.ctl_pid = getpid();
	}
	if (shim.ctl != NULL)
		return true;
	say("%s: slicectld cannot be reached (%s)", what, strerror(errno));
	errno = EACCES;
	return false;
}

/* The call's result, or NULL with errno set (EADDRINUSE for a taken port) and the refusal said. */
static json_t *
call(const char *method, json_t *params, const char *what)
{
	char *text = json_dumps(params, JSON_COMPACT), *out = NULL;
	json_t *r = NULL;
	int rc;

	json_decref(params);
	if (!connected(what)) {
		free(text);
		return NULL;
	}
	rc = sp_ctl_call(shim.ctl, method, text, &out);
	free(text);
	if (rc == 0)
		r = json_loads(out, 0, NULL);
	free(out);
	if (r != NULL)
		return r;
	say("%s refused: %s", what, sp_ctl_error(shim.ctl));
	errno = rc == -EEXIST ? EADDRINUSE : EACCES;
	return NULL;
}

/* The interface a bind to addr (network order, 0: any) is for, into name; false (said) if none. */
static bool
iface_for(uint32_t addr, char *name, size_t len, const char *what)
{
	const char *env = getenv("SLICEPATH_IFACE");
	struct sp_ctl_iface ifs[SP_MAX_PORTS];
	int n;

	if (env != NULL && *env != '\0') {
		snprintf(name, len, "%s", env);
		return true;
	}
	if (!connected(what))
		return false;
	n = sp_ctl_iface_list(shim.ctl, ifs, SP_MAX_PORTS);
	for (int i = 0; i < n && i < SP_MAX_PORTS; i++) {
		if (ifs[i].ipv4 != 0 && (addr == 0 || ifs[i].ipv4 == addr)) {
			snprintf(name, len, "%s", ifs[i].name);
			return true;
		}
	}
	say("%s: no interface of the node has that address%s%s", what, n < 0 ? ": " : "",
	    n < 0 ? sp_ctl_error(shim.ctl) : "");
	errno = EADDRNOTAVAIL;
	return false;
}

/* The slice's lowest queue id no queue is bound to (stats.get lists the bound ones). */
static int
free_queue(const char *slice, const char *what)
{
	json_t *r = call(SP_M_STATS_GET, json_pack("{s:s}", "slice", slice), what), *qs;
	int q = -1;

	if (r == NULL)
		return -1;
	qs = json_object_get(r, "queues");
	for (int id = 0; id < SP_MAX_SLICE_QUEUES && q < 0; id++) {
		char key[8];

		snprintf(key, sizeof(key), "%d", id);
		if (json_object_get(qs, key) == NULL)
			q = id;
	}
	json_decref(r);
	return q;
}

/* Reserve the port for the slice and bind a queue for it; NULL with errno set if refused. */
static struct reservation *
reserve(const char *slice, const struct preload_bind *b)
{
	struct reservation *res;
	uint64_t bw, in;
	char iface[SP_NAME_LEN], what[96];
	json_t *r;
	int q;

	snprintf(what, sizeof(what), "bind to %s port %u of slice %s", b->tcp ? "TCP" : "UDP",
		 b->port, slice);
	if (preload_rate(getenv("SLICEPATH_BANDWIDTH"), SP_DEFAULT_BANDWIDTH, &bw) < 0 ||
	    preload_rate(getenv("SLICEPATH_INBOUND"), 0, &in) < 0) {
		say("%s: SLICEPATH_BANDWIDTH and SLICEPATH_INBOUND are bits/s, decimal digits only",
		    what);
		errno = EINVAL;
		return NULL;
	}
	if (!iface_for(b->addr, iface, sizeof(iface), what))
		return NULL;
	r = call(SP_M_ENDPOINT_RESERVE, json_pack("{s:s, s:s, s:i, s:I, s:I, s:b}", "slice",
						  slice, "port", iface, b->tcp ? "tcp_port" : "udp_port",
						  b->port, "bandwidth", (json_int_t)bw, "inbound",
						  (json_int_t)in, "until_exit", 1), what);
	if (r == NULL)
		return NULL;
	res = calloc(1, sizeof(*res));
	if (res == NULL) {
		json_decref(r);
		errno = ENOMEM;
		return NULL; /* the endpoint stays: slicectl endpoint release frees it */
	}
	snprintf(res->slice, sizeof(res->slice), "%s", slice);
	res->pid = getpid();
	res->endpoint = (uint16_t)json_integer_value(json_object_get(r, "endpoint"));
	json_decref(r);
	q = free_queue(slice, what);
	r = q < 0 ? NULL : call(SP_M_QUEUE_BIND, json_pack("{s:s, s:i, s:i, s:I}", "slice", slice,
							 "queue", q, "endpoint", res->endpoint,
							 "share", (json_int_t)bw), what);
	if (r == NULL) {
		int err = errno;

		json_decref(call(SP_M_ENDPOINT_RELEASE, json_pack("{s:s, s:i}", "slice", slice,
								  "endpoint", res->endpoint), what));
		free(res);
		errno = q < 0 ? ENOSPC : err;
		return NULL;
	}
	json_decref(r);
	res->queue = (uint16_t)q;
	return res;
}

static void
release(struct reservation *res)
{
	char what[96];

	snprintf(what, sizeof(what), "releasing endpoint %u of slice %s", res->endpoint,
		 res->slice);
	json_decref(call(SP_M_QUEUE_UNBIND, json_pack("{s:s, s:i}", "slice", res->slice, "queue",
						      res->queue), what));
	json_decref(call(SP_M_ENDPOINT_RELEASE, json_pack("{s:s, s:i}", "slice", res->slice,
							  "endpoint", res->endpoint), what));
	free(res);
}

int
bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	const char *slice = getenv("SLICEPATH_SLICE");
	struct reservation *res;
	struct preload_bind b;
	int type = 0, rc, err;
	socklen_t tl = sizeof(type);

	if (real_bind == NULL)
		resolve();
	if (slice == NULL || *slice == '\0' || fd < 0 || fd >= MAX_FDS ||
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 ||
	    !preload_bind_wanted(sa, len, type, &b))
		return real_bind(fd, sa, len);
	pthread_mutex_lock(&shim.lock);
	res = reserve(slice, &b);
	if (res == NULL) {
		err = errno;
		pthread_mutex_unlock(&shim.lock);
		errno = err;
		return -1;
	}
	rc = real_bind(fd, sa, len);
	err = errno;
	if (rc < 0) {
		release(res);
	} else {
		res->refs = 1;
		shim.by_fd[fd] = res;
	}
	pthread_mutex_unlock(&shim.lock);
	errno = err;
	return rc;
}

/* fd is gone: the last descriptor of a reserved socket releases it (in the process that reserved). */
static void
forget(int fd)
{
	struct reservation *res;

	if (fd < 0 || fd >= MAX_FDS)
		return;
	pthread_mutex_lock(&shim.lock);
	res = shim.by_fd[fd];
	shim.by_fd[fd] = NULL;
	if (res != NULL && --res->refs == 0 && getpid() == res->pid)
		release(res);
	pthread_mutex_unlock(&shim.lock);
}

/* newfd now holds fd's socket too. */
static int
alias(int fd, int newfd)
{
	if (newfd < 0 || fd < 0 || fd >= MAX_FDS || newfd >= MAX_FDS || newfd == fd)
		return newfd;
	pthread_mutex_lock(&shim.lock);
	if (shim.by_fd[fd] != NULL) {
		shim.by_fd[newfd] = shim.by_fd[fd];
		shim.by_fd[newfd]->refs++;
	}
	pthread_mutex_unlock(&shim.lock);
	return newfd;
}

int
close(int fd)
{
	int rc, err;

	if (real_close == NULL)
		resolve();
	rc = real_close(fd);
	err = errno;
	if (rc == 0)
		forget(fd);
	errno = err;
	return rc;
}

int
dup(int fd)
{
	if (real_dup == NULL)
		resolve();
	return alias(fd, real_dup(fd));
}

int
dup2(int fd, int newfd)
{
	if (real_dup2 == NULL)
		resolve();
	if (fd != newfd && fcntl(newfd, F_GETFD) >= 0)
		forget(newfd); /* dup2 closes it first */
	return alias(fd, real_dup2(fd, newfd));
}

int
dup3(int fd, int newfd, int flags)
{
	if (real_dup3 == NULL)
		resolve();
	if (fd != newfd && fcntl(newfd, F_GETFD) >= 0)
		forget(newfd);
	return alias(fd, real_dup3(fd, newfd, flags));
}

/* A program that exits without closing its sockets releases them too. */
__attribute__((destructor)) static void
fini(void)
{
	for (int fd = 0; fd < MAX_FDS; fd++)
		if (shim.by_fd[fd] != NULL)
			forget(fd);
	if (shim.ctl != NULL)
		sp_ctl_close(shim.ctl);
}
