/* SPDX-License-Identifier: BSD-3-Clause */
/* The slice's exception channel: where it is (slicectld says), packets in and out. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl_int.h"

int
sp_ctl_channel_open(struct sp_ctl *c, const char *slice)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	const char *path;
	json_t *r;
	int fd, rc = sp_ctl_call_json(c, SP_M_EXCEPTION_CHANNEL, json_pack("{s:s}", "slice", slice),
				      &r);

	if (rc < 0)
		return rc;
	path = json_string_value(json_object_get(r, "path"));
	if (path == NULL || strlen(path) >= sizeof(a.sun_path)) {
		json_decref(r);
		return sp_ctl_fail(c, EPROTO, 0, "slicectld gave no usable channel path");
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	json_decref(r);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return sp_ctl_fail(c, -rc, 0, "cannot connect to slice %s's exception channel %s: "
				   "%s", slice, a.sun_path, strerror(-rc));
	}
	return fd;
}

ssize_t
sp_ctl_channel_recv(int fd, struct sp_exc_hdr *hdr, void *pkt, size_t len)
{
	struct iovec iov[2] = {{hdr, sizeof(*hdr)}, {pkt, len}};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
	ssize_t n;

	/* MSG_TRUNC: the message's whole length, even when cut. A signal ends the wait. */
	n = recvmsg(fd, &msg, MSG_TRUNC);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (n == 0)
		return -ENOTCONN;
	if ((size_t)n < sizeof(*hdr) || hdr->version != SP_EXC_VERSION)
		return -EPROTO;
	return n - (ssize_t)sizeof(*hdr);
}

int
sp_ctl_channel_inject(int fd, uint16_t endpoint, const void *pkt, size_t len)
{
	struct sp_exc_hdr hdr = {.version = SP_EXC_VERSION, .endpoint = endpoint};
	struct iovec iov[2] = {{&hdr, sizeof(hdr)}, {(void *)pkt, len}};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
	ssize_t n;

	if (len == 0 || len > SP_EXC_MAX_INJECT)
		return -EMSGSIZE;
	do {
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}

const char *
sp_ctl_reason_name(uint8_t reason)
{
	return sp_reason_name(reason);
}
