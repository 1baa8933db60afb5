/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node's counters, each listed once. The daemon's per-lcore blocks,
 * stats.get, telemetry, the Prometheus metrics, slicectl and libslicectl
 * all expand these lists, so a counter added here is counted, read and
 * shown everywhere. X(name, what): a packets-and-bytes pair, read as
 * name_pkts and name_bytes; the plain counts are read as name.
 * Drops and exceptions by reason are slicepath/reason.h's list.
 * No DPDK here: slow paths and clients include it too.
 */
#ifndef SLICEPATH_COUNTERS_H
#define SLICEPATH_COUNTERS_H

/* A list's names as an array's elements: {SP_SLICE_COUNTERS(SP_COUNTER_NAME)}. */
#define SP_COUNTER_NAME(name, what) #name,

/*
 * One counter's key as stats.get and telemetry write it, checked against its
 * list when compiled: SP_COUNTER_KEY(SP_PORT_COUNTER, tx_drop, "_pkts") is
 * "tx_drop_pkts", and a name the list lacks does not compile. The suffix is
 * the unit ("_pkts", "_bytes"; "" for a plain count) or a heading's ("_bit/s").
 */
#define SP_COUNTER_KEY(list, name, suffix) ((void)list##_##name, #name suffix)

/* A port's frames. */
#define SP_PORT_COUNTERS(X)                                                                        \
	X(rx, "frames received")                                                                   \
	X(tx, "frames the port took")                                                              \
	X(tx_drop, "frames the port refused (tx_full)")                                            \
	X(to_host, "frames handed to the host's interface (host path)")                            \
	X(from_host, "frames the host's interface sent out of the port")

/* A slice's packets by stage. */
#define SP_SLICE_COUNTERS(X)                                                                       \
	X(rx, "arrived on one of its endpoints (whole frames, policed or not)")                    \
	X(fwd, "queued for output")                                                                \
	X(exception, "handed to the slow path (reasons say why)")                                  \
	X(drop, "dropped, any reason")                                                             \
	X(to_slow_path, "exceptions its channel took; the others counted again by reason")        \
	X(injected, "packets its slow path injected, then counted as fwd, exception or drop")       \
	X(to_netns, "a host slice's: frames written into its network namespace")                  \
	X(from_netns, "a host slice's: frames its namespace sent, then counted as fwd or drop")    \
	X(held, "waited up to 1 s for their next hop's ARP answer, then released or no_neighbor")  \
	X(released, "held ones sent on with the MAC ARP found, then counted as fwd or drop")

/* A slice's plain counts. */
#define SP_SLICE_COUNTS(X)                                                                         \
	X(inject_dropped, "injections refused (bad header or endpoint, no buffer)")

/* An endpoint's packets. */
#define SP_ENDPOINT_COUNTERS(X)                                                                    \
	X(rx, "arrived on it")                                                                     \
	X(tx, "queued for output from it")

/* A queue's packets and bytes. */
#define SP_QUEUE_COUNTERS(X)                                                                       \
	X(enq, "accepted")                                                                         \
	X(sent, "dequeued for transmission")

/* What it holds now (gauges), packets and bytes. */
#define SP_QUEUE_LENGTHS(X)                                                                        \
	X(len, "waiting now")

/*
 * Why a queue refused a packet, each counted in packets and bytes (docs/qm.md).
 * X(ID, name, what): SP_QM_DROP_ID in qm.h.
 */
#define SP_QUEUE_DROPS(X)                                                                          \
	X(BYTES, threshold_bytes, "the queue's byte threshold")                                    \
	X(PKTS, threshold_pkts, "the queue's packet threshold")                                    \
	X(QUOTA, buffer_quota, "the owner's buffer quota")                                         \
	X(FLUSH, flushed, "waiting when the queue was flushed (sp_qm_queue_flush)")

/*
 * ARP answers and neighbor advertisements the neighbor table took, plain
 * counts (the management thread's; stats.get's "arp", telemetry
 * /slicepath/arp). The frames not taken are the reasons arp_ignored and
 * nd_ignored.
 */
#define SP_ARP_COUNTS(X)                                                                           \
	X(learned, "ARP answers the neighbor table took")                                          \
	X(changed, "of those, how many changed a learned neighbor's MAC")                          \
	X(nd_learned, "neighbor advertisements the neighbor table took")                           \
	X(nd_changed, "of those, how many changed a learned neighbor's MAC")

/*
 * A queue's drops, all reasons of SP_QUEUE_DROPS summed: telemetry's
 * SP_QUEUE_DROP "_pkts" and "_bytes" (by reason SP_QUEUE_DROP "_<name>_pkts"),
 * slicectl's DROP_PKTS.
 */
#define SP_QUEUE_DROP "drop"

/* stats.get's node-wide keys beside the lists': residence times (common/latency.h), ARP. */
#define SP_STATS_RESIDENCE "residence_ns"
#define SP_STATS_ARP "arp"

/* A forwarding lcore's share of the work, plain counts (telemetry /slicepath/lcores). */
#define SP_LCORE_WORK_COUNTS(X)                                                                    \
	X(rx_pkts, "frames from its rx queues")                                                    \
	X(crossed_pkts, "of those, handed to an NPE on another lcore (0 where the NIC steers)")    \
	X(npe_pkts, "packets its NPEs took (its own rx, other lcores' rings, slow paths)")

/* The members SP_COUNTER_KEY checks: SP_PORT_COUNTER_rx, SP_QUEUE_LENGTH_len, ... */
#define SP_PORT_COUNTER_MEMBER(name, what) SP_PORT_COUNTER_##name,
#define SP_SLICE_COUNTER_MEMBER(name, what) SP_SLICE_COUNTER_##name,
#define SP_ENDPOINT_COUNTER_MEMBER(name, what) SP_ENDPOINT_COUNTER_##name,
#define SP_QUEUE_COUNTER_MEMBER(name, what) SP_QUEUE_COUNTER_##name,
#define SP_QUEUE_LENGTH_MEMBER(name, what) SP_QUEUE_LENGTH_##name,
enum sp_port_counter { SP_PORT_COUNTERS(SP_PORT_COUNTER_MEMBER) };
enum sp_slice_counter { SP_SLICE_COUNTERS(SP_SLICE_COUNTER_MEMBER) };
enum sp_endpoint_counter { SP_ENDPOINT_COUNTERS(SP_ENDPOINT_COUNTER_MEMBER) };
enum sp_queue_counter { SP_QUEUE_COUNTERS(SP_QUEUE_COUNTER_MEMBER) };
enum sp_queue_length { SP_QUEUE_LENGTHS(SP_QUEUE_LENGTH_MEMBER) };

#endif
