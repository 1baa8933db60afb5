/* SPDX-License-Identifier: BSD-3-Clause */
#include "channel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <slicepath/proto.h>

#include "../common/unixsock.h"
#include "../stats/stats.h"
#include "mgmt.h"
#include "../common/log.h"

SP_LOG_TYPE("mgmt")

#define DELIVER_BURST 64
#define MAX_DELIVER_PER_TURN 1024 /* then the management thread does its other work */
#define MAX_INJECT_PER_TURN 64    /* per slow path, so one cannot starve the others */
#define MAX_SEGS 16               /* longer chains are copied into one buffer first */

struct channel {
	int listen_fd; /* -1: no channel */
	int conn_fd;   /* the slow path, or -1 */
	bool refusal_logged; /* one log line per connection for refused injections */
	char path[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
};

struct sp_channels {
	struct sp_node *node;
	char dir[SP_SOCKET_PATH_LEN];
	struct channel chan[SP_MAX_SLICES]; /* by slice id */
	uint8_t buf[sizeof(struct sp_exc_hdr) + UINT16_MAX]; /* one message either way */
};

struct sp_channels *
sp_channels_create(struct sp_node *node, const char *dir, char *err, size_t errlen)
{
	struct sp_channels *ch;

	int rc = sp_mkdirs(dir, 0755);

	if (rc < 0) {
		snprintf(err, errlen, "cannot create %s for the slices' exception channels: %s; "
			 "create it or set \"channel_dir\"", dir, strerror(-rc));
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		snprintf(err, errlen, "out of memory for the exception channels");
		return NULL;
	}
	ch->node = node;
	snprintf(ch->dir, sizeof(ch->dir), "%s", dir);
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		ch->chan[i].listen_fd = ch->chan[i].conn_fd = -1;
	return ch;
}

static void
disconnect(struct sp_channels *ch, struct sp_slice *s)
{
	struct channel *c = &ch->chan[s->id];

	/* First: the NPEs stop handing up; what is in the ring is counted then. */
	__atomic_store_n(&s->slow_path_up, false, __ATOMIC_RELEASE);
	if (c->conn_fd >= 0) {
		close(c->conn_fd);
		c->conn_fd = -1;
		SP_LOG(INFO, "slice %s: its slow path left the exception channel", s->name);
	}
}

void
sp_channel_close(struct sp_channels *ch, struct sp_slice *s)
{
	struct channel *c;

	if (ch == NULL)
		return;
	c = &ch->chan[s->id];
	disconnect(ch, s);
	if (c->listen_fd >= 0) {
		close(c->listen_fd);
		unlink(c->path);
	}
	c->listen_fd = -1;
	c->path[0] = '\0';
}

void
sp_channels_free(struct sp_channels *ch)
{
	if (ch == NULL)
		return;
	for (unsigned int i = 0; i < SP_MAX_SLICES; i++)
		if (ch->node->slices[i] != NULL)
			sp_channel_close(ch, ch->node->slices[i]);
	free(ch);
}

int
sp_channel_open(struct sp_channels *ch, struct sp_slice *s, char *err, size_t errlen)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	struct channel *c;
	uid_t uid;
	int fd;

	if (ch == NULL)
		return 0;
	c = &ch->chan[s->id];
	uid = s->owner == SP_OWNER_NONE ? 0 : (uid_t)s->owner;
	if ((size_t)snprintf(a.sun_path, sizeof(a.sun_path), "%s/%s.sock", ch->dir, s->name) >=
	    sizeof(a.sun_path)) {
		snprintf(err, errlen, "the exception channel path %s/%s.sock is too long for a Unix "
			 "socket; use a shorter \"channel_dir\"", ch->dir, s->name);
		return -ENAMETOOLONG;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	/* A file left by a slicepathd that died is ours to replace: the directory is. */
	unlink(a.sun_path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    chmod(a.sun_path, 0600) < 0 || chown(a.sun_path, uid, (gid_t)-1) < 0 ||
	    listen(fd, 4) < 0) {
		int rc = -errno;

		snprintf(err, errlen, "cannot open slice %s's exception channel %s: %s", s->name,
			 a.sun_path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(a.sun_path);
		}
		return rc;
	}
	c->listen_fd = fd;
	c->conn_fd = -1;
	memcpy(c->path, a.sun_path, sizeof(c->path));
	return 0;
}

const char *
sp_channels_dir(const struct sp_channels *ch)
{
	return ch == NULL ? "" : ch->dir;
}

const char *
sp_channel_path(const struct sp_channels *ch, const struct sp_slice *s)
{
	return ch == NULL ? "" : ch->chan[s->id].path;
}

unsigned int
sp_channels_pollfds(const struct sp_channels *ch, struct pollfd *fds, unsigned int max)
{
	unsigned int n = 0;

	if (ch == NULL)
		return 0;
	for (unsigned int i = 0; i < SP_MAX_SLICES && n + 2 <= max; i++) {
		const struct channel *c = &ch->chan[i];

		if (c->listen_fd >= 0)
			fds[n++] = (struct pollfd){.fd = c->listen_fd, .events = POLLIN};
		if (c->conn_fd >= 0)
			fds[n++] = (struct pollfd){.fd = c->conn_fd, .events = POLLIN};
	}
	return n;
}

/* Root, or the slice's owner: the file mode says so too, this holds if it was changed. */
static bool
may_connect(int fd, const struct sp_slice *s, struct ucred *cred)
{
	socklen_t len = sizeof(*cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, &len) < 0)
		return false;
	return cred->uid == 0 || (s->owner != SP_OWNER_NONE && cred->uid == s->owner);
}

static void
accept_slow_path(struct sp_channels *ch, struct sp_slice *s)
{
	struct channel *c = &ch->chan[s->id];
	struct ucred cred;
	int fd;

	while ((fd = accept4(c->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		if (!may_connect(fd, s, &cred)) {
			SP_LOG(WARNING, "slice %s: refused uid %u on its exception channel: not "
			       "its owner", s->name, cred.uid);
			close(fd);
		} else if (c->conn_fd >= 0) {
			SP_LOG(WARNING, "slice %s: refused a second slow path (pid %d): one is "
			       "connected already", s->name, cred.pid);
			close(fd);
		} else {
			c->conn_fd = fd;
			c->refusal_logged = false;
			__atomic_store_n(&s->slow_path_up, true, __ATOMIC_RELEASE);
			SP_LOG(INFO, "slice %s: slow path (pid %d, uid %u) connected", s->name,
			       cred.pid, cred.uid);
		}
	}
}

/* Why an injected message cannot be taken, or NULL; *ep gets the node endpoint. */
static const char *
check_injection(const struct sp_slice *s, const struct sp_exc_hdr *h, ssize_t len, uint16_t *ep)
{
	size_t pkt = (size_t)len - sizeof(*h);

	if ((size_t)len < sizeof(*h) || h->version != SP_EXC_VERSION || h->reason != 0 ||
	    h->reserved != 0)
		return "not a version 1 header with reason and reserved 0";
	if (pkt == 0 || pkt > SP_EXC_MAX_INJECT)
		return "the packet must have 1 to 2048 bytes";
	if (h->endpoint >= s->nb_endpoints || s->endpoints[h->endpoint] == SP_ENDPOINT_NONE)
		return "no such endpoint";
	*ep = s->endpoints[h->endpoint];
	return NULL;
}

/* One injected message: into the slice's NPE as a packet that arrived on its endpoint. */
static void
inject(struct sp_channels *ch, struct sp_slice *s, ssize_t len, struct sp_lcore_stats *st)
{
	const struct sp_exc_hdr *h = (const struct sp_exc_hdr *)ch->buf;
	struct channel *c = &ch->chan[s->id];
	struct rte_mbuf *m = NULL;
	const char *why;
	uint16_t ep = 0;

	why = check_injection(s, h, len, &ep);
	if (why == NULL) {
		m = rte_pktmbuf_alloc(ch->node->pool);
		why = m == NULL ? "no packet buffer free" : NULL;
	}
	if (why == NULL) {
		size_t pkt = (size_t)len - sizeof(*h);
		struct sp_meta *meta = sp_meta(m);

		memcpy(rte_pktmbuf_append(m, (uint16_t)pkt), h + 1, pkt);
		memset(meta, 0, sizeof(*meta));
		meta->slice = s->id;
		meta->in_ep = ep;
		meta->verdict = SP_FORWARD;
		meta->from_slow_path = 1;
		m->port = ch->node->endpoints[ep].port;
		if (rte_ring_enqueue(ch->node->npes[s->npe].inject_ring, m) < 0) {
			rte_pktmbuf_free(m);
			why = "the NPE's injection ring is full";
		} else {
			sp_counter_add(&st->slice[s->id].injected, m);
			return;
		}
	}
	st->slice[s->id].inject_dropped++;
	if (!c->refusal_logged) {
		SP_LOG(WARNING, "slice %s: dropped a packet its slow path injected: %s (%zd "
		       "bytes; counted as inject_dropped, logged once per connection)", s->name,
		       why, len);
		c->refusal_logged = true;
	}
}

static void
take_injections(struct sp_channels *ch, struct sp_slice *s, struct sp_lcore_stats *st)
{
	struct channel *c = &ch->chan[s->id];

	for (unsigned int i = 0; i < MAX_INJECT_PER_TURN && c->conn_fd >= 0; i++) {
		/* MSG_TRUNC: the real length, to refuse what did not fit. */
		ssize_t len = recv(c->conn_fd, ch->buf, sizeof(ch->buf), MSG_DONTWAIT | MSG_TRUNC);

		if (len < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (len <= 0) {
			disconnect(ch, s);
			return;
		}
		inject(ch, s, len, st);
	}
}

void
sp_channels_serve(struct sp_channels *ch, const struct pollfd *fds, unsigned int n)
{
	struct sp_lcore_stats *st = sp_stats_lcore(rte_lcore_id());

	if (ch == NULL)
		return;
	for (unsigned int i = 0; i < n; i++) {
		if (fds[i].revents == 0)
			continue;
		for (unsigned int id = 0; id < SP_MAX_SLICES; id++) {
			struct channel *c = &ch->chan[id];
			struct sp_slice *s = ch->node->slices[id];

			if (s == NULL)
				continue;
			if (fds[i].fd == c->listen_fd)
				accept_slow_path(ch, s);
			else if (fds[i].fd == c->conn_fd)
				take_injections(ch, s, st);
			else
				continue;
			break;
		}
	}
}

/* Write one exception to its slow path; the reason it was not taken, or SP_REASON_NONE. */
static enum sp_reason
deliver_one(struct sp_channels *ch, struct sp_slice *s, struct rte_mbuf *m)
{
	const struct sp_meta *meta = sp_meta(m);
	struct channel *c = &ch->chan[s->id];
	struct sp_exc_hdr h = {.version = SP_EXC_VERSION, .reason = meta->reason,
			       .endpoint = SP_ENDPOINT_NONE};
	struct iovec iov[MAX_SEGS + 1] = {{&h, sizeof(h)}};
	struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 1};

	if (c->conn_fd < 0 || rte_pktmbuf_pkt_len(m) > UINT16_MAX)
		return SP_REASON_NO_SLOW_PATH;
	for (uint16_t i = 0; i < s->nb_endpoints; i++)
		if (s->endpoints[i] == meta->in_ep)
			h.endpoint = i;
	if (m->nb_segs <= MAX_SEGS) {
		for (const struct rte_mbuf *seg = m; seg != NULL; seg = seg->next)
			iov[msg.msg_iovlen++] = (struct iovec){rte_pktmbuf_mtod(seg, void *),
							       seg->data_len};
	} else {
		iov[1] = (struct iovec){ch->buf, rte_pktmbuf_pkt_len(m)};
		msg.msg_iovlen = 2;
		rte_pktmbuf_read(m, 0, rte_pktmbuf_pkt_len(m), ch->buf);
	}
	if (sendmsg(c->conn_fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
		return SP_REASON_NONE;
	if (errno == EAGAIN || errno == ENOBUFS)
		return SP_REASON_SLOW_PATH_FULL;
	disconnect(ch, s); /* it went away */
	return SP_REASON_NO_SLOW_PATH;
}

void
sp_channels_deliver(struct sp_channels *ch)
{
	struct rte_mbuf *pkts[DELIVER_BURST];
	struct sp_lcore_stats *st;
	unsigned int n, done = 0;

	if (ch == NULL)
		return;
	st = sp_stats_lcore(rte_lcore_id());
	do {
		n = rte_ring_dequeue_burst(ch->node->exc_ring, (void **)pkts, DELIVER_BURST, NULL);
		for (unsigned int i = 0; i < n; i++) {
			uint16_t id = sp_meta(pkts[i])->slice;
			struct sp_slice *s = ch->node->slices[id];
			/* A slice deleted meanwhile has nobody to take it. */
			enum sp_reason r = s == NULL ? SP_REASON_NO_SLOW_PATH
						     : deliver_one(ch, s, pkts[i]);

			if (r == SP_REASON_NONE) {
				sp_counter_add(&st->slice[id].to_slow_path, pkts[i]);
				continue;
			}
			st->reason[r]++;
			if (s != NULL)
				st->slice[id].reason[r]++;
		}
		rte_pktmbuf_free_bulk(pkts, n);
		done += n;
	} while (n == DELIVER_BURST && done < MAX_DELIVER_PER_TURN);
}
