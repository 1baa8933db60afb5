/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dpi code option: an IPv4 router (codeopts/ipv4/ipv4_hdr.c) that also
 * scans each packet's payload with the slice's regular expressions
 * (Hyperscan, block mode) and puts the lowest matching class in the key's
 * last byte (slicepath/dpi.h), so filters can steer, queue or drop by
 * content. The patterns come through codeopt.load; they are compiled into
 * a database off the fast path, and the database and its scratch space are
 * published together and freed after an RCU grace period.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <hs/hs.h>
#include <rte_common.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include <slicepath/codeopt.h>
#include <slicepath/dpi.h>
#include <slicepath/ipv4.h>

#include "../ipv4/ipv4_hdr.h"
#include "patterns.h"

#define UDP_HDR_LEN 8
#define TCP_MIN_HDR_LEN 20

struct dpi_db {
	hs_database_t *db;    /* NULL: no pattern, nothing matches */
	hs_scratch_t *scratch; /* the slice's NPE lcore alone scans with it */
};

/*
 * Where the payload starts: after the TCP or UDP header of a first
 * fragment, else right after the IPv4 header (whose options parse refused).
 */
static uint32_t
payload_offset(const struct rte_ipv4_hdr *ip, uint32_t len)
{
	uint32_t at = sizeof(*ip);

	if ((rte_be_to_cpu_16(ip->fragment_offset) & RTE_IPV4_HDR_OFFSET_MASK) != 0)
		return at;
	if (ip->next_proto_id == IPPROTO_UDP)
		at += UDP_HDR_LEN;
	else if (ip->next_proto_id == IPPROTO_TCP && len >= at + TCP_MIN_HDR_LEN)
		at += (uint32_t)(((const struct rte_tcp_hdr *)(ip + 1))->data_off >> 4) * 4;
	return RTE_MIN(at, len);
}

static int
lowest_class(unsigned int id, unsigned long long from __rte_unused,
	     unsigned long long to __rte_unused, unsigned int flags __rte_unused, void *ctx)
{
	unsigned int *cls = ctx;

	if (id < *cls)
		*cls = id;
	/* Class 0 cannot be beaten: stop scanning. */
	return id == 0;
}

static uint8_t
classify(const struct dpi_db *d, struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	uint32_t len = rte_pktmbuf_pkt_len(m), at = payload_offset(ip, len);
	unsigned int cls = SP_DPI_NO_CLASS;

	if (d->db != NULL)
		hs_scan(d->db, (const char *)ip + at, len - at, 0, d->scratch, lowest_class, &cls);
	return (uint8_t)cls;
}

static void
parse(struct sp_slice *s, struct rte_mbuf **pkts, uint16_t n)
{
	const struct dpi_db *d = sp_slice_priv(s); /* NULL until loaded */

	for (uint16_t i = 0; i < n; i++) {
		if (!sp_ipv4_parse_one(pkts[i]))
			continue;
		/* Hyperscan scans one block: a payload over several segments is the slow path's. */
		if (!rte_pktmbuf_is_contiguous(pkts[i])) {
			sp_meta_exception(pkts[i], SP_REASON_UNSUPPORTED);
			continue;
		}
		sp_meta(pkts[i])->key.b[SP_DPI_KEY_CLASS] =
			d != NULL ? classify(d, pkts[i]) : SP_DPI_NO_CLASS;
	}
}

static void
release(void *old)
{
	struct dpi_db *d = old;

	if (d == NULL)
		return;
	hs_free_scratch(d->scratch);
	hs_free_database(d->db);
	free(d);
}

/* Compile p; NULL with Hyperscan's reason, and the pattern's line, in err. */
static struct dpi_db *
compile(const struct dpi_patterns *p, char *err, size_t errlen)
{
	struct dpi_db *d = calloc(1, sizeof(*d));
	hs_compile_error_t *ce = NULL;

	if (d == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (p->n == 0)
		return d;
	if (hs_compile_multi((const char *const *)p->expr, p->flags, p->cls, p->n, HS_MODE_BLOCK,
			     NULL, &d->db, &ce) != HS_SUCCESS) {
		if (ce != NULL && ce->expression >= 0 && (unsigned int)ce->expression < p->n)
			snprintf(err, errlen, "line %u (/%s/): Hyperscan cannot compile it: %s",
				 p->line[ce->expression], p->expr[ce->expression], ce->message);
		else
			snprintf(err, errlen, "Hyperscan cannot compile the patterns: %s",
				 ce != NULL ? ce->message : "no reason given");
		hs_free_compile_error(ce);
		free(d);
		return NULL;
	}
	if (hs_alloc_scratch(d->db, &d->scratch) != HS_SUCCESS) {
		snprintf(err, errlen, "out of memory for Hyperscan's scratch space");
		release(d);
		return NULL;
	}
	return d;
}

static int
load(struct sp_slice *s, const void *data, size_t len, void **old, char *err, size_t errlen)
{
	struct dpi_patterns p;
	struct dpi_db *d;

	if (dpi_patterns_parse(data, len, &p, err, errlen) < 0)
		return -EINVAL;
	d = compile(&p, err, errlen);
	dpi_patterns_free(&p);
	if (d == NULL)
		return -EINVAL;
	*old = sp_slice_priv(s);
	sp_slice_set_priv(s, d);
	return 0;
}

static void
slice_fini(struct sp_slice *s)
{
	release(sp_slice_priv(s));
}

static const struct sp_codeopt dpi_codeopt = {
	.name = "dpi",
	.abi_version = SP_CODEOPT_ABI,
	.slice_fini = slice_fini,
	.parse = parse,
	.format = sp_ipv4_format,
	.load = load,
	.release = release,
};

SP_CODEOPT_REGISTER(dpi_codeopt);
