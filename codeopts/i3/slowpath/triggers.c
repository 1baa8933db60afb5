/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node's triggers and their image in the fast path: triggers whose IDs
 * share the first 112 bits (the key) share one slot, that is a filter
 * position and the trigger record at the same index in slice memory. A
 * slot with one trigger is forwarded by the fast path; with several, its
 * packets come here. Every change of a slot runs "invalidate, write,
 * publish", so the fast path never acts on half of one.
 */
#include <stdio.h>
#include <string.h>

#include "../i3_wire.h"
#include "slowpath.h"

#define FULL_MASK 0xff

static uint32_t
rec_offset(uint32_t slot)
{
	return (uint32_t)(SP_I3_TRIGGERS_OFFSET + (size_t)slot * sizeof(struct sp_i3_trigger_rec));
}

static uint16_t
min_bits(const struct i3sp_trigger *t)
{
	return t->prefix_len > SP_I3_MIN_PREFIX_BITS ? t->prefix_len : SP_I3_MIN_PREFIX_BITS;
}

static int
write_word(struct i3sp *sp, uint32_t slot, struct sp_i3_trigger_word w)
{
	return sp_ctl_mem_write(sp->ctl, sp->slice,
				rec_offset(slot) + offsetof(struct sp_i3_trigger_rec, w), &w,
				sizeof(w));
}

/* Bring slot's filter and record in line with its triggers. */
static int
sync_slot(struct i3sp *sp, uint32_t slot)
{
	const struct i3sp_trigger *first = NULL;
	struct sp_ctl_filter f;
	uint16_t count = 0;
	uint32_t gen;

	for (size_t i = 0; i < sp->nb_trig; i++)
		if (sp->trig[i].slot == slot && count++ == 0)
			first = &sp->trig[i];
	if (first == NULL) {
		sp->slots[slot].used = false;
		return sp_ctl_filter_delete(sp->ctl, sp->slice, slot);
	}
	/* Generation 0 is what a record never written holds. */
	gen = ++sp->slots[slot].gen == 0 ? ++sp->slots[slot].gen : sp->slots[slot].gen;
	memset(&f, 0, sizeof(f));
	f.position = slot;
	memcpy(f.key.b, first->id, SP_KEY_BYTES);
	memset(f.mask.b, FULL_MASK, SP_KEY_BYTES);
	f.result = (struct sp_result){.endpoint = sp->endpoint, .queue = sp->queue,
				      .nh_ip = first->ip, .nh_port = first->port};
	memcpy(f.result.data, &gen, sizeof(gen));
	if (write_word(sp, slot, (struct sp_i3_trigger_word){0}) < 0 ||
	    sp_ctl_mem_write(sp->ctl, sp->slice, rec_offset(slot), first->id, SP_I3_ID_BYTES) < 0 ||
	    sp_ctl_filter_write(sp->ctl, sp->slice, &f, 1) < 0)
		return -1;
	return write_word(sp, slot, (struct sp_i3_trigger_word){gen, count, min_bits(first)});
}

/* The slot of id's key: the one its key already has, else a free one, else -1. */
static int64_t
slot_for(const struct i3sp *sp, const uint8_t *id)
{
	for (size_t i = 0; i < sp->nb_trig; i++)
		if (memcmp(sp->trig[i].id, id, SP_KEY_BYTES) == 0)
			return sp->trig[i].slot;
	for (uint32_t s = 0; s < sp->nb_slots; s++)
		if (!sp->slots[s].used)
			return s;
	return -1;
}

static size_t
find(const struct i3sp *sp, const uint8_t *id, uint32_t ip, uint16_t port)
{
	size_t i;

	for (i = 0; i < sp->nb_trig; i++)
		if (memcmp(sp->trig[i].id, id, SP_I3_ID_BYTES) == 0 && sp->trig[i].ip == ip &&
		    sp->trig[i].port == port)
			break;
	return i;
}

/* Take trigger i out of the table and its slot. */
static void
drop_trigger(struct i3sp *sp, size_t i)
{
	uint32_t slot = sp->trig[i].slot;

	sp->trig[i] = sp->trig[--sp->nb_trig];
	if (sync_slot(sp, slot) < 0)
		fprintf(stderr, "i3-slowpath: updating filter %u: %s\n", slot, sp_ctl_error(sp->ctl));
}

int
i3sp_trigger_insert(struct i3sp *sp, const uint8_t *id, uint16_t prefix_len, uint32_t ip,
		    uint16_t port)
{
	size_t i = find(sp, id, ip, port);
	int64_t slot;

	/* i3: the same ID to the same address is a refresh. */
	if (i < sp->nb_trig) {
		sp->trig[i].refreshed = time(NULL);
		return 0;
	}
	slot = slot_for(sp, id);
	if (slot < 0 || sp->nb_trig == sp->max_trig)
		return -1;
	sp->trig[sp->nb_trig++] = (struct i3sp_trigger){.prefix_len = prefix_len, .ip = ip,
							.port = port, .refreshed = time(NULL),
							.slot = (uint32_t)slot};
	memcpy(sp->trig[sp->nb_trig - 1].id, id, SP_I3_ID_BYTES);
	sp->slots[slot].used = true;
	if (sync_slot(sp, (uint32_t)slot) < 0) {
		fprintf(stderr, "i3-slowpath: a trigger refused: %s\n", sp_ctl_error(sp->ctl));
		drop_trigger(sp, sp->nb_trig - 1);
		return -1;
	}
	return 1;
}

bool
i3sp_trigger_remove(struct i3sp *sp, const uint8_t *id, uint32_t ip, uint16_t port)
{
	size_t i = find(sp, id, ip, port);

	if (i == sp->nb_trig)
		return false;
	drop_trigger(sp, i);
	return true;
}

void
i3sp_trigger_expire(struct i3sp *sp, time_t now)
{
	for (size_t i = 0; i < sp->nb_trig;) {
		if (now - sp->trig[i].refreshed > (time_t)sp->timeout) {
			drop_trigger(sp, i);
			sp->n.expired++;
		} else {
			i++;
		}
	}
}

void
i3sp_triggers_drop_all(struct i3sp *sp)
{
	while (sp->nb_trig > 0)
		drop_trigger(sp, sp->nb_trig - 1);
}

size_t
i3sp_trigger_match(const struct i3sp *sp, const uint8_t *id, size_t *out, size_t max)
{
	unsigned int best = 0;
	size_t n = 0;

	for (size_t i = 0; i < sp->nb_trig; i++) {
		unsigned int bits = sp_i3_common_bits(sp->trig[i].id, id);

		if (bits < min_bits(&sp->trig[i]) || bits < best)
			continue;
		if (bits > best) {
			best = bits;
			n = 0;
		}
		if (n < max)
			out[n++] = i;
	}
	return n;
}
