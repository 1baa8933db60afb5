/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The methods of the control API (docs/api.md), each written once with
 * who serves it and the parameters each server takes; the servers'
 * dispatchers, their "no method" message and their refusal of an unknown
 * parameter all come from this list. No DPDK here: clients include it too.
 */
#ifndef SLICEPATH_METHODS_H
#define SLICEPATH_METHODS_H

/* Who serves a method. */
#define SP_ON_CTLD  1u /* slicectld's public socket */
#define SP_ON_MGMT  2u /* slicepathd's management socket */
#define SP_ON_FLEET 4u /* the fleet's registry in etcd (slicectl --cluster) */
#define SP_ON_ALL (SP_ON_CTLD | SP_ON_MGMT | SP_ON_FLEET)

/*
 * X(ID, "name", served by, parameters). The parameters are groups
 * P(takers, "names"), each name in one group of its method. takers:
 *   all     every server of the method;
 *   public  slicectld and the fleet (the API users write), not slicepathd;
 *   ctld, mgmt, fleet  that server only.
 * The order is the one the "no method" message lists.
 */
#define SP_METHODS(X, P)                                                                           \
	X(WHOAMI, "whoami", SP_ON_CTLD, )                                                          \
	X(IFACE_LIST, "iface.list", SP_ON_CTLD, )                                                  \
	X(SLICE_CREATE, "slice.create", SP_ON_ALL,                                                 \
	  P(all, "name codeopt owner npe memory filter_quota queue_quota buffer_quota netns "      \
		 "nat_ports")                                                                      \
	  P(public, "bandwidth inbound create_netns")                                              \
	  P(mgmt, "id managed nat_first")                                                          \
	  P(fleet, "nodes"))                                                                       \
	X(SLICE_DELETE, "slice.delete", SP_ON_ALL, P(all, "slice"))                                \
	X(SLICE_MOVE, "slice.move", SP_ON_CTLD | SP_ON_MGMT, P(all, "slice npe"))                  \
	X(SLICE_LIST, "slice.list", SP_ON_ALL, )                                                   \
	X(SLICE_STATUS, "slice.status", SP_ON_FLEET, P(all, "slice"))                              \
	X(SLICE_REPLACE, "slice.replace", SP_ON_FLEET, P(all, "slice node"))                       \
	X(NAT_LIST, "nat.list", SP_ON_CTLD | SP_ON_MGMT, P(all, "slice"))                          \
	X(EXCEPTION_CHANNEL, "exception.channel", SP_ON_CTLD, P(all, "slice"))                     \
	X(ENDPOINT_RESERVE, "endpoint.reserve", SP_ON_ALL,                                         \
	  P(all, "slice port udp_port tcp_port bandwidth inbound")                                 \
	  P(ctld, "until_exit")                                                                    \
	  P(mgmt, "index"))                                                                        \
	X(ENDPOINT_RELEASE, "endpoint.release", SP_ON_ALL, P(all, "slice endpoint"))               \
	X(QUEUE_BIND, "queue.bind", SP_ON_ALL,                                                     \
	  P(all, "slice queue endpoint threshold threshold_packets share"))                        \
	X(QUEUE_SET, "queue.set", SP_ON_ALL,                                                       \
	  P(all, "slice queue threshold threshold_packets share"))                                 \
	X(QUEUE_UNBIND, "queue.unbind", SP_ON_ALL, P(all, "slice queue"))                          \
	X(FILTER_INSERT, "filter.insert", SP_ON_ALL,                                               \
	  P(all, "slice position key mask result filters"))                                        \
	X(FILTER_DELETE, "filter.delete", SP_ON_ALL, P(all, "slice position"))                     \
	X(FILTER_LIST, "filter.list", SP_ON_ALL, P(all, "slice"))                                  \
	X(MEM_READ, "mem.read", SP_ON_CTLD | SP_ON_MGMT, P(all, "slice offset length"))            \
	X(MEM_WRITE, "mem.write", SP_ON_CTLD | SP_ON_MGMT, P(all, "slice offset data"))            \
	X(CODEOPT_LOAD, "codeopt.load", SP_ON_CTLD | SP_ON_MGMT, P(all, "slice data"))             \
	X(STATS_GET, "stats.get", SP_ON_CTLD | SP_ON_MGMT, P(all, "slice"))                        \
	X(STATS_MISSED, "stats.missed", SP_ON_CTLD | SP_ON_MGMT, P(all, "slice"))                  \
	X(STATE_DUMP, "state.dump", SP_ON_CTLD | SP_ON_MGMT, )                                     \
	X(METRICS_TEXT, "metrics.text", SP_ON_CTLD, )                                              \
	X(SCHED_SET, "sched.set", SP_ON_CTLD | SP_ON_MGMT, P(all, "npe port rate overhead"))       \
	X(NODE_INFO, "node.info", SP_ON_MGMT, )                                                    \
	X(NODE_LIST, "node.list", SP_ON_FLEET, )                                                   \
	X(POLICY_GET, "policy.get", SP_ON_FLEET, )                                                 \
	X(POLICY_SET, "policy.set", SP_ON_FLEET, P(all, "replace_down_after"))                     \
	X(REPLAY_STATUS, "replay.status", SP_ON_CTLD, )                                            \
	X(CODEOPT_LIST, "codeopt.list", SP_ON_CTLD, )

/* The methods as numbers: SP_METHOD_SLICE_CREATE... */
enum sp_method_id {
#define SP_METHOD_ENUM_(id, name, on, params) SP_METHOD_##id,
	SP_METHODS(SP_METHOD_ENUM_, )
#undef SP_METHOD_ENUM_
	SP_METHOD_COUNT
};

/* Their names, for clients' calls: SP_M_SLICE_CREATE is "slice.create"... (each file
 * includes them all and uses a few). */
#define SP_METHOD_NAME_(id, name, on, params)                                                      \
	static const char SP_M_##id[] __attribute__((unused)) = name;
SP_METHODS(SP_METHOD_NAME_, )
#undef SP_METHOD_NAME_

/* Who serves each: SP_METHOD_ON_SLICE_CREATE... (constants, for registrations' checks). */
enum {
#define SP_METHOD_ON_(id, name, on, params) SP_METHOD_ON_##id = (on),
	SP_METHODS(SP_METHOD_ON_, )
#undef SP_METHOD_ON_
};

/*
 * P for one server: the group's names (and a space) if that server takes
 * them, else nothing. A row's parameters for slicepathd are then the string
 * "" SP_METHODS' params with P = SP_TAKEN_BY_MGMT.
 */
#define SP_TAKEN_BY_CTLD(takers, names) SP_TAKEN_##takers##_CTLD(names)
#define SP_TAKEN_BY_MGMT(takers, names) SP_TAKEN_##takers##_MGMT(names)
#define SP_TAKEN_BY_FLEET(takers, names) SP_TAKEN_##takers##_FLEET(names)
#define SP_TAKEN_all_CTLD(names) names " "
#define SP_TAKEN_all_MGMT(names) names " "
#define SP_TAKEN_all_FLEET(names) names " "
#define SP_TAKEN_public_CTLD(names) names " "
#define SP_TAKEN_public_MGMT(names)
#define SP_TAKEN_public_FLEET(names) names " "
#define SP_TAKEN_ctld_CTLD(names) names " "
#define SP_TAKEN_ctld_MGMT(names)
#define SP_TAKEN_ctld_FLEET(names)
#define SP_TAKEN_mgmt_CTLD(names)
#define SP_TAKEN_mgmt_MGMT(names) names " "
#define SP_TAKEN_mgmt_FLEET(names)
#define SP_TAKEN_fleet_CTLD(names)
#define SP_TAKEN_fleet_MGMT(names)
#define SP_TAKEN_fleet_FLEET(names) names " "

#endif
