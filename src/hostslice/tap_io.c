/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <unistd.h>

#include <linux/virtio_net.h>
#include <sys/uio.h>

#include <rte_gro.h>
#include <rte_ip.h>
#include <rte_tcp.h>

#include "tap_io.h"

/*
 * A frame's segments: a merged one has one per frame of its GRO call, up to
 * all of them (64 KB of 16-byte segments is more than 64).
 */
#define MAX_IOV RTE_GRO_MAX_BURST_ITEM_NUM

void
sp_tap_mark_tcp(struct rte_mbuf *m, uint16_t ip_hlen, uint16_t tcp_hlen)
{
	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);

	m->packet_type = 0;
	if (m->nb_segs != 1 || rte_ipv4_udptcp_cksum_verify(ip, (const uint8_t *)ip + ip_hlen) != 0)
		return;
	m->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP;
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = ip_hlen;
	m->l4_len = tcp_hlen;
}

/*
 * A merged frame's headers made whole again (GRO sets the lengths, not the
 * checksums) and its virtio-net header: a TCPv4 GSO packet of segments the
 * size of its first one's payload, checksum to be completed (it was
 * verified segment by segment, and the slice's kernel takes it as valid).
 */
static void
merged_header(struct rte_mbuf *m, struct virtio_net_hdr *h)
{
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)((uint8_t *)ip + m->l3_len);
	uint16_t hdrs = (uint16_t)(m->l2_len + m->l3_len + m->l4_len);

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	tcp->cksum = rte_ipv4_phdr_cksum(ip, 0);
	*h = (struct virtio_net_hdr){
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
		.hdr_len = hdrs,
		.gso_size = (uint16_t)(m->data_len - hdrs),
		.csum_start = (uint16_t)(m->l2_len + m->l3_len),
		.csum_offset = offsetof(struct rte_tcp_hdr, cksum),
	};
}

static struct sp_tap_written
write_one(int fd, struct rte_mbuf *m)
{
	bool merged = (m->packet_type & RTE_PTYPE_L4_TCP) && m->nb_segs > 1;
	uint16_t hdrs = (uint16_t)(m->l2_len + m->l3_len + m->l4_len);
	struct sp_tap_written w = {
		.frames = merged ? m->nb_segs : 1,
		/* Each frame merged after the first lost its headers. */
		.bytes = rte_pktmbuf_pkt_len(m) + (merged ? (m->nb_segs - 1u) * hdrs : 0),
	};
	struct virtio_net_hdr h = {.gso_type = VIRTIO_NET_HDR_GSO_NONE};
	struct iovec iov[MAX_IOV + 1];
	int nb = 0;

	if (m->nb_segs > MAX_IOV) {
		w.reason = SP_REASON_MALFORMED;
		return w;
	}
	if (merged)
		merged_header(m, &h);
	iov[nb++] = (struct iovec){&h, sizeof(h)};
	for (struct rte_mbuf *seg = m; seg != NULL; seg = seg->next)
		iov[nb++] = (struct iovec){rte_pktmbuf_mtod(seg, void *), seg->data_len};
	if (writev(fd, iov, nb) < 0)
		w.reason = errno == EAGAIN || errno == ENOBUFS || errno == ENOMEM ?
				   SP_REASON_NETNS_FULL : SP_REASON_NETNS_GONE;
	return w;
}

uint16_t
sp_tap_write_burst(int fd, struct rte_mbuf **pkts, uint16_t n, struct sp_tap_written *out)
{
	static const struct rte_gro_param gro = {
		.gro_types = RTE_GRO_TCP_IPV4,
		.max_flow_num = RTE_GRO_MAX_BURST_ITEM_NUM,
		.max_item_per_flow = RTE_GRO_MAX_BURST_ITEM_NUM,
	};
	uint16_t done = 0;

	for (uint16_t off = 0; off < n; off += RTE_GRO_MAX_BURST_ITEM_NUM) {
		uint16_t k = (uint16_t)RTE_MIN(RTE_GRO_MAX_BURST_ITEM_NUM, (unsigned int)(n - off));

		/* Merged in place: the burst's first k hold the results. */
		k = rte_gro_reassemble_burst(&pkts[off], k, &gro);
		for (uint16_t i = 0; i < k; i++) {
			pkts[done] = pkts[off + i];
			out[done] = write_one(fd, pkts[done]);
			done++;
		}
	}
	return done;
}

uint16_t
sp_tap_read_burst(int fd, struct rte_mempool *mp, struct rte_mbuf **pkts, uint16_t n,
		  bool *failed)
{
	struct virtio_net_hdr h;
	uint16_t got;

	*failed = false;
	if (rte_pktmbuf_alloc_bulk(mp, pkts, n) != 0)
		return 0; /* no buffer now: the interface keeps them */
	for (got = 0; got < n; got++) {
		struct iovec iov[2] = {
			{&h, sizeof(h)},
			{rte_pktmbuf_mtod(pkts[got], void *), rte_pktmbuf_tailroom(pkts[got])},
		};
		ssize_t len = readv(fd, iov, 2);

		if (len <= (ssize_t)sizeof(h)) {
			*failed = len < 0 && errno != EAGAIN && errno != EINTR;
			break;
		}
		pkts[got]->data_len = (uint16_t)(len - sizeof(h));
		pkts[got]->pkt_len = (uint32_t)(len - sizeof(h));
	}
	rte_pktmbuf_free_bulk(&pkts[got], n - got);
	return got;
}
