/* SPDX-License-Identifier: BSD-3-Clause */
#include "unixsock.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define BACKLOG 128

int
sp_mkdirs(const char *dir, mode_t mode)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	/* Each ancestor, then the directory itself. */
	for (char *slash = strchr(path + 1, '/');; slash = strchr(slash + 1, '/')) {
		if (slash != NULL)
			*slash = '\0';
		if (path[0] != '\0' && mkdir(path, mode) < 0 && errno != EEXIST)
			return -errno;
		if (slash == NULL)
			return 0;
		*slash = '/';
	}
}

/* A socket file left by a daemon that died: nobody answers on it. */
static bool
stale(const struct sockaddr_un *a)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool dead = fd >= 0 && connect(fd, (const struct sockaddr *)a, sizeof(*a)) < 0 &&
		    errno == ECONNREFUSED;

	if (fd >= 0)
		close(fd);
	return dead;
}

int
sp_unix_listen(const char *path, mode_t mode, const char *what, char *err, size_t errlen)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	char dir[sizeof(a.sun_path)];
	char *slash;
	int fd;

	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, errlen, "%s %s is too long for a Unix socket (%zu characters at most)",
			 what, path, sizeof(a.sun_path) - 1);
		return -1;
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	memcpy(dir, path, strlen(path) + 1);
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		int rc;

		*slash = '\0';
		rc = sp_mkdirs(dir, 0755);
		if (rc < 0) {
			snprintf(err, errlen, "cannot create %s for %s: %s", dir, what, strerror(-rc));
			return -1;
		}
	}
	if (access(path, F_OK) == 0) {
		if (!stale(&a)) {
			snprintf(err, errlen, "another process serves %s (the same daemon running "
				 "twice?); stop it or set %s to another path", path, what);
			return -1;
		}
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || chmod(path, mode) < 0 ||
	    listen(fd, BACKLOG) < 0) {
		snprintf(err, errlen, "cannot listen on %s (%s): %s", path, what, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}
