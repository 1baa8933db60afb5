/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring file: who is on the Chord ring, one line per node.
 *
 *   self <ID>                  this node's position
 *   node <ID> <IPv4>:<port>    another i3 node (this one may be listed too)
 *
 * An ID is 32 to 64 hex digits; the first 32 (128 bits) are its position.
 * Blank lines and lines from '#' are skipped. From it the slow path builds
 * the predecessor and fingers and writes them into slice memory, bracketed
 * by the sequence counter the fast path checks (slicepath/i3.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slowpath.h"

#define RING_HEX (SP_I3_RING_BYTES * 2)

static int
parse_pos(const char *hex, sp_i3_pos *pos)
{
	size_t n = strlen(hex);
	uint8_t b[SP_I3_RING_BYTES];

	if (n < RING_HEX || n > SP_I3_ID_BYTES * 2 || strspn(hex, "0123456789abcdefABCDEF") != n)
		return -1;
	for (int i = 0; i < SP_I3_RING_BYTES; i++) {
		char byte[3] = {hex[2 * i], hex[2 * i + 1], 0};

		b[i] = (uint8_t)strtoul(byte, NULL, 16);
	}
	*pos = sp_i3_pos_get(b);
	return 0;
}

static int
parse_addr(char *text, struct sp_i3_member *m)
{
	char *colon = strrchr(text, ':'), *end;
	struct in_addr a;
	unsigned long port;

	if (colon == NULL)
		return -1;
	*colon = 0;
	port = strtoul(colon + 1, &end, 10);
	if (inet_pton(AF_INET, text, &a) != 1 || *end != 0 || port == 0 || port > 65535)
		return -1;
	m->ip = a.s_addr;
	m->port = htons((uint16_t)port);
	return 0;
}

/* Members and self from path; the member count, or -1 with a message. */
static int
read_ring(const char *path, struct sp_i3_member *m, sp_i3_pos *self)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int n = 0, lineno = 0, have_self = 0;

	if (f == NULL) {
		fprintf(stderr, "i3-slowpath: cannot read the ring file %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		char *word = strtok(line, " \t\r\n"), *id, *addr;
		bool ok;

		lineno++;
		if (word == NULL || word[0] == '#')
			continue;
		id = strtok(NULL, " \t\r\n");
		addr = strtok(NULL, " \t\r\n");
		if (strcmp(word, "self") == 0) {
			ok = id != NULL && addr == NULL && parse_pos(id, self) == 0;
			have_self |= ok;
		} else if (strcmp(word, "node") == 0 && n < I3SP_MAX_MEMBERS) {
			ok = id != NULL && addr != NULL && strtok(NULL, " \t\r\n") == NULL &&
			     parse_pos(id, &m[n].pos) == 0 && parse_addr(addr, &m[n]) == 0;
			n += ok;
		} else {
			ok = false;
		}
		if (!ok) {
			fprintf(stderr, "i3-slowpath: %s line %d: expected 'self <ID>' or 'node <ID> "
				"<IPv4>:<port>' (an ID is 32 to 64 hex digits; at most %d nodes)\n",
				path, lineno, I3SP_MAX_MEMBERS);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	if (!have_self) {
		fprintf(stderr, "i3-slowpath: %s names no 'self <ID>' line\n", path);
		return -1;
	}
	return n;
}

/* Write r into slice memory so that no packet acts on half of it. */
static int
publish(struct i3sp *sp, struct sp_i3_ring *r)
{
	uint64_t seq;
	const size_t body = offsetof(struct sp_i3_ring, self);

	if (sp_ctl_mem_read(sp->ctl, sp->slice, 0, &seq, sizeof(seq)) < 0)
		return -1;
	seq |= 1; /* odd: the fast path hands packets up while the ring changes */
	r->seq = seq + 1;
	if (sp_ctl_mem_write(sp->ctl, sp->slice, 0, &seq, sizeof(seq)) < 0 ||
	    sp_ctl_mem_write(sp->ctl, sp->slice, body, (const uint8_t *)r + body,
			     sizeof(*r) - body) < 0 ||
	    sp_ctl_mem_write(sp->ctl, sp->slice, 0, &r->seq, sizeof(r->seq)) < 0)
		return -1;
	return 0;
}

int
i3sp_ring_load(struct i3sp *sp, const char *path)
{
	static struct sp_i3_member m[I3SP_MAX_MEMBERS];
	struct sp_i3_ring r;
	sp_i3_pos self;
	int n = read_ring(path, m, &self);

	if (n < 0)
		return -1;
	memset(&r, 0, sizeof(r));
	if (sp_i3_ring_build(&r, self, m, (size_t)n, sp->endpoint, sp->queue) < 0) {
		fprintf(stderr, "i3-slowpath: %s: more than %d distinct fingers\n", path,
			SP_I3_MAX_FINGERS);
		return -1;
	}
	if (publish(sp, &r) < 0) {
		fprintf(stderr, "i3-slowpath: writing the ring into slice %s: %s\n", sp->slice,
			sp_ctl_error(sp->ctl));
		return -1;
	}
	sp->ring = r;
	printf("i3-slowpath: ring loaded: %d nodes, %u fingers\n", n, r.nb_fingers);
	fflush(stdout);
	return 0;
}

bool
i3sp_local(const struct i3sp *sp, const uint8_t *id)
{
	return sp_i3_ring_local(sp_i3_pos_get(sp->ring.self), sp_i3_pos_get(sp->ring.pred),
				sp_i3_pos_get(id));
}
