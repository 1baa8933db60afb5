/* SPDX-License-Identifier: BSD-3-Clause */
#include "fuzz_pkt.h"

struct rte_mbuf *
sp_fuzz_mbuf(const uint8_t *bytes, size_t len, size_t split, uint8_t fill)
{
	struct rte_mbuf *m = sp_test_mbuf(bytes, len, split, fill);

	SP_TEST_CHECK(m != NULL, "packet pool empty: packets leak");
	return m;
}

void
sp_fuzz_check_left(const struct sp_meta *meta)
{
	SP_TEST_CHECK(meta->verdict == SP_EXCEPTION || meta->verdict == SP_DROP,
		      "verdict %u after parse()", meta->verdict);
	SP_TEST_CHECK(meta->reason > SP_REASON_NONE && meta->reason < SP_REASON_MAX,
		      "verdict %u with reason %u", meta->verdict, meta->reason);
}

void
sp_fuzz_free_all(struct rte_mempool *mp, struct rte_mbuf *m, unsigned int in_use)
{
	rte_pktmbuf_free(m);
	SP_TEST_CHECK(rte_mempool_in_use_count(mp) == in_use,
		      "%u packets in use before, %u after", in_use, rte_mempool_in_use_count(mp));
}
