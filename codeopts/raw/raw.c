/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "raw" code option: the key is the first 14 bytes of the slice's packet
 * (zero-padded), and the packet leaves untouched, so filters can match any
 * header layout. Built as a shared object, it is also the worked example of
 * a code option loaded at start-up through the config's "codeopt_libs".
 */
#include <string.h>

#include <rte_common.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include <slicepath/codeopt.h>

/* A line in the daemon's log through the ABI's own logger: what the slice's filters match. */
static int
slice_init(struct sp_slice *s)
{
	sp_slice_log(s, RTE_LOG_INFO, "filters match the first %d bytes of each packet",
		     SP_KEY_BYTES);
	return 0;
}

static void
parse(struct sp_slice *s __rte_unused, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t i = 0; i < n; i++) {
		struct sp_key *k = &sp_meta(pkts[i])->key;
		uint32_t len = RTE_MIN(rte_pktmbuf_pkt_len(pkts[i]), (uint32_t)SP_KEY_BYTES);
		uint8_t buf[SP_KEY_BYTES];
		const void *head;

		if (len == 0) {
			sp_meta_drop(pkts[i], SP_REASON_MALFORMED);
			continue;
		}
		/* A pointer into the packet, or a copy in buf if the bytes span segments. */
		head = rte_pktmbuf_read(pkts[i], 0, len, buf);
		memset(k->b, 0, sizeof(k->b));
		memcpy(k->b, head, len);
	}
}

static void
format(struct sp_slice *s __rte_unused, struct rte_mbuf **pkts __rte_unused,
       uint16_t n __rte_unused)
{
}

static const struct sp_codeopt raw_codeopt = {
	.name = "raw",
	.abi_version = SP_CODEOPT_ABI,
	.slice_init = slice_init,
	.parse = parse,
	.format = format,
};

SP_CODEOPT_REGISTER(raw_codeopt);
