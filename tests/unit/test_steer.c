/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Steering endpoints to their NPE's queue (src/lc/steer.c): the rte_flow
 * rules it builds, byte for byte, and what it asks of a device and does
 * when the device refuses. No device here takes rules (net_tap needs the
 * kernel's flower classifier, absent from this kernel: docs/testing.md), so
 * the device is a stub at the rte_flow calls (-Wl,--wrap in meson.build)
 * that keeps the rules it was given and refuses on demand, as a driver does
 * (rte_flow_error_set: rte_errno, a message).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "node/steer.h"
#include "node/node.h"

#define IP(a, b, c, d) RTE_BE32((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d))
#define MAX_RULES 32
#define MAX_ITEMS 4

/* What a device keeps of a rule: copies, since the caller's items live on its stack. */
union item_bytes {
	struct rte_flow_item_ipv4 ip;
	struct rte_flow_item_udp udp;
	struct rte_flow_item_tcp tcp;
};

struct dev_item {
	enum rte_flow_item_type type;
	bool has_spec;
	union item_bytes spec, mask;
};

struct dev_rule {
	bool live;
	uint16_t port_id;
	struct rte_flow_attr attr;
	struct dev_item item[MAX_ITEMS];
	enum rte_flow_action_type action, action_end;
	uint16_t queue;
};

/* The stubbed device: the rules created (live until destroyed or flushed), the calls. */
static struct {
	struct dev_rule rule[MAX_RULES];
	unsigned int nb_rules;
	unsigned int validates;
	struct dev_rule validated; /* the rule last validated */
	unsigned int flushes[RTE_MAX_ETHPORTS];
	/* Refusals: validate on that port id, or create once `creates_left` reaches 0. */
	int refuse_validate_port;
	int creates_left;
	int refuse_errno;
	const char *refuse_msg;
} dev;

static size_t
item_size(enum rte_flow_item_type type)
{
	switch (type) {
	case RTE_FLOW_ITEM_TYPE_IPV4:
		return sizeof(struct rte_flow_item_ipv4);
	case RTE_FLOW_ITEM_TYPE_UDP:
		return sizeof(struct rte_flow_item_udp);
	case RTE_FLOW_ITEM_TYPE_TCP:
		return sizeof(struct rte_flow_item_tcp);
	default:
		return 0;
	}
}

static void
keep(struct dev_rule *d, uint16_t port_id, const struct rte_flow_attr *attr,
     const struct rte_flow_item pattern[], const struct rte_flow_action actions[])
{
	memset(d, 0, sizeof(*d));
	d->port_id = port_id;
	d->attr = *attr;
	for (int i = 0; i < MAX_ITEMS; i++) {
		size_t n = item_size(pattern[i].type);

		d->item[i].type = pattern[i].type;
		d->item[i].has_spec = pattern[i].spec != NULL;
		assert_true(pattern[i].spec == NULL || n > 0); /* an item this stub does not know */
		if (pattern[i].spec != NULL)
			memcpy(&d->item[i].spec, pattern[i].spec, n);
		if (pattern[i].mask != NULL)
			memcpy(&d->item[i].mask, pattern[i].mask, n);
		if (pattern[i].type == RTE_FLOW_ITEM_TYPE_END)
			break;
	}
	d->action = actions[0].type;
	if (actions[0].type == RTE_FLOW_ACTION_TYPE_QUEUE)
		d->queue = ((const struct rte_flow_action_queue *)actions[0].conf)->index;
	d->action_end = actions[1].type;
}

static int
refuse(struct rte_flow_error *error)
{
	return rte_flow_error_set(error, dev.refuse_errno, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
				  dev.refuse_msg);
}

int __wrap_rte_flow_validate(uint16_t port_id, const struct rte_flow_attr *attr,
			     const struct rte_flow_item pattern[],
			     const struct rte_flow_action actions[], struct rte_flow_error *error);
struct rte_flow *__wrap_rte_flow_create(uint16_t port_id, const struct rte_flow_attr *attr,
					const struct rte_flow_item pattern[],
					const struct rte_flow_action actions[],
					struct rte_flow_error *error);
int __wrap_rte_flow_destroy(uint16_t port_id, struct rte_flow *flow, struct rte_flow_error *error);
int __wrap_rte_flow_flush(uint16_t port_id, struct rte_flow_error *error);

int
__wrap_rte_flow_validate(uint16_t port_id, const struct rte_flow_attr *attr,
			 const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
			 struct rte_flow_error *error)
{
	dev.validates++;
	keep(&dev.validated, port_id, attr, pattern, actions);
	return port_id == dev.refuse_validate_port ? refuse(error) : 0;
}

struct rte_flow *
__wrap_rte_flow_create(uint16_t port_id, const struct rte_flow_attr *attr,
		       const struct rte_flow_item pattern[], const struct rte_flow_action actions[],
		       struct rte_flow_error *error)
{
	struct dev_rule *d;

	if (dev.creates_left-- == 0) {
		refuse(error);
		return NULL;
	}
	assert_true(dev.nb_rules < MAX_RULES);
	d = &dev.rule[dev.nb_rules++];
	keep(d, port_id, attr, pattern, actions);
	d->live = true;
	return (struct rte_flow *)d;
}

int
__wrap_rte_flow_destroy(uint16_t port_id, struct rte_flow *flow, struct rte_flow_error *error)
{
	struct dev_rule *d = (struct dev_rule *)flow;

	(void)error;
	/* One of the device's live rules, on that port: never twice, never another's. */
	assert_true(d >= dev.rule && d < dev.rule + dev.nb_rules);
	assert_true(d->live);
	assert_int_equal(d->port_id, port_id);
	d->live = false;
	return 0;
}

int
__wrap_rte_flow_flush(uint16_t port_id, struct rte_flow_error *error)
{
	(void)error;
	dev.flushes[port_id]++;
	for (unsigned int i = 0; i < dev.nb_rules; i++)
		if (dev.rule[i].port_id == port_id)
			dev.rule[i].live = false;
	return 0;
}

/* An endpoint's rule: frames to ip_be and that port, to rx queue `queue`. */
static void
assert_endpoint_rule(const struct dev_rule *d, enum sp_l4 l4, uint32_t ip_be, uint16_t port_be,
		     uint16_t queue)
{
	union item_bytes spec, mask;

	assert_true(d->attr.ingress && !d->attr.egress && !d->attr.transfer);
	assert_int_equal(d->attr.priority, 0);
	assert_int_equal(d->item[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	assert_false(d->item[0].has_spec); /* any Ethernet frame of the port */
	/* Only the destination address and port: a slice's frames come from anywhere. */
	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	spec.ip.hdr.dst_addr = ip_be;
	mask.ip.hdr.dst_addr = UINT32_MAX;
	assert_int_equal(d->item[1].type, RTE_FLOW_ITEM_TYPE_IPV4);
	assert_memory_equal(&d->item[1].spec.ip, &spec.ip, sizeof(spec.ip));
	assert_memory_equal(&d->item[1].mask.ip, &mask.ip, sizeof(mask.ip));
	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	if (l4 == SP_L4_TCP) {
		spec.tcp.hdr.dst_port = port_be;
		mask.tcp.hdr.dst_port = UINT16_MAX;
		assert_int_equal(d->item[2].type, RTE_FLOW_ITEM_TYPE_TCP);
		assert_memory_equal(&d->item[2].spec.tcp, &spec.tcp, sizeof(spec.tcp));
		assert_memory_equal(&d->item[2].mask.tcp, &mask.tcp, sizeof(mask.tcp));
	} else {
		spec.udp.hdr.dst_port = port_be;
		mask.udp.hdr.dst_port = UINT16_MAX;
		assert_int_equal(d->item[2].type, RTE_FLOW_ITEM_TYPE_UDP);
		assert_memory_equal(&d->item[2].spec.udp, &spec.udp, sizeof(spec.udp));
		assert_memory_equal(&d->item[2].mask.udp, &mask.udp, sizeof(mask.udp));
	}
	assert_int_equal(d->item[3].type, RTE_FLOW_ITEM_TYPE_END);
	assert_int_equal(d->action, RTE_FLOW_ACTION_TYPE_QUEUE);
	assert_int_equal(d->queue, queue);
	assert_int_equal(d->action_end, RTE_FLOW_ACTION_TYPE_END);
}

/* Every frame to queue 0, below the endpoints' rules (a higher number is a lower priority). */
static void
assert_default_rule(const struct dev_rule *d)
{
	assert_true(d->attr.ingress && !d->attr.egress && !d->attr.transfer);
	assert_int_equal(d->attr.priority, 1);
	assert_int_equal(d->item[0].type, RTE_FLOW_ITEM_TYPE_ETH);
	assert_false(d->item[0].has_spec);
	assert_int_equal(d->item[1].type, RTE_FLOW_ITEM_TYPE_END);
	assert_int_equal(d->action, RTE_FLOW_ACTION_TYPE_QUEUE);
	assert_int_equal(d->queue, 0);
	assert_int_equal(d->action_end, RTE_FLOW_ACTION_TYPE_END);
}

static void
test_endpoint_rules(void **state)
{
	struct sp_steer_rule r;
	struct dev_rule d;

	(void)state;
	sp_steer_rule_endpoint(&r, SP_L4_UDP, IP(10, 0, 0, 1), RTE_BE16(5001), 3);
	keep(&d, 0, &r.attr, r.pattern, r.actions);
	assert_endpoint_rule(&d, SP_L4_UDP, IP(10, 0, 0, 1), RTE_BE16(5001), 3);
	/* A host slice's TCP endpoint: the same rule with a TCP item. */
	sp_steer_rule_endpoint(&r, SP_L4_TCP, IP(10, 1, 0, 1), RTE_BE16(8080), 2);
	keep(&d, 0, &r.attr, r.pattern, r.actions);
	assert_endpoint_rule(&d, SP_L4_TCP, IP(10, 1, 0, 1), RTE_BE16(8080), 2);
	sp_steer_rule_default(&r);
	keep(&d, 0, &r.attr, r.pattern, r.actions);
	assert_default_rule(&d);
}

/*
 * The node steer.c reads: p0 (port id 5, RSS) and p1 (port id 9, the
 * device's spreading), two rx queues each for LC lcores 3 (queue 0) and 1
 * (queue 1); NPE 0 on lcore 1, NPE 1 on lcore 3, NPE 2 on lcore 2 (no LC).
 * Slices alpha (NPE 0), beta (NPE 1), gamma (NPE 2). Endpoint slots:
 * 0 alpha UDP 5001 on p0, 1 beta TCP 8080 on p0, 2 alpha UDP 5001 on p1,
 * 3 free, 4 gamma UDP 5003 on p0.
 */
enum { ALPHA = 1, BETA, GAMMA };
#define P0_ID 5
#define P1_ID 9
#define P0_IP IP(10, 0, 0, 1)
#define P1_IP IP(10, 1, 0, 1)

static struct sp_node node;
static enum sp_steering steering[SP_MAX_PORTS]; /* the ports' "steering" */
static struct sp_slice slices[4];
static char *log_text;
static size_t log_len;
static FILE *log_stream;

static void
port(uint16_t p, const char *name, uint16_t id, uint32_t ip_be, bool rss)
{
	snprintf(node.ports[p].name, SP_NAME_LEN, "%s", name);
	node.ports[p].port_id = id;
	node.ports[p].ip_be = ip_be;
	node.ports[p].nb_rxq = 2;
	node.ports[p].rss = rss;
	steering[p] = SP_STEERING_AUTO;
}

static void
endpoint(uint16_t slot, uint16_t slice, uint16_t p, enum sp_l4 l4, uint16_t l4_port)
{
	struct sp_endpoint *ep = &node.endpoints[slot];

	ep->slice = slice;
	ep->port = p;
	ep->l4 = (uint8_t)l4;
	ep->l4_port_be = rte_cpu_to_be_16(l4_port);
	ep->ip_be = node.ports[p].ip_be;
	if (slot >= node.nb_endpoints)
		node.nb_endpoints = slot + 1;
}

static int
setup(void **state)
{
	(void)state;
	memset(&node, 0, sizeof(node));
	memset(&dev, 0, sizeof(dev));
	dev.refuse_validate_port = -1;
	dev.creates_left = -1;
	node.nb_ports = 2;
	port(0, "p0", P0_ID, P0_IP, true);
	port(1, "p1", P1_ID, P1_IP, false);
	node.nb_lc = 2;
	node.lc_lcores[0] = 3;
	node.lc_lcores[1] = 1;
	node.nb_npes = 3;
	node.npes[0].lcore = 1;
	node.npes[1].lcore = 3;
	node.npes[2].lcore = 2;
	for (uint16_t id = ALPHA; id <= GAMMA; id++) {
		slices[id] = (struct sp_slice){.id = id, .npe = id - 1};
		node.slices[id] = &slices[id];
	}
	endpoint(0, ALPHA, 0, SP_L4_UDP, 5001);
	endpoint(1, BETA, 0, SP_L4_TCP, 8080);
	endpoint(2, ALPHA, 1, SP_L4_UDP, 5001);
	endpoint(4, GAMMA, 0, SP_L4_UDP, 5003);
	log_stream = open_memstream(&log_text, &log_len);
	assert_non_null(log_stream);
	rte_openlog_stream(log_stream);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	sp_steer_stop(&node);
	rte_openlog_stream(NULL);
	fclose(log_stream);
	free(log_text);
	unsetenv("NOTIFY_SOCKET");
	return 0;
}

static const char *
logged(void)
{
	fflush(log_stream);
	return log_text;
}

/* The device's live rules on a port id. */
static unsigned int
live_rules(uint16_t port_id)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < dev.nb_rules; i++)
		n += dev.rule[i].live && dev.rule[i].port_id == port_id;
	return n;
}

static void
start_ok(void)
{
	char err[512] = "";

	assert_int_equal(sp_steer_start(&node, steering, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

static void
assert_steered(uint16_t p, uint32_t rules)
{
	assert_string_equal(sp_steer_name(&node, p), "rte_flow");
	assert_string_equal(sp_steer_note(&node, p), "");
	assert_int_equal(sp_steer_rules(&node, p), rules);
}

static void
assert_software(uint16_t p, const char *name, const char *note)
{
	assert_string_equal(sp_steer_name(&node, p), name);
	assert_string_equal(sp_steer_note(&node, p), note);
	assert_int_equal(sp_steer_rules(&node, p), 0);
	assert_int_equal(live_rules(node.ports[p].port_id), 0);
}

/*
 * Each port asked first whether it takes an endpoint's kind of rule, then
 * given the default and a rule per endpoint to the queue of its NPE's LC
 * lcore; free slots and an NPE on no LC lcore get none.
 */
static void
test_start_installs_a_rule_per_endpoint(void **state)
{
	(void)state;
	start_ok();
	assert_int_equal(dev.validates, 2);
	assert_int_equal(dev.validated.port_id, P1_ID);
	assert_endpoint_rule(&dev.validated, SP_L4_UDP, P1_IP, RTE_BE16(1), 0);
	assert_int_equal(dev.nb_rules, 5);
	assert_int_equal(dev.rule[0].port_id, P0_ID);
	assert_default_rule(&dev.rule[0]);
	assert_int_equal(dev.rule[1].port_id, P0_ID);
	assert_endpoint_rule(&dev.rule[1], SP_L4_UDP, P0_IP, RTE_BE16(5001), 1);
	assert_int_equal(dev.rule[2].port_id, P0_ID);
	assert_endpoint_rule(&dev.rule[2], SP_L4_TCP, P0_IP, RTE_BE16(8080), 0);
	assert_int_equal(dev.rule[3].port_id, P1_ID);
	assert_default_rule(&dev.rule[3]);
	assert_int_equal(dev.rule[4].port_id, P1_ID);
	assert_endpoint_rule(&dev.rule[4], SP_L4_UDP, P1_IP, RTE_BE16(5001), 1);
	assert_steered(0, 2);
	assert_steered(1, 1);
	assert_non_null(strstr(logged(), "steer: p0: rte_flow steers 2 endpoint(s) to their NPEs' "
				       "queues\n"));
	/* Stopping removes every rule, port by port. */
	sp_steer_stop(&node);
	assert_int_equal(dev.flushes[P0_ID], 1);
	assert_int_equal(dev.flushes[P1_ID], 1);
	assert_int_equal(live_rules(P0_ID) + live_rules(P1_ID), 0);
}

/* Ports of one queue and ports set to "software": nothing asked of their device. */
static void
test_no_rule_asked_where_not_wanted(void **state)
{
	(void)state;
	node.ports[0].nb_rxq = 1;
	steering[1] = SP_STEERING_SOFTWARE;
	start_ok();
	assert_int_equal(dev.validates, 0);
	assert_int_equal(dev.nb_rules, 0);
	assert_software(0, "one queue", "");
	assert_software(1, "device", "\"steering\": \"software\"");
	sp_steer_endpoint_added(&node, 0);
	assert_int_equal(dev.nb_rules, 0);
	sp_steer_stop(&node);
	assert_int_equal(dev.flushes[P0_ID] + dev.flushes[P1_ID], 0);
}

/* Endpoints reserved, released, and their slice moved to another NPE, at run time. */
static void
test_rules_follow_endpoints(void **state)
{
	(void)state;
	start_ok();
	endpoint(5, BETA, 1, SP_L4_UDP, 5002);
	sp_steer_endpoint_added(&node, 5);
	assert_int_equal(dev.nb_rules, 6);
	assert_int_equal(dev.rule[5].port_id, P1_ID);
	assert_endpoint_rule(&dev.rule[5], SP_L4_UDP, P1_IP, RTE_BE16(5002), 0);
	assert_steered(1, 2);

	sp_steer_endpoint_removed(&node, 0); /* alpha's rule on p0 goes, and only it */
	assert_false(dev.rule[1].live);
	assert_int_equal(live_rules(P0_ID), 2);
	assert_steered(0, 1);
	sp_steer_endpoint_removed(&node, 4); /* gamma's: it had none */
	assert_int_equal(live_rules(P0_ID), 2);
	assert_steered(0, 1);

	/* beta to NPE 0 (slice_move.c): its rules now send to queue 1. */
	slices[BETA].npe = 0;
	sp_steer_endpoint_removed(&node, 1);
	sp_steer_endpoint_added(&node, 1);
	sp_steer_endpoint_removed(&node, 5);
	sp_steer_endpoint_added(&node, 5);
	assert_false(dev.rule[2].live);
	assert_false(dev.rule[5].live);
	assert_int_equal(dev.nb_rules, 8);
	assert_endpoint_rule(&dev.rule[6], SP_L4_TCP, P0_IP, RTE_BE16(8080), 1);
	assert_endpoint_rule(&dev.rule[7], SP_L4_UDP, P1_IP, RTE_BE16(5002), 1);
	assert_steered(0, 1);
	assert_steered(1, 2);
	assert_int_equal(live_rules(P0_ID), 2);
	assert_int_equal(live_rules(P1_ID), 3);
}

/* A datagram socket standing in for systemd's NOTIFY_SOCKET. */
static int
notify_socket(char *path, size_t len)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	snprintf(path, len, "/tmp/sp-test-steer-%d.sock", getpid());
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setenv("NOTIFY_SOCKET", path, 1);
	return fd;
}

static void
assert_notified(int fd, const char *want)
{
	char buf[256];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

/*
 * A rule refused while the node forwards (a full table): the port is
 * steered in software from then on, its other rules removed, said in
 * node.info's words, the log and systemd's status; the other port keeps
 * its rules, and the port asks its device nothing more.
 */
static void
test_refused_at_run_time_falls_back(void **state)
{
	char path[108];
	int fd = notify_socket(path, sizeof(path));
	unsigned int created;

	(void)state;
	start_ok();
	sp_steer_notify(&node, true);
	assert_notified(fd, "READY=1\nSTATUS=forwarding; steering: p0 rte_flow, p1 rte_flow");
	dev.creates_left = 0;
	dev.refuse_errno = ENOSPC;
	dev.refuse_msg = "flow table full";
	endpoint(5, BETA, 0, SP_L4_UDP, 5002);
	sp_steer_endpoint_added(&node, 5);
	assert_software(0, "rss", "the device refused the rule of UDP port 5002 to queue 0: "
			"flow table full (No space left on device)");
	assert_steered(1, 1);
	assert_int_equal(live_rules(P1_ID), 2);
	assert_non_null(strstr(logged(), "steer: p0: steering endpoints in software (rss): the "
				       "device refused the rule of UDP port 5002 to queue 0: "
				       "flow table full (No space left on device)\n"));
	assert_notified(fd, "STATUS=forwarding; steering: p0 rss, p1 rte_flow");
	close(fd);
	unlink(path);

	dev.creates_left = -1;
	created = dev.nb_rules;
	sp_steer_endpoint_removed(&node, 5);
	sp_steer_endpoint_added(&node, 5);
	assert_int_equal(dev.nb_rules, created);
	assert_software(0, "rss", "the device refused the rule of UDP port 5002 to queue 0: "
			"flow table full (No space left on device)");
	sp_steer_stop(&node);
	assert_int_equal(dev.flushes[P0_ID], 0);
	assert_int_equal(dev.flushes[P1_ID], 1);
}

/* A driver without rte_flow: validate says so, nothing is created on that port. */
static void
test_validate_refused_at_start(void **state)
{
	(void)state;
	dev.refuse_validate_port = P1_ID;
	dev.refuse_errno = ENOSYS;
	dev.refuse_msg = strerror(ENOSYS); /* as ethdev says it for a driver without rte_flow */
	start_ok();
	assert_software(1, "device", "the device takes no rte_flow rule of destination IPv4 and "
			"UDP port to a queue: Function not implemented");
	for (unsigned int i = 0; i < dev.nb_rules; i++)
		assert_int_equal(dev.rule[i].port_id, P0_ID);
	assert_steered(0, 2);
	assert_non_null(strstr(logged(), "steer: p1: steering endpoints in software (device): the "
				       "device takes no rte_flow rule"));
}

/* net_tap on this kernel: validate passes, creating the default rule does not. */
static void
test_default_refused_at_start(void **state)
{
	(void)state;
	dev.creates_left = 0;
	dev.refuse_errno = EEXIST;
	dev.refuse_msg = "overlapping rules or Kernel too old for flower support";
	start_ok();
	assert_software(0, "rss", "the device refused the default rule (every other frame to "
			"queue 0): overlapping rules or Kernel too old for flower support (File "
			"exists)");
	assert_steered(1, 1);
}

/* An endpoint's rule refused at start: the port's rules made so far are removed. */
static void
test_endpoint_refused_at_start(void **state)
{
	(void)state;
	dev.creates_left = 2; /* p0's default and alpha's */
	dev.refuse_errno = ENOTSUP;
	dev.refuse_msg = "no TCP match";
	start_ok();
	assert_software(0, "rss", "the device refused the rule of TCP port 8080 to queue 0: "
			"no TCP match (Operation not supported)");
	assert_false(dev.rule[0].live);
	assert_false(dev.rule[1].live);
	assert_steered(1, 1);
}

/* "steering": "rte_flow" and a refusal: the node does not start, and no rule stays. */
static void
test_rte_flow_refused_stops_the_start(void **state)
{
	char err[512];

	(void)state;
	steering[0] = SP_STEERING_RTE_FLOW;
	dev.creates_left = 2;
	dev.refuse_errno = ENOTSUP;
	dev.refuse_msg = "no TCP match";
	assert_int_equal(sp_steer_start(&node, steering, err, sizeof(err)), -ENOTSUP);
	assert_string_equal(err, "port p0: \"steering\": \"rte_flow\", but the device refused the "
			    "rule of TCP port 8080 to queue 0: no TCP match (Operation not "
			    "supported); set it to \"auto\" or \"software\" to steer in software "
			    "(docs/config.md)");
	sp_steer_stop(&node); /* as sp_node_init() does on failure */
	assert_int_equal(live_rules(P0_ID), 0);
}

#define ON_NODE(t) cmocka_unit_test_setup_teardown(t, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endpoint_rules),
		ON_NODE(test_start_installs_a_rule_per_endpoint),
		ON_NODE(test_no_rule_asked_where_not_wanted),
		ON_NODE(test_rules_follow_endpoints),
		ON_NODE(test_refused_at_run_time_falls_back),
		ON_NODE(test_validate_refused_at_start),
		ON_NODE(test_default_refused_at_start),
		ON_NODE(test_endpoint_refused_at_start),
		ON_NODE(test_rte_flow_refused_stops_the_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
