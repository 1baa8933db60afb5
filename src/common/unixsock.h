/* SPDX-License-Identifier: BSD-3-Clause */
/* Unix sockets the daemons listen on (unixsock.c). No DPDK. */
#ifndef SP_UNIXSOCK_H
#define SP_UNIXSOCK_H

#include <stddef.h>
#include <sys/types.h>

/* mkdir -p: dir and its missing ancestors (mode 0755 for those). 0 or a negative errno. */
int sp_mkdirs(const char *dir, mode_t mode);

/*
 * A non-blocking stream socket listening on path with the file mode given:
 * its directory is created if missing, a file left by a daemon that died
 * (nobody answers on it) is replaced, a live one is an error. what names
 * the setting for messages ("mgmt_socket"). The socket, or -1 with the
 * reason in err.
 */
int sp_unix_listen(const char *path, mode_t mode, const char *what, char *err, size_t errlen);

#endif
