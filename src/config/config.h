/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicepathd configuration: the JSON file parsed into plain structs.
 * Parsing needs no DPDK runtime (so --check-config and unit tests work
 * without EAL); everything a person could get wrong is checked here and
 * reported with the JSON path of the field and what to write instead.
 * The format is documented in docs/config.md.
 */
#ifndef SP_CONFIG_H
#define SP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slicepath/codeopt.h>
#include <slicepath/proto.h>

#include "../common/ipaddr.h"
#include "../common/limits.h"
#include "../common/steering.h"
#include "../common/text.h"

/* The room sp_config_parse() and the node builder give a message. */
#define SP_CONFIG_ERR_LEN 512

struct sp_cfg_port {
	char name[SP_NAME_LEN];       /* "name": how the rest of the config refers to it */
	char device[SP_DEVARGS_LEN];  /* "device": PCI address or vdev devargs */
	uint32_t ipv4;                /* "ipv4": network byte order */
	uint8_t ipv6[16];             /* "ipv6": optional, the node's own (neighbor discovery, echo) */
	bool has_ipv6;
	uint8_t mac[6];               /* "mac": optional, else the device's own */
	bool has_mac;
	uint64_t rate_bps;            /* "rate": link rate, bits/s ("10G", "800M", number) */
	uint16_t rx_desc;             /* "rx_desc": default 1024 */
	uint16_t tx_desc;             /* "tx_desc": default 1024 */
	uint16_t overhead;            /* "overhead": bytes a frame adds on the wire (SP_DEFAULT_OVERHEAD) */
	enum sp_steering steering;    /* "steering": "auto" (default), "rte_flow", "software" */
	uint16_t rx_queues;           /* "rx_queues": at least one an LC lcore; 0: exactly one */
	char host[SP_IFNAME_LEN];     /* "host": the host path's interface, or "" (none) */
};

/* "nat"'s idle timeouts in seconds (docs/config.md), as the NAT tables take them (hostslice/nat.h). */
struct sp_cfg_nat_timeouts {
	uint32_t tcp_established;
	uint32_t tcp_transitory;
	uint32_t tcp_closed;
	uint32_t udp;
	uint32_t icmp;
};

struct sp_cfg_neighbor {
	uint16_t port;   /* index into ports */
	struct sp_ip ip; /* "ipv4" or "ipv6" (common/ipaddr.h) */
	uint8_t mac[6];
};

struct sp_cfg_lcore {
	unsigned int id; /* DPDK lcore id, never the main lcore 0 */
	bool lc;         /* an LC lcore: rx (its own queue of every port), decap, demux */
	uint16_t nb_npes;
	uint16_t npes[SP_MAX_NPES]; /* NPEs this lcore runs */
};

struct sp_cfg_npe {
	uint32_t filters; /* "filters": filter table capacity, default 131072 */
	uint32_t queues;  /* "queues": queue capacity, default 65536 */
	/* "rates": its scheduler's rate per port (by name), bits/s; by default
	 * what the NPEs that name the port leave, split evenly */
	uint64_t rate_bps[SP_MAX_PORTS];
};

struct sp_cfg_endpoint {
	uint16_t port;          /* index into ports; the endpoint's address is the port's */
	uint16_t udp_port;      /* host byte order */
	uint64_t bandwidth_bps; /* "bandwidth": outbound reservation, default 10 Mb/s */
	uint64_t inbound_bps;   /* "inbound": inbound reservation, policed; default 0 (neither) */
};

struct sp_cfg_queue {
	uint16_t id;             /* slice-relative queue id */
	uint16_t endpoint;       /* slice-relative endpoint index the queue feeds */
	uint32_t threshold;      /* bytes */
	uint32_t threshold_pkts; /* "threshold_packets" */
	uint64_t share_bps;      /* "share": bits/s of the slice's reservation, default 1 Mb/s */
};

struct sp_cfg_filter {
	uint32_t position;
	struct sp_key key;
	struct sp_key mask;
	struct sp_result result; /* nh_ip, nh_port in network byte order */
};

struct sp_cfg_slice {
	char name[SP_NAME_LEN];
	uint16_t id;                  /* "id": 1..SP_MAX_SLICES-1, unique */
	char codeopt[SP_NAME_LEN];    /* "codeopt" */
	char codeopt_data[SP_PATH_LEN]; /* "codeopt_data": a file for its load(), or "" */
	uint16_t npe;                 /* "npe": default 0 */
	uint32_t mem_bytes;           /* "memory": default 4096 */
	uint32_t filter_quota;        /* "filter_quota": default 1024 */
	uint16_t queue_quota;         /* "queue_quota": default 16 */
	uint32_t buffer_quota;        /* "buffer_quota": packets its queues hold, default 4096 */
	uint16_t nb_endpoints;
	struct sp_cfg_endpoint endpoints[SP_MAX_SLICE_ENDPOINTS];
	uint16_t nb_queues;
	struct sp_cfg_queue queues[SP_MAX_SLICE_QUEUES];
	uint32_t nb_filters;
	struct sp_cfg_filter *filters; /* heap, nb_filters entries */
};

struct sp_config {
	int eal_argc; /* "eal": extra EAL arguments, strings */
	char *eal_argv[SP_MAX_EAL_ARGS];
	uint32_t mbufs;      /* "mbufs": packet buffers, default 16384 */
	uint16_t nb_ports;
	struct sp_cfg_port ports[SP_MAX_PORTS];
	uint16_t nb_neighbors;
	struct sp_cfg_neighbor neighbors[SP_MAX_NEIGHBORS];
	uint16_t nb_lcores;
	struct sp_cfg_lcore lcores[SP_MAX_WORKERS];
	uint16_t nb_npes;
	struct sp_cfg_npe npes[SP_MAX_NPES];
	uint16_t nb_codeopt_libs; /* "codeopt_libs": shared objects to dlopen */
	char codeopt_libs[SP_MAX_CODEOPT_LIBS][SP_PATH_LEN];
	char mgmt_socket[SP_SOCKET_PATH_LEN]; /* "mgmt_socket": the private JSON-RPC socket */
	char channel_dir[SP_CHANNEL_DIR_LEN];  /* "channel_dir": the slices' exception channels */
	uint16_t nat_first, nat_last;          /* "nat": the host slices' NAT ranges come from these */
	struct sp_cfg_nat_timeouts nat_timeouts;
	uint16_t nb_slices;
	struct sp_cfg_slice slices[SP_MAX_SLICES];
};

/*
 * Parse and validate. On error returns a negative errno and writes into err
 * a message naming the field (JSON path) and saying what to fix; cfg is then
 * left empty (nothing to free).
 */
int sp_config_parse(const char *json_text, struct sp_config *cfg, char *err, size_t errlen);
int sp_config_load(const char *path, struct sp_config *cfg, char *err, size_t errlen);
void sp_config_free(struct sp_config *cfg);

#endif
