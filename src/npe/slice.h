/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Slices and the code option registry. A slice is what SPP called a slice's
 * fast-path instance: a code option, a private memory block, its endpoints
 * (slice-relative index -> node endpoint) and its queues (slice-relative id
 * -> physical queue of its NPE).
 */
#ifndef SP_SLICE_H
#define SP_SLICE_H

#include <stdbool.h>
#include <stdint.h>

#include <slicepath/codeopt.h>

#include "../common/limits.h"
#include "missed.h"

#define SP_QUEUE_UNBOUND UINT32_MAX
#define SP_ENDPOINT_NONE UINT16_MAX /* a released endpoint's index, until reused */
#define SP_OWNER_NONE UINT32_MAX    /* a slice without owner: root's alone */

struct sp_slice {
	uint16_t id; /* node slice id, 1..SP_MAX_SLICES-1 */
	uint16_t npe;
	uint64_t serial; /* one more for each slice made: a later slice at the same address differs */
	char name[SP_NAME_LEN];
	const struct sp_codeopt *co;
	void *priv; /* the code option's per-slice state */
	uint8_t *mem;
	size_t mem_size;
	uint32_t filter_quota;
	uint16_t nb_endpoints; /* indexes in use, released ones (SP_ENDPOINT_NONE) included */
	uint16_t endpoints[SP_MAX_SLICE_ENDPOINTS]; /* node endpoint ids */
	uint16_t queue_quota;
	uint32_t buffer_quota; /* packets its queues may hold together */
	uint32_t qmap[SP_MAX_SLICE_QUEUES]; /* slice queue id -> physical, or SP_QUEUE_UNBOUND */
	uint16_t qport[SP_MAX_SLICE_QUEUES]; /* port index each bound queue feeds */
	uint16_t qendpoint[SP_MAX_SLICE_QUEUES]; /* the endpoint (slice index) it was bound for */
	uint32_t owner;  /* uid that may use its exception channel, or SP_OWNER_NONE */
	bool managed;    /* created by slicectld, which keeps it in step with its database */
	/* A slow path is connected to its exception channel: the NPE hands exceptions up. */
	bool slow_path_up;
	struct sp_hslice *host; /* a host slice's namespace and NAT (hostslice/hslice.h); else NULL */
	/* Its last missed keys (missed.h): written by its NPE's lcore on a miss alone. */
	struct sp_missed missed;
};

/* Code option registry (sp_codeopt_register() is in the public header). */
const struct sp_codeopt *sp_codeopt_find(const char *name);
/* How many registrations were refused (each logged why), e.g. by a loaded object. */
unsigned int sp_codeopt_refused(void);
/* The name of code option i (the registered ones, then host's), NULL past the last. */
const char *sp_codeopt_name(unsigned int i);
/* Names of all registered code options, comma-separated, for error messages. */
void sp_codeopt_names(char *buf, size_t len);

/*
 * Create a slice (zeroed memory block, all queues unbound) and run its code
 * option's slice_init. Returns NULL and writes the reason into err.
 */
struct sp_slice *sp_slice_create(uint16_t id, const char *name, const char *codeopt, uint16_t npe,
				 size_t mem_size, char *err, size_t errlen);
void sp_slice_destroy(struct sp_slice *s);

#endif
