/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A host slice's life, on the management thread: its interface made in its
 * namespace, its NAT range found and entered in the endpoint table; taken
 * apart in the opposite order once the lcores are past it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "hslice_ops.h"
#include "node.h"
#include "../common/log.h"

SP_LOG_TYPE("hostslice")

#define WATCH_EVERY_S 1

/* The first number of first..first+count-1 held on an addressed port; 0 if all are free. */
static uint32_t
taken_in(const struct sp_node *node, uint32_t first, uint16_t count)
{
	for (uint16_t p = 0; p < node->nb_ports; p++)
		for (uint32_t k = 0; node->ports[p].ip_be != 0 && k < count; k++)
			for (unsigned int l4 = 0; l4 < SP_L4_COUNT; l4++)
				if (sp_decap_taken(node->decap, p, l4, (uint16_t)(first + k)))
					return first + k;
	return 0;
}

/* The lowest first number of count free ones on every addressed port, within the config's NAT ports; 0 if none. */
static uint16_t
free_range(const struct sp_node *node, uint16_t count)
{
	for (uint32_t first = node->nat_first; first + count - 1 <= node->nat_last; first++) {
		uint32_t taken = taken_in(node, first, count);

		if (!taken)
			return (uint16_t)first;
		first = taken; /* past the number that is held */
	}
	return 0;
}

/* The range a restored slice had (slicectld stores it): free and within the config, or why not. */
static int
stored_range(const struct sp_node *node, uint16_t first, uint16_t count, char *err,
	     size_t errlen)
{
	uint32_t taken;

	if (first < node->nat_first || (uint32_t)first + count - 1 > node->nat_last) {
		snprintf(err, errlen, "the NAT range %u-%u is not within %u-%u (the config's "
			 "\"nat\")", first, first + count - 1, node->nat_first, node->nat_last);
		return -EINVAL;
	}
	taken = taken_in(node, first, count);
	if (taken) {
		snprintf(err, errlen, "the NAT range %u-%u is not free: %u is taken", first,
			 first + count - 1, taken);
		return -EADDRINUSE;
	}
	return 0;
}

static void
del_nat_entries(struct sp_node *node, const struct sp_nat *nat)
{
	struct sp_nat_stats st;

	sp_nat_stats(nat, &st);
	for (uint16_t p = 0; p < node->nb_ports; p++)
		sp_decap_del_nat(node->decap, p, st.first, st.count);
}

/* Its NAT range: a table and the endpoint table's entries. */
static int
add_nat(struct sp_node *node, struct sp_slice *s, const struct sp_hslice_spec *spec, char *err,
	size_t errlen)
{
	uint16_t count = spec->nat_ports, first = spec->nat_first;
	struct sp_hslice *hs = s->host;
	char name[32];
	int rc = first != 0 ? stored_range(node, first, count, err, errlen) : 0;

	if (rc < 0)
		return rc;
	if (first == 0)
		first = free_range(node, count);
	if (first == 0) {
		snprintf(err, errlen, "no range of %u NAT ports is free within %u-%u (the config's "
			 "\"nat\"); ask for fewer nat_ports or widen the range", count,
			 node->nat_first, node->nat_last);
		return -ENOSPC;
	}
	snprintf(name, sizeof(name), "nat%u", s->id);
	hs->nat = sp_nat_create(name, first, count, &node->nat_timeouts, SOCKET_ID_ANY);
	if (hs->nat == NULL) {
		snprintf(err, errlen, "no memory for a NAT table of %u ports", count);
		return -ENOMEM;
	}
	for (uint16_t p = 0; p < node->nb_ports && rc == 0; p++)
		if (node->ports[p].ip_be != 0)
			rc = sp_decap_add_nat(node->decap, p, node->ports[p].ip_be, first, count,
					      s->id);
	if (rc < 0) {
		del_nat_entries(node, hs->nat);
		sp_nat_free(hs->nat);
		hs->nat = NULL;
		snprintf(err, errlen, "the NAT range %u-%u could not be entered: %s", first,
			 first + count - 1, strerror(-rc));
	}
	return rc;
}

int
sp_hslice_create(struct sp_node *node, struct sp_slice *s, const struct sp_hslice_spec *spec,
		 char *err, size_t errlen)
{
	struct sp_tap_conf tc = {.netns = spec->netns != NULL ? spec->netns : ""};
	struct sp_hslice *hs = rte_zmalloc("sp_hslice", sizeof(*hs), 0);
	char path[SP_NETNS_PATH_LEN];
	struct stat st;
	int rc;

	if (hs == NULL) {
		snprintf(err, errlen, "no memory for a host slice");
		return -ENOMEM;
	}
	snprintf(hs->netns, sizeof(hs->netns), "%s", tc.netns);
	snprintf(hs->ifname, sizeof(hs->ifname), "%.*s", SP_IFNAME_LEN - 1, s->name);
	/* Locally administered, the slice's id in it: unique on the node. */
	hs->mac = (struct rte_ether_addr){{0x02, 's', 'p', 0, 0, (uint8_t)s->id}};
	tc.ifname = hs->ifname;
	memcpy(tc.mac, hs->mac.addr_bytes, sizeof(tc.mac));
	for (uint16_t p = 0; p < node->nb_ports; p++)
		if (node->ports[p].ip_be != 0)
			tc.addrs[tc.nb_addrs++] = node->ports[p].ip_be;
	sp_netns_path(hs->netns, path, sizeof(path));
	if (stat(path, &st) == 0) {
		hs->ns_dev = st.st_dev;
		hs->ns_ino = st.st_ino;
	}
	hs->fd = sp_netns_tap_open(&tc, err, errlen);
	if (hs->fd < 0) {
		rc = hs->fd;
		rte_free(hs);
		return rc;
	}
	s->host = hs;
	if (spec->nat_ports > 0) {
		rc = add_nat(node, s, spec, err, errlen);
		if (rc < 0) {
			close(hs->fd);
			rte_free(hs);
			s->host = NULL;
			return rc;
		}
	}
	__atomic_fetch_or(&node->host_slice_bits[s->id / 64], UINT64_C(1) << (s->id % 64),
			  __ATOMIC_RELEASE);
	return 0;
}

void
sp_hslice_withdraw(struct sp_node *node, struct sp_slice *s)
{
	if (s->host->nat != NULL)
		del_nat_entries(node, s->host->nat);
}

void
sp_hslice_destroy(struct sp_node *node, struct sp_slice *s)
{
	struct sp_hslice *hs = s->host;

	__atomic_fetch_and(&node->host_slice_bits[s->id / 64], ~(UINT64_C(1) << (s->id % 64)),
			   __ATOMIC_RELEASE);
	/* The interface goes with its last file descriptor. */
	close(hs->fd);
	sp_nat_free(hs->nat);
	rte_free(hs);
	s->host = NULL;
}

/* Is the name still the namespace the slice was made in? */
static bool
netns_still_there(const struct sp_hslice *hs)
{
	char path[SP_NETNS_PATH_LEN];
	struct stat st;

	sp_netns_path(hs->netns, path, sizeof(path));
	return stat(path, &st) == 0 && st.st_dev == hs->ns_dev && st.st_ino == hs->ns_ino;
}

void
sp_hslices_watch(struct sp_node *node)
{
	static uint64_t next;
	uint64_t now = rte_get_timer_cycles();

	if (now < next)
		return;
	next = now + WATCH_EVERY_S * rte_get_timer_hz();
	for (unsigned int id = 0; id < SP_MAX_SLICES; id++) {
		struct sp_slice *s = node->slices[id];
		struct sp_hslice *hs = s != NULL ? s->host : NULL;

		if (hs == NULL || hs->gone_reported)
			continue;
		if (!__atomic_load_n(&hs->gone, __ATOMIC_RELAXED) && netns_still_there(hs))
			continue;
		__atomic_store_n(&hs->gone, true, __ATOMIC_RELAXED);
		hs->gone_reported = true;
		SP_LOG(WARNING, "slice %s: its network namespace %s is gone (deleted, or its "
		       "interface %s failed); frames for it are dropped as netns_gone until the "
		       "slice is deleted and made again", s->name, hs->netns, hs->ifname);
	}
}
