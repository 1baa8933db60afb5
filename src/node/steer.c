/* SPDX-License-Identifier: BSD-3-Clause */
#include "steer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>

#include "../common/log.h"
#include "../common/notify.h"
#include "node.h"

SP_LOG_TYPE("steer")

#define NOTE_LEN 256

struct sp_steer {
	bool on[SP_MAX_PORTS];                  /* rules steer the port */
	struct rte_flow *dflt[SP_MAX_PORTS];    /* its default rule */
	uint32_t nb_rules[SP_MAX_PORTS];        /* its endpoint rules */
	char note[SP_MAX_PORTS][NOTE_LEN];      /* why not, where it has several queues */
	struct rte_flow *rule[SP_MAX_ENDPOINTS]; /* an endpoint slot's rule, or NULL */
	bool notified; /* systemd was told the node is ready: tell it of changes */
};

static void
rule_common(struct sp_steer_rule *r, uint32_t priority, uint16_t queue)
{
	r->attr = (struct rte_flow_attr){.ingress = 1, .priority = priority};
	r->queue.index = queue;
	r->actions[0] = (struct rte_flow_action){.type = RTE_FLOW_ACTION_TYPE_QUEUE,
						 .conf = &r->queue};
	r->actions[1] = (struct rte_flow_action){.type = RTE_FLOW_ACTION_TYPE_END};
}

void
sp_steer_rule_endpoint(struct sp_steer_rule *r, enum sp_l4 l4, uint32_t ip_be, uint16_t port_be,
		       uint16_t queue)
{
	memset(r, 0, sizeof(*r));
	r->ip_spec.hdr.dst_addr = ip_be;
	r->ip_mask.hdr.dst_addr = UINT32_MAX;
	r->pattern[0] = (struct rte_flow_item){.type = RTE_FLOW_ITEM_TYPE_ETH};
	r->pattern[1] = (struct rte_flow_item){.type = RTE_FLOW_ITEM_TYPE_IPV4,
					       .spec = &r->ip_spec, .mask = &r->ip_mask};
	if (l4 == SP_L4_TCP) {
		r->tcp_spec.hdr.dst_port = port_be;
		r->tcp_mask.hdr.dst_port = UINT16_MAX;
		r->pattern[2] = (struct rte_flow_item){.type = RTE_FLOW_ITEM_TYPE_TCP,
						       .spec = &r->tcp_spec, .mask = &r->tcp_mask};
	} else {
		r->udp_spec.hdr.dst_port = port_be;
		r->udp_mask.hdr.dst_port = UINT16_MAX;
		r->pattern[2] = (struct rte_flow_item){.type = RTE_FLOW_ITEM_TYPE_UDP,
							 .spec = &r->udp_spec, .mask = &r->udp_mask};
	}
	r->pattern[3] = (struct rte_flow_item){.type = RTE_FLOW_ITEM_TYPE_END};
	rule_common(r, 0, queue);
}

void
sp_steer_rule_default(struct sp_steer_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->pattern[0] = (struct rte_flow_item){.type = RTE_FLOW_ITEM_TYPE_ETH};
	r->pattern[1] = (struct rte_flow_item){.type = RTE_FLOW_ITEM_TYPE_END};
	rule_common(r, 1, 0);
}

/* The rx queue of the LC lcore that runs the NPE of the endpoint's slice, or -1: none. */
static int
endpoint_queue(const struct sp_node *node, const struct sp_endpoint *ep)
{
	const struct sp_slice *s = node->slices[ep->slice];

	return s == NULL ? -1 : sp_node_lc_index(node, node->npes[s->npe].lcore);
}

static void
flow_error_text(const struct rte_flow_error *fe, int rc, char *buf, size_t len)
{
	/* Drivers without rte_flow give the errno's text as the message. */
	if (fe->message == NULL || strcmp(fe->message, strerror(-rc)) == 0)
		snprintf(buf, len, "%s", strerror(-rc));
	else
		snprintf(buf, len, "%s (%s)", fe->message, strerror(-rc));
}

/* Port p steered in software from now on: its rules gone, why kept. */
static void
fall_back(struct sp_node *node, uint16_t p, const char *why)
{
	struct sp_steer *st = node->steer;
	uint16_t pid = node->ports[p].port_id;
	struct rte_flow_error fe;

	for (uint16_t i = 0; i < SP_MAX_ENDPOINTS; i++) {
		if (st->rule[i] != NULL && node->endpoints[i].port == p) {
			rte_flow_destroy(pid, st->rule[i], &fe);
			st->rule[i] = NULL;
		}
	}
	if (st->dflt[p] != NULL)
		rte_flow_destroy(pid, st->dflt[p], &fe);
	st->dflt[p] = NULL;
	st->on[p] = false;
	st->nb_rules[p] = 0;
	snprintf(st->note[p], NOTE_LEN, "%s", why);
	SP_LOG(WARNING, "%s: steering endpoints in software (%s): %s", node->ports[p].name,
	       sp_port_steering(&node->ports[p]), why);
	if (st->notified)
		sp_steer_notify(node, false);
}

/* Install slot's rule where its port is steered by rules: 0, or why not in err. */
static int
add_rule(struct sp_node *node, uint16_t slot, char *err, size_t errlen)
{
	struct sp_steer *st = node->steer;
	const struct sp_endpoint *ep = &node->endpoints[slot];
	int queue = endpoint_queue(node, ep);
	struct rte_flow_error fe = {0};
	struct sp_steer_rule r;
	char text[128];
	int rc;

	if (!st->on[ep->port] || queue < 0)
		return 0; /* an NPE on no LC lcore: its frames cross from queue 0's LC */
	sp_steer_rule_endpoint(&r, ep->l4, ep->ip_be, ep->l4_port_be, (uint16_t)queue);
	st->rule[slot] = rte_flow_create(node->ports[ep->port].port_id, &r.attr, r.pattern,
					 r.actions, &fe);
	if (st->rule[slot] != NULL) {
		st->nb_rules[ep->port]++;
		return 0;
	}
	rc = rte_errno != 0 ? -rte_errno : -EIO;
	flow_error_text(&fe, rc, text, sizeof(text));
	snprintf(err, errlen, "the device refused the rule of %s port %u to queue %d: %s",
		 sp_l4_name(ep->l4), rte_be_to_cpu_16(ep->l4_port_be), queue, text);
	return rc;
}

/* Rules on port p: the default, then every endpoint's. 0, or why not in err. */
static int
steer_port(struct sp_node *node, uint16_t p, char *err, size_t errlen)
{
	struct sp_steer *st = node->steer;
	struct rte_flow_error fe = {0};
	struct sp_steer_rule r;
	char text[128];
	int rc;

	sp_steer_rule_endpoint(&r, SP_L4_UDP, node->ports[p].ip_be, rte_cpu_to_be_16(1), 0);
	rc = rte_flow_validate(node->ports[p].port_id, &r.attr, r.pattern, r.actions, &fe);
	if (rc < 0) {
		flow_error_text(&fe, rc, text, sizeof(text));
		snprintf(err, errlen, "the device takes no rte_flow rule of destination IPv4 and "
			 "UDP port to a queue: %s", text);
		return rc;
	}
	sp_steer_rule_default(&r);
	st->on[p] = true;
	st->dflt[p] = rte_flow_create(node->ports[p].port_id, &r.attr, r.pattern, r.actions, &fe);
	if (st->dflt[p] == NULL) {
		rc = rte_errno != 0 ? -rte_errno : -EIO;
		flow_error_text(&fe, rc, text, sizeof(text));
		snprintf(err, errlen, "the device refused the default rule (every other frame to "
			 "queue 0): %s", text);
		return rc;
	}
	for (uint16_t i = 0; i < node->nb_endpoints; i++) {
		if (node->endpoints[i].slice == 0 || node->endpoints[i].port != p)
			continue;
		rc = add_rule(node, i, err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
sp_steer_start(struct sp_node *node, const enum sp_steering *steering, char *err, size_t errlen)
{
	char why[NOTE_LEN];

	node->steer = calloc(1, sizeof(*node->steer));
	if (node->steer == NULL) {
		snprintf(err, errlen, "out of memory for the steering rules");
		return -ENOMEM;
	}
	for (uint16_t p = 0; p < node->nb_ports; p++) {
		const char *name = node->ports[p].name;
		int rc;

		if (node->ports[p].nb_rxq == 1)
			continue;
		if (steering[p] == SP_STEERING_SOFTWARE) {
			snprintf(node->steer->note[p], NOTE_LEN, "\"steering\": \"software\"");
			continue;
		}
		rc = steer_port(node, p, why, sizeof(why));
		if (rc < 0 && steering[p] == SP_STEERING_RTE_FLOW) {
			snprintf(err, errlen, "port %s: \"steering\": \"rte_flow\", but %s; set it "
				 "to \"auto\" or \"software\" to steer in software (docs/config.md)",
				 name, why);
			return rc;
		}
		if (rc < 0)
			fall_back(node, p, why);
		else
			SP_LOG(INFO, "%s: rte_flow steers %u endpoint(s) to their NPEs' queues",
			       name, node->steer->nb_rules[p]);
	}
	return 0;
}

void
sp_steer_stop(struct sp_node *node)
{
	struct rte_flow_error fe;

	if (node->steer == NULL)
		return;
	for (uint16_t p = 0; p < node->nb_ports; p++)
		if (node->steer->on[p])
			rte_flow_flush(node->ports[p].port_id, &fe);
	free(node->steer);
	node->steer = NULL;
}

void
sp_steer_endpoint_added(struct sp_node *node, uint16_t slot)
{
	char why[NOTE_LEN];

	if (node->steer != NULL && add_rule(node, slot, why, sizeof(why)) < 0)
		fall_back(node, node->endpoints[slot].port, why);
}

void
sp_steer_endpoint_removed(struct sp_node *node, uint16_t slot)
{
	struct sp_steer *st = node->steer;
	struct rte_flow_error fe;
	uint16_t p = node->endpoints[slot].port;

	if (st == NULL || st->rule[slot] == NULL)
		return;
	rte_flow_destroy(node->ports[p].port_id, st->rule[slot], &fe);
	st->rule[slot] = NULL;
	st->nb_rules[p]--;
}

const char *
sp_steer_name(const struct sp_node *node, uint16_t p)
{
	return node->steer != NULL && node->steer->on[p] ? "rte_flow"
							 : sp_port_steering(&node->ports[p]);
}

const char *
sp_steer_note(const struct sp_node *node, uint16_t p)
{
	return node->steer != NULL ? node->steer->note[p] : "";
}

uint32_t
sp_steer_rules(const struct sp_node *node, uint16_t p)
{
	return node->steer != NULL ? node->steer->nb_rules[p] : 0;
}

void
sp_steer_notify(const struct sp_node *node, bool ready)
{
	char status[SP_MAX_PORTS * (SP_NAME_LEN + 16) + 64];
	int off = snprintf(status, sizeof(status), "%sSTATUS=forwarding; steering:",
			   ready ? "READY=1\n" : "");

	for (uint16_t p = 0; p < node->nb_ports; p++)
		off += snprintf(status + off, sizeof(status) - (size_t)off, "%s %s %s",
				p > 0 ? "," : "", node->ports[p].name, sp_steer_name(node, p));
	sp_notify(status);
	if (node->steer != NULL)
		node->steer->notified = true;
}
