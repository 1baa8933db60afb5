/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The i3 slow path (i3-slowpath): what the i3 code option leaves to it.
 * It keeps the node's triggers (insert, refresh, remove, 30 s timeout) and
 * mirrors them into the slice's filters and trigger records, writes the
 * Chord ring into slice memory, and handles the exceptions: options, ID
 * stacks, several matching triggers. Packets it sends go back into the fast
 * path behind struct sp_i3_send (slicepath/i3.h). No DPDK.
 */
#ifndef SP_I3_SLOWPATH_H
#define SP_I3_SLOWPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <slicepath/ctl.h>
#include <slicepath/i3.h>

#include "../i3_ring.h"

#define I3SP_MAX_MEMBERS 1024

/* An IPv4 trigger: packets to IDs it matches go to ip:port. */
struct i3sp_trigger {
	uint8_t id[SP_I3_ID_BYTES];
	uint16_t prefix_len;
	uint32_t ip;   /* network order */
	uint16_t port; /* network order */
	time_t refreshed;
	uint32_t slot; /* its key's filter position */
};

/* Triggers whose IDs share the 112-bit key share one filter and record. */
struct i3sp_slot {
	bool used;
	uint32_t gen;
};

struct i3sp_counters {
	unsigned long exceptions, delivered, forwarded, inserted, refreshed, removed, expired,
		challenged, no_trigger, refused, unsupported, malformed;
};

struct i3sp {
	struct sp_ctl *ctl;
	int fd; /* the exception channel */
	const char *slice;
	uint16_t endpoint, queue; /* where everything is sent from */
	unsigned int timeout;     /* seconds a trigger lives unrefreshed */
	uint8_t secret[SP_I3_NONCE_BYTES];
	/* The ring as last written into slice memory. */
	struct sp_i3_ring ring;
	/* Triggers, and one slot per filter position it may use. */
	struct i3sp_trigger *trig;
	size_t nb_trig, max_trig;
	struct i3sp_slot *slots;
	uint32_t nb_slots;
	struct i3sp_counters n;
};

/* ring_file.c: read the ring's members from path and write the ring into
 * slice memory. 0, or -1 with a message on stderr. */
int i3sp_ring_load(struct i3sp *sp, const char *path);
bool i3sp_local(const struct i3sp *sp, const uint8_t *id);

/* triggers.c. Insert or refresh (1 inserted, 0 refreshed, -1 refused: no room,
 * or the slice refused the filter); remove (true if it was there). */
int i3sp_trigger_insert(struct i3sp *sp, const uint8_t *id, uint16_t prefix_len, uint32_t ip,
			uint16_t port);
bool i3sp_trigger_remove(struct i3sp *sp, const uint8_t *id, uint32_t ip, uint16_t port);
void i3sp_trigger_expire(struct i3sp *sp, time_t now);
/* The triggers matching id on the longest prefix (at least 128 bits and
 * their own prefix length): up to max indexes into sp->trig; how many. */
size_t i3sp_trigger_match(const struct i3sp *sp, const uint8_t *id, size_t *out, size_t max);
void i3sp_triggers_drop_all(struct i3sp *sp);

/* packets.c: one exception from the channel. */
void i3sp_exception(struct i3sp *sp, uint8_t reason, uint8_t *pkt, size_t len);

#endif
