/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"

int
sp_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	socklen_t len;
	ssize_t sent;
	int fd;

	if (path == NULL || path[0] == '\0')
		return 0;
	if ((path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path));
	/* '@': an abstract address, its first byte NUL. */
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len);
	close(fd);
	return sent == (ssize_t)strlen(state) ? 0 : -1;
}
