/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The node's sizes, each written once: what the config may ask for and
 * what the daemon's tables hold, and its default paths. Those a client of
 * the API sees too are in include/slicepath/proto.h (slices, a slice's
 * endpoints and queues, rates, a filter batch). No DPDK: the config
 * parser, slicectld and tools include it.
 */
#ifndef SP_LIMITS_H
#define SP_LIMITS_H

#include <slicepath/proto.h>

#define SP_MAX_PORTS 16
#define SP_MAX_PORT_RXQ 64   /* a port's rx queues ("rx_queues") */
#define SP_IFNAME_LEN 16     /* a Linux interface name and its NUL (IFNAMSIZ) */
#define SP_MAX_NPES 16
#define SP_MAX_SCHEDS (SP_MAX_NPES * SP_MAX_PORTS) /* an NPE's scheduler on each port */
#define SP_MAX_WORKERS 32     /* forwarding lcores */
#define SP_MAX_ENDPOINTS 1024 /* the node's, all slices together */
#define SP_MAX_NEIGHBORS 1024 /* static neighbors in the config */
#define SP_SOCKET_PATH_LEN 108 /* sockaddr_un.sun_path */
#define SP_MAX_CODEOPT_LIBS 16 /* "codeopt_libs" */
#define SP_MAX_EAL_ARGS 64     /* "eal" */
#define SP_DEVARGS_LEN 512     /* a port's "device" and its NUL */
#define SP_PATH_LEN 256        /* a file's path ("codeopt_libs", "codeopt_data") and its NUL */
/* An NPE's filter table, unless the config says otherwise: SPP's TCAM. */
#define SP_DEFAULT_NPE_FILTERS SP_MAX_FILTER_BATCH

/* slicepathd's private management socket ("mgmt_socket"), where slicectld finds it too. */
#define SP_DEFAULT_MGMT_SOCKET "/run/slicepath/slicepathd.sock"
/* Its slices' exception channels ("channel_dir"): room for "/<slice name>.sock" after it. */
#define SP_DEFAULT_CHANNEL_DIR "/run/slicepath/slices"
#define SP_CHANNEL_DIR_LEN (SP_SOCKET_PATH_LEN - SP_NAME_LEN - 6)

#endif
