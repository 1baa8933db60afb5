/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering endpoints to their NPE with the NIC's rte_flow: on a port of
 * several rx queues (one an LC lcore), a rule per endpoint sends its frames
 * (destination the port's IPv4 address, UDP its port) to the rx queue of
 * the LC lcore that runs the slice's NPE, which then takes them from rx to
 * tx on one core; a lower-priority rule sends everything else (ARP, ICMP,
 * ports no slice holds) to queue 0. Rules follow the endpoints' reserve and
 * release at run time.
 *
 * Correctness never rests on a rule: every LC lcore demultiplexes by the
 * slice's NPE and hands a frame that reached the wrong queue over a ring.
 * So a port whose device refuses a rule (no rte_flow, no QUEUE action, a
 * full table) is steered in software from then on (its rules removed,
 * RSS or the device's own spreading in force), with the reason logged and
 * shown by node.info, /slicepath/ports and slicectl node, and traffic
 * goes on.
 */
#ifndef SP_STEER_H
#define SP_STEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_flow.h>

#include "../common/steering.h"
#include "../decap/decap.h"

struct sp_node;

/* An rte_flow rule of one endpoint, or the default, with what its items point to. */
struct sp_steer_rule {
	struct rte_flow_attr attr;
	struct rte_flow_item_ipv4 ip_spec, ip_mask;
	struct rte_flow_item_udp udp_spec, udp_mask;
	struct rte_flow_item_tcp tcp_spec, tcp_mask; /* a host slice's TCP endpoint */
	struct rte_flow_action_queue queue;
	struct rte_flow_item pattern[4];
	struct rte_flow_action actions[2];
};

/* Frames to ip_be and UDP (or TCP, l4: enum sp_l4) port port_be, network order, to rx queue `queue`. */
void sp_steer_rule_endpoint(struct sp_steer_rule *r, enum sp_l4 l4, uint32_t ip_be, uint16_t port_be,
			    uint16_t queue);
/* Every other frame to queue 0, below the endpoints' rules. */
void sp_steer_rule_default(struct sp_steer_rule *r);

/*
 * At start, the node's ports and slices in place: rules on every port of
 * several rx queues whose steering[] (one a port) is not "software". A
 * port set to "rte_flow" whose device refuses one: -ENOTSUP and a message
 * in err (the node does not start); "auto": software steering, logged.
 */
int sp_steer_start(struct sp_node *node, const enum sp_steering *steering, char *err,
		   size_t errlen);
/* Remove every rule (before the ports close). */
void sp_steer_stop(struct sp_node *node);

/* Endpoint slot's rule, after its reservation is in the decap table / before it leaves. */
void sp_steer_endpoint_added(struct sp_node *node, uint16_t slot);
void sp_steer_endpoint_removed(struct sp_node *node, uint16_t slot);

/* Port p's steering in words: "rte_flow", else sp_port_steering()'s. */
const char *sp_steer_name(const struct sp_node *node, uint16_t p);
/* Why port p is not steered by rte_flow though it has several queues ("" if it is, or has one). */
const char *sp_steer_note(const struct sp_node *node, uint16_t p);
/* Endpoint rules in force on port p. */
uint32_t sp_steer_rules(const struct sp_node *node, uint16_t p);

/*
 * Tell systemd (STATUS=, systemctl status) that the node forwards and how
 * each port is steered: "forwarding; steering: p0 rte_flow, p1 rss"; with
 * ready, READY=1 too. Again whenever a port falls back at run time.
 */
void sp_steer_notify(const struct sp_node *node, bool ready);

#endif
