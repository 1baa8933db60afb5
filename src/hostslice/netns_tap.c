/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A host slice's interface, born inside its network namespace: a thread
 * joins the namespace (setns() moves only the calling thread), opens a TAP
 * device there and configures it with ioctls from a socket of that
 * namespace; the file descriptor it returns works from any thread. No
 * netlink and no iproute2: the few settings a slice needs have ioctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <net/route.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "netns_tap.h"
#include "../common/text.h"

#define NETNS_DIR "/run/netns"

struct job {
	const struct sp_tap_conf *conf;
	int fd; /* the TAP's, or a negative errno */
	char err[256];
};

static int
fail(struct job *j, int rc, const char *what)
{
	snprintf(j->err, sizeof(j->err), "%s in network namespace %s: %s", what, j->conf->netns,
		 strerror(-rc));
	return rc;
}

static int
ifreq_ioctl(int sock, unsigned long req, struct ifreq *ifr)
{
	return ioctl(sock, req, ifr) < 0 ? -errno : 0;
}

static int
set_flags(int sock, const char *ifname, short flags)
{
	struct ifreq ifr = {0};
	int rc;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	rc = ifreq_ioctl(sock, SIOCGIFFLAGS, &ifr);
	if (rc < 0)
		return rc;
	ifr.ifr_flags |= flags;
	return ifreq_ioctl(sock, SIOCSIFFLAGS, &ifr);
}

static void
set_sin(struct sockaddr *sa, uint32_t ip_be)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = ip_be};

	memcpy(sa, &sin, sizeof(sin));
}

/* Address k of the interface, a /32: the first on the interface, the others as labels if:k. */
static int
add_address(int sock, const char *ifname, unsigned int k, uint32_t ip_be)
{
	struct ifreq ifr = {0};
	int rc;

	if (k == 0)
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	else if (snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%.12s:%u", ifname, k) >=
		 (int)sizeof(ifr.ifr_name))
		return -ENAMETOOLONG; /* a cut label would name another address's */
	set_sin(&ifr.ifr_addr, ip_be);
	rc = ifreq_ioctl(sock, SIOCSIFADDR, &ifr);
	if (rc < 0)
		return rc;
	set_sin(&ifr.ifr_netmask, UINT32_MAX);
	return ifreq_ioctl(sock, SIOCSIFNETMASK, &ifr);
}

/* The default route out of the interface, no gateway: NOARP, every destination on link. */
static int
add_default_route(int sock, const char *ifname)
{
	char dev[IFNAMSIZ];
	struct rtentry rt = {0};

	snprintf(dev, sizeof(dev), "%s", ifname);
	set_sin(&rt.rt_dst, 0);
	set_sin(&rt.rt_genmask, 0);
	rt.rt_flags = RTF_UP;
	rt.rt_dev = dev;
	return ioctl(sock, SIOCADDRT, &rt) < 0 && errno != EEXIST ? -errno : 0;
}

/* The namespace's IPv6 would only send router solicitations the node drops: off. */
static void
ipv6_off(const char *ifname)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", ifname);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		(void)!write(fd, "1", 1);
		close(fd);
	}
}

static int
configure(struct job *j, int sock)
{
	const struct sp_tap_conf *c = j->conf;
	struct ifreq ifr = {0};
	int rc;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c->ifname);
	ifr.ifr_hwaddr.sa_family = 1; /* ARPHRD_ETHER */
	memcpy(ifr.ifr_hwaddr.sa_data, c->mac, 6);
	rc = ifreq_ioctl(sock, SIOCSIFHWADDR, &ifr);
	if (rc < 0)
		return fail(j, rc, "setting the interface's MAC");
	ipv6_off(c->ifname);
	rc = set_flags(sock, c->ifname, IFF_UP | IFF_NOARP);
	if (rc < 0)
		return fail(j, rc, "bringing the interface up");
	for (unsigned int k = 0; k < c->nb_addrs; k++) {
		rc = add_address(sock, c->ifname, k, c->addrs[k]);
		if (rc < 0)
			return fail(j, rc, "adding the node's address");
	}
	rc = add_default_route(sock, c->ifname);
	if (rc < 0)
		return fail(j, rc, "adding the default route");
	/* Programs in the slice expect a loopback; ip netns add leaves it down. */
	rc = set_flags(sock, "lo", IFF_UP);
	return rc < 0 ? fail(j, rc, "bringing lo up") : 0;
}

static int
open_tap(struct job *j)
{
	struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR};
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	int hdr = sizeof(struct virtio_net_hdr);

	if (fd < 0)
		return fail(j, -errno, "opening /dev/net/tun");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", j->conf->ifname);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int rc = -errno;

		close(fd);
		return fail(j, rc, rc == -EBUSY ? "the interface name is taken" :
				   "creating the TAP interface");
	}
	/* Frames both ways behind a virtio-net header (tap_io.h); none of the kernel's
	 * offloads asked for: it segments and checksums what the slice sends. */
	if (ioctl(fd, TUNSETVNETHDRSZ, &hdr) < 0 || ioctl(fd, TUNSETOFFLOAD, 0) < 0) {
		int rc = -errno;

		close(fd);
		return fail(j, rc, "setting the TAP's virtio-net header");
	}
	return fd;
}

void
sp_netns_path(const char *name, char *path, size_t len)
{
	snprintf(path, len, NETNS_DIR "/%s", name);
}

static void *
in_netns(void *arg)
{
	struct job *j = arg;
	char path[SP_NETNS_PATH_LEN];
	int ns, sock;

	sp_netns_path(j->conf->netns, path, sizeof(path));
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0) {
		j->fd = -errno;
		snprintf(j->err, sizeof(j->err), "no network namespace %s (%s: %s); create it "
			 "with ip netns add %s", j->conf->netns, path, strerror(errno),
			 j->conf->netns);
		return NULL;
	}
	if (setns(ns, CLONE_NEWNET) < 0) {
		j->fd = fail(j, -errno, "joining it");
		close(ns);
		return NULL;
	}
	close(ns);
	j->fd = open_tap(j);
	if (j->fd < 0)
		return NULL;
	sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0) {
		close(j->fd);
		j->fd = fail(j, -errno, "opening a socket");
		return NULL;
	}
	if (configure(j, sock) < 0) {
		close(j->fd);
		j->fd = -EIO;
	}
	close(sock);
	return NULL;
}

int
sp_netns_tap_open(const struct sp_tap_conf *conf, char *err, size_t errlen)
{
	struct job j = {.conf = conf, .fd = -EINVAL};
	pthread_t t;
	int rc;
	const char *why = sp_netns_name_problem(conf->netns);

	if (why != NULL) {
		snprintf(err, errlen, "network namespace name \"%.80s\" %s", conf->netns, why);
		return -EINVAL;
	}
	rc = pthread_create(&t, NULL, in_netns, &j);
	if (rc != 0) {
		snprintf(err, errlen, "no thread to enter network namespace %s: %s", conf->netns,
			 strerror(rc));
		return -rc;
	}
	pthread_join(t, NULL);
	if (j.fd < 0)
		snprintf(err, errlen, "%s", j.err);
	return j.fd;
}
