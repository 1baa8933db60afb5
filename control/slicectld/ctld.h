/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slicectld, the control daemon (SPP's Local Resource Manager): the only
 * public API of a node. It authorizes every caller (SO_PEERCRED), admits
 * what fits the quotas and the node, keeps the desired state in an SQLite
 * database, and programs slicepathd through its private management socket;
 * when either daemon restarts it replays the database into slicepathd.
 *
 * Threads: the main one serves the public socket (server.c, libevent); one
 * worker (worker.c) owns everything below and handles one request at a
 * time, so none of it needs a lock.
 */
#ifndef CTLD_H
#define CTLD_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include <slicepath/proto.h>

#include "common/jsonrpc.h"
#include "common/limits.h"

/* What the public socket serves at once (server.c). */
struct server_limits {
	unsigned int max_clients;    /* connections at once, all callers */
	unsigned int per_user;       /* of them, one uid that is not an operator's */
	unsigned int operator_slots; /* of max_clients, those only operators may take */
	unsigned int idle_s;         /* seconds without a request before a connection goes; 0: never */
};

struct ctld_config {
	char socket[SP_SOCKET_PATH_LEN];  /* the public socket */
	char backend[SP_SOCKET_PATH_LEN]; /* slicepathd's management socket */
	char database[PATH_MAX];
	char operator_group[64];     /* its members are operators, like root */
	uint64_t memory_budget;      /* slice memory all slices may hold, bytes */
	uint64_t buffer_budget;      /* packet buffers for the slices' queues; 0: from slicepathd */
	bool sync_full;              /* fsync each acknowledged change (else at checkpoints) */
	struct server_limits clients;
	char metrics[64];            /* "ADDRESS:PORT" of the metrics endpoint, or "off" */
};

/* Who is calling: from SO_PEERCRED and SO_PEERGROUPS when it connected. */
struct caller {
	uid_t uid;
	pid_t pid;
	bool operator; /* root, or in the operator group */
};

/* The desired state of the slices slicectld manages, as stored (store.c). */
struct ctld_endpoint {
	bool used;
	char port[SP_NAME_LEN];
	uint16_t l4_port; /* UDP, or TCP (a host slice's) */
	bool tcp;
	uint64_t bandwidth;
	uint64_t inbound; /* 0: not policed */
	/* Held by a process (the socket shim's "until_exit"): released when it is gone.
	 * Its start time tells it from a later process given the same pid. */
	pid_t holder; /* 0: held until released */
	uint64_t holder_start;
	/* Not stored: its holder is gone but filters still send through it, and the log
	 * has said so (once: it is released when the last such filter goes). */
	bool kept_said;
};

struct ctld_queue {
	bool bound;
	uint16_t endpoint;
	uint32_t threshold;
	uint32_t threshold_packets;
	uint64_t share;
};

/*
 * A stored slice against slicepathd (not stored: found at each replay):
 * in force as stored; degraded (in slicepathd, some endpoints, queues,
 * filters or memory it refused); absent (not in slicepathd at all). A slice
 * not in force keeps all it stored, and the worker tries again every
 * CTLD_RETRY_S.
 */
enum ctld_slice_state { CTLD_IN_FORCE, CTLD_DEGRADED, CTLD_ABSENT };
#define CTLD_RETRY_S 5
/* "in_force", "degraded", "absent": slice.list's "state", the metrics' label. */
const char *model_state_name(enum ctld_slice_state state);

struct ctld_slice {
	bool used;
	uint16_t id;
	char name[SP_NAME_LEN];
	uint32_t owner; /* uid */
	char codeopt[SP_NAME_LEN];
	uint16_t npe;
	uint32_t memory;
	uint32_t filter_quota;
	uint16_t queue_quota;
	uint32_t buffer_quota;
	uint64_t bandwidth; /* its endpoints' outbound reservations together, at most */
	uint64_t inbound;   /* their inbound reservations together, at most */
	/* A host slice's (codeopt "host"): its network namespace, NAT range size and
	 * first number (what slicepathd chose at creation, asked for again at every
	 * restore; 0 before that is known), and whether slicectld made the namespace
	 * (it then removes it with the slice). */
	char netns[SP_NETNS_NAME_LEN];
	uint16_t nat_ports;
	uint16_t nat_first;
	bool netns_made;
	struct ctld_endpoint ep[SP_MAX_SLICE_ENDPOINTS];
	struct ctld_queue q[SP_MAX_SLICE_QUEUES];
	/* Not stored: its state in slicepathd, and why it is not in force ("" when it is). */
	enum ctld_slice_state state;
	char trouble[1024];
};

struct ctld_sched {
	uint16_t npe;
	char port[SP_NAME_LEN];
	uint64_t rate;
	uint16_t overhead;
};

struct model {
	struct ctld_slice slices[SP_MAX_SLICES]; /* by slice id */
	unsigned int nb_scheds;
	struct ctld_sched scheds[SP_MAX_SCHEDS];
};

struct store;
struct backend;

struct ctld {
	struct ctld_config cfg;
	struct model model;
	struct store *store;
	struct backend *backend;
	/* Slices found in slicepathd other than stored (changed on its own socket), and re-created. */
	uint64_t divergences;
};

/* A managed slice by name, or NULL. */
struct ctld_slice *model_find(struct model *m, const char *name);
/* What its endpoints reserve together, outbound or inbound. */
uint64_t model_reserved(const struct ctld_slice *s, bool inbound);
/* slicepathd's slice.create for s (managed, its id and NPE), and endpoint.reserve for its endpoint i. */
json_t *model_create_params(const struct ctld_slice *s);
json_t *model_endpoint_params(const struct ctld_slice *s, unsigned int i);

/*
 * Handle one request line of caller (dispatch.c): the response line
 * (malloc'd, no newline) or NULL for a notification.
 */
char *ctld_handle(struct ctld *c, const struct caller *who, const char *line, size_t len);

/* Log a line to stderr ("slicectld: ..."): the journal under systemd. */
void ctld_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
