/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The methods of the control API (docs/api.md), each name written once:
 * slicectld's public socket serves all but node.info, slicepathd's
 * management socket all but whoami, iface.list, exception.channel,
 * metrics.text, replay.status and codeopt.list (node.info has its code
 * options). No DPDK here: clients include it too.
 */
#ifndef SLICEPATH_METHODS_H
#define SLICEPATH_METHODS_H

#define SP_M_WHOAMI            "whoami"
#define SP_M_IFACE_LIST        "iface.list"
#define SP_M_SLICE_CREATE      "slice.create"
#define SP_M_SLICE_DELETE      "slice.delete"
#define SP_M_SLICE_MOVE        "slice.move"
#define SP_M_SLICE_LIST        "slice.list"
#define SP_M_EXCEPTION_CHANNEL "exception.channel"
#define SP_M_ENDPOINT_RESERVE  "endpoint.reserve"
#define SP_M_ENDPOINT_RELEASE  "endpoint.release"
#define SP_M_QUEUE_BIND        "queue.bind"
#define SP_M_QUEUE_SET         "queue.set"
#define SP_M_QUEUE_UNBIND      "queue.unbind"
#define SP_M_FILTER_INSERT     "filter.insert"
#define SP_M_FILTER_DELETE     "filter.delete"
#define SP_M_FILTER_LIST       "filter.list"
#define SP_M_MEM_READ          "mem.read"
#define SP_M_MEM_WRITE         "mem.write"
#define SP_M_CODEOPT_LOAD      "codeopt.load"
#define SP_M_STATS_GET         "stats.get"
#define SP_M_STATS_MISSED      "stats.missed"
#define SP_M_STATE_DUMP        "state.dump"
#define SP_M_METRICS_TEXT      "metrics.text"
#define SP_M_SCHED_SET         "sched.set"
#define SP_M_NODE_INFO         "node.info"
#define SP_M_NAT_LIST          "nat.list"
#define SP_M_REPLAY_STATUS     "replay.status"
#define SP_M_CODEOPT_LIST      "codeopt.list"

#endif
