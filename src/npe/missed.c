/* SPDX-License-Identifier: BSD-3-Clause */
/* The reader of a slice's last missed keys (missed.h). */
#include "missed.h"

/* How often an entry being written is read again before it is left out. */
#define TRIES 4

/* Slot s copied whole into *k: true, or false if it is empty or being written throughout. */
static bool
read_slot(const struct sp_missed_slot *s, struct sp_missed_key *k)
{
	for (unsigned int t = 0; t < TRIES; t++) {
		uint64_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE), w[2], info;

		if (seq == 0)
			return false;
		if (seq & 1)
			continue;
		k->tsc = __atomic_load_n(&s->tsc, __ATOMIC_RELAXED);
		info = __atomic_load_n(&s->info, __ATOMIC_RELAXED);
		w[0] = __atomic_load_n(&s->key[0], __ATOMIC_RELAXED);
		w[1] = __atomic_load_n(&s->key[1], __ATOMIC_RELAXED);
		/* The words before the second look at the sequence. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != seq)
			continue;
		k->nth = seq / 2 - 1;
		k->in_ep = (uint16_t)info;
		k->injected = (info & SP_MISSED_INJECTED) != 0;
		memset(&k->key, 0, sizeof(k->key));
		memcpy(k->key.b, w, SP_KEY_BYTES);
		return true;
	}
	return false;
}

unsigned int
sp_missed_read(const struct sp_missed *m, struct sp_missed_key *out)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < SP_MISSED_KEEP; i++) {
		struct sp_missed_key k;
		unsigned int at;

		if (!read_slot(&m->slot[i], &k))
			continue;
		/* Insertion, newest first. */
		for (at = n; at > 0 && out[at - 1].nth < k.nth; at--)
			out[at] = out[at - 1];
		out[at] = k;
		n++;
	}
	return n;
}
