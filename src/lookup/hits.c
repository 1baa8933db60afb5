/* SPDX-License-Identifier: BSD-3-Clause */
#include "hits.h"

#include <errno.h>
#include <stdlib.h>

#include <rte_common.h>
#include <rte_malloc.h>

int
lk_hits_init(struct lk_hits *h, uint32_t n, int socket)
{
	h->n = n;
	h->count = rte_zmalloc_socket("lk_hits", n * sizeof(h->count[0]), RTE_CACHE_LINE_SIZE,
				      socket);
	h->total = calloc(n, sizeof(h->total[0]));
	h->seen = calloc(n, sizeof(h->seen[0]));
	if (h->count == NULL || h->total == NULL || h->seen == NULL) {
		lk_hits_free(h);
		return -ENOMEM;
	}
	return 0;
}

void
lk_hits_free(struct lk_hits *h)
{
	rte_free(h->count);
	free(h->total);
	free(h->seen);
	h->count = NULL;
	h->total = NULL;
	h->seen = NULL;
}

void
lk_hits_fold(struct lk_hits *h)
{
	for (uint32_t pos = 0; pos < h->n; pos++) {
		uint32_t now = __atomic_load_n(&h->count[pos], __ATOMIC_RELAXED);

		h->total[pos] += (uint32_t)(now - h->seen[pos]);
		h->seen[pos] = now;
	}
}

uint64_t
lk_hits_now(const struct lk_hits *h, uint32_t pos)
{
	return h->total[pos] +
	       (uint32_t)(__atomic_load_n(&h->count[pos], __ATOMIC_RELAXED) - h->seen[pos]);
}
