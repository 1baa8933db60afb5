/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A host slice's interface in its own network namespace (the modern form of
 * SPP's GPE vServer): a TAP device whose frames slicepathd reads and writes.
 */
#ifndef SP_NETNS_TAP_H
#define SP_NETNS_TAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../common/limits.h"

#define SP_NETNS_PATH_LEN (SP_NETNS_NAME_LEN + 16)

struct sp_tap_conf {
	const char *netns;  /* a name under /run/netns (ip netns add) */
	const char *ifname; /* the interface's name inside it */
	uint8_t mac[6];
	uint32_t addrs[SP_MAX_PORTS]; /* the node's addresses, each a /32 on it */
	unsigned int nb_addrs;
};

/* Where ip netns keeps the namespace of that name (a file its namespace is mounted on). */
void sp_netns_path(const char *name, char *path, size_t len);

/*
 * Create the TAP interface inside the namespace, up, without ARP, with the
 * addresses and a default route out of it, loopback up. Returns its file
 * descriptor (non-blocking), or a negative errno with a sentence in err.
 */
int sp_netns_tap_open(const struct sp_tap_conf *conf, char *err, size_t errlen);

#endif
