/* SPDX-License-Identifier: BSD-3-Clause */
/* Directories for the management thread's sockets. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mgmt.h"

int
sp_mkdirs(const char *dir, mode_t mode)
{
	char path[4096];

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
