/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A slice's exception channel (src/mgmt/channel.c) on the in-memory node,
 * with the test as the slow path: the socket file and its mode; the
 * exceptions the NPEs hand up arriving as messages (header, then the packet
 * whole, chained or not), or counted no_slow_path / slow_path_full when
 * nobody reads; the packets the slow path injects reaching the slice's NPE
 * as if they arrived on its endpoint, and those refused counted and told
 * once in the log; one slow path at a time, root or the slice's owner.
 */
#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_lcore.h>

#include <slicepath/proto.h>

#include "mgmt/channel.h"
#include "sp_test.h"
#include "sp_test_node.h"

static struct sp_node *node; /* the test's: setup() */
static struct sp_slice *alpha;
static struct sp_channels *ch;
static struct sp_lcore_stats *st; /* the management thread's: this one */
static char dir[64];
static FILE *log_file; /* what the daemon logs, while a test reads it */

static int
setup(void **state)
{
	char err[256];

	sp_test_node_setup(state);
	node = *state;
	alpha = node->slices[SP_TEST_SLICE];
	alpha->owner = getuid(); /* the test connects as the slice's owner */
	node->npes[0].inject_ring = rte_ring_create("chan_inject", 4, SOCKET_ID_ANY,
						    RING_F_SC_DEQ);
	assert_non_null(node->npes[0].inject_ring);
	snprintf(dir, sizeof(dir), "/tmp/sp_test_channel.XXXXXX");
	assert_non_null(mkdtemp(dir));
	ch = sp_channels_create(node, dir, err, sizeof(err));
	assert_non_null(ch);
	assert_int_equal(sp_channel_open(ch, alpha, err, sizeof(err)), 0);
	st = sp_stats_lcore(rte_lcore_id());
	memset(st, 0, sizeof(*st));
	log_file = tmpfile();
	assert_non_null(log_file);
	rte_openlog_stream(log_file);
	return 0;
}

static int
teardown(void **state)
{
	struct rte_mbuf *m;

	rte_openlog_stream(NULL);
	fclose(log_file);
	sp_channels_free(ch);
	rmdir(dir);
	while (rte_ring_dequeue(node->npes[0].inject_ring, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(node->npes[0].inject_ring);
	return sp_test_node_teardown(state);
}

/* How often the daemon's log so far holds text. */
static unsigned int
logged(const char *text)
{
	static char buf[8192];
	unsigned int n = 0;
	size_t len;

	fflush(log_file);
	rewind(log_file);
	len = fread(buf, 1, sizeof(buf) - 1, log_file);
	buf[len] = '\0';
	for (const char *p = buf; (p = strstr(p, text)) != NULL; p++)
		n++;
	fseek(log_file, 0, SEEK_END);
	return n;
}

/* A slow path connecting to alpha's channel (the management thread not yet told). */
static int
connect_slow_path(void)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sp_channel_path(ch, alpha));
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

/* One turn of the management thread's channel work, as its loop does it. */
static void
serve(void)
{
	struct pollfd fds[8];
	unsigned int n = sp_channels_pollfds(ch, fds, RTE_DIM(fds));

	assert_true(poll(fds, n, 1000) > 0);
	sp_channels_serve(ch, fds, n);
}

/* An exception of alpha's from the NPE: the packet bytes, arrived on its endpoint ep. */
static void
hand_up(const void *bytes, size_t len, size_t split, uint16_t ep, enum sp_reason reason)
{
	struct rte_mbuf *m = sp_test_mbuf(bytes, len, split, 0);

	assert_non_null(m);
	sp_meta(m)->slice = SP_TEST_SLICE;
	sp_meta(m)->in_ep = alpha->endpoints[ep];
	sp_meta(m)->reason = reason;
	assert_int_equal(rte_ring_enqueue(node->exc_ring, m), 0);
}

/* The next message on fd: its header in *h, the packet in pkt; the packet's length. */
static size_t
message(int fd, struct sp_exc_hdr *h, uint8_t *pkt, size_t max)
{
	uint8_t buf[sizeof(*h) + 4096];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

	assert_true(n >= (ssize_t)sizeof(*h) && (size_t)n - sizeof(*h) <= max);
	memcpy(h, buf, sizeof(*h));
	memcpy(pkt, buf + sizeof(*h), (size_t)n - sizeof(*h));
	return (size_t)n - sizeof(*h);
}

/* <dir>/<slice>.sock, mode 0600, the owner's; gone once closed. */
static void
test_socket_file(void **state)
{
	char path[128];
	struct stat sb;

	(void)state;
	assert_string_equal(sp_channels_dir(ch), dir);
	snprintf(path, sizeof(path), "%s/alpha.sock", dir);
	assert_string_equal(sp_channel_path(ch, alpha), path);
	assert_int_equal(stat(path, &sb), 0);
	assert_true(S_ISSOCK(sb.st_mode));
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(sb.st_uid, getuid());
	sp_channel_close(ch, alpha);
	assert_int_equal(stat(path, &sb), -1);
	assert_string_equal(sp_channel_path(ch, alpha), "");
	/* Channels off: nothing to open, nothing to name. */
	assert_int_equal(sp_channel_open(NULL, alpha, path, sizeof(path)), 0);
	assert_string_equal(sp_channels_dir(NULL), "");
}

/* Each refused with the reason and what to do. */
static void
test_refusals_say_why(void **state)
{
	char err[512], long_dir[128];
	struct sp_channels *other;

	(void)state;
	/* A directory that cannot be: under a socket file. */
	snprintf(long_dir, sizeof(long_dir), "%s/alpha.sock/sub", dir);
	assert_null(sp_channels_create(node, long_dir, err, sizeof(err)));
	assert_non_null(strstr(err, "cannot create"));
	assert_non_null(strstr(err, "create it or set \"channel_dir\""));
	/* A directory of 100 characters: the socket's path does not fit in sun_path. */
	snprintf(long_dir, sizeof(long_dir), "%s/%0*d", dir, (int)(99 - strlen(dir)), 0);
	assert_int_equal(strlen(long_dir), 100);
	other = sp_channels_create(node, long_dir, err, sizeof(err));
	assert_non_null(other);
	assert_int_equal(sp_channel_open(other, alpha, err, sizeof(err)), -ENAMETOOLONG);
	assert_non_null(strstr(err, "too long for a Unix socket; use a shorter \"channel_dir\""));
	sp_channels_free(other);
	rmdir(long_dir);
}

/* The exceptions as messages: version, reason, the slice's endpoint index, the packet whole. */
static void
test_exceptions_delivered(void **state)
{
	const struct sp_slice_spec beta = {.id = 2, .name = "beta", .codeopt = "ipv4",
					   .mem_bytes = 64, .filter_quota = 4, .queue_quota = 1,
					   .buffer_quota = 100, .owner = SP_OWNER_NONE};
	const struct sp_endpoint_req beta_ep = {.port = 0, .udp_port = 6000};
	const struct sp_endpoint_req alpha_ep = {.port = 0, .udp_port = 6001};
	uint8_t pkt[300], got[4096];
	uint16_t slot = SP_ENDPOINT_ANY;
	struct sp_exc_hdr h;
	struct sp_slice *s;
	char err[256];
	int fd;

	(void)state;
	for (unsigned int i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)i;
	/* Alpha's endpoint 2 at node slot 3 (beta took 2): the message names alpha's index. */
	assert_int_equal(sp_node_slice_add(node, &beta, &s, err, sizeof(err)), 0);
	assert_int_equal(sp_node_endpoint_add(node, s, &beta_ep, &slot, err, sizeof(err)), 0);
	slot = SP_ENDPOINT_ANY;
	assert_int_equal(sp_node_endpoint_add(node, alpha, &alpha_ep, &slot, err, sizeof(err)), 0);
	assert_int_equal(alpha->endpoints[2], 3);
	fd = connect_slow_path();
	assert_false(alpha->slow_path_up);
	serve();
	assert_true(alpha->slow_path_up);
	hand_up(pkt, 60, 0, 2, SP_REASON_MISS);
	hand_up(pkt, sizeof(pkt), 101, 0, SP_REASON_OPTIONS); /* two segments */
	sp_channels_deliver(ch);
	assert_int_equal(message(fd, &h, got, sizeof(got)), 60);
	assert_int_equal(h.version, SP_EXC_VERSION);
	assert_int_equal(h.reason, SP_REASON_MISS);
	assert_int_equal(h.endpoint, 2);
	assert_int_equal(h.reserved, 0);
	assert_memory_equal(got, pkt, 60);
	assert_int_equal(message(fd, &h, got, sizeof(got)), sizeof(pkt));
	assert_int_equal(h.reason, SP_REASON_OPTIONS);
	assert_int_equal(h.endpoint, 0);
	assert_memory_equal(got, pkt, sizeof(pkt));
	assert_int_equal(st->slice[SP_TEST_SLICE].to_slow_path.pkts, 2);
	assert_int_equal(st->slice[SP_TEST_SLICE].to_slow_path.bytes, 60 + sizeof(pkt));
	assert_int_equal(st->reason[SP_REASON_NO_SLOW_PATH], 0);
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
	close(fd);
}

/*
 * Nobody connected, or the slow path left: counted no_slow_path, for the
 * slice too while it exists; one that does not read: slow_path_full.
 */
static void
test_exceptions_nobody_takes(void **state)
{
	const struct sp_slice_stats *s = &st->slice[SP_TEST_SLICE];
	uint8_t pkt[1000] = {0};
	unsigned int sent = 0;
	int fd;

	(void)state;
	hand_up(pkt, 60, 0, 0, SP_REASON_MISS);
	sp_channels_deliver(ch);
	assert_int_equal(s->reason[SP_REASON_NO_SLOW_PATH], 1);
	/* A slice deleted since: the node counts it. */
	hand_up(pkt, 60, 0, 0, SP_REASON_MISS);
	node->slices[SP_TEST_SLICE] = NULL;
	sp_channels_deliver(ch);
	node->slices[SP_TEST_SLICE] = alpha;
	assert_int_equal(s->reason[SP_REASON_NO_SLOW_PATH], 1);
	assert_int_equal(st->reason[SP_REASON_NO_SLOW_PATH], 2);

	fd = connect_slow_path();
	serve();
	/* It reads nothing: its socket fills, the rest are lost, counted. */
	while (s->reason[SP_REASON_SLOW_PATH_FULL] == 0 && sent < 100000) {
		for (unsigned int i = 0; i < 64; i++)
			hand_up(pkt, sizeof(pkt), 0, 0, SP_REASON_MISS);
		sp_channels_deliver(ch);
		sent += 64;
	}
	assert_true(s->reason[SP_REASON_SLOW_PATH_FULL] > 0);
	assert_int_equal(s->to_slow_path.pkts + s->reason[SP_REASON_SLOW_PATH_FULL], sent);
	assert_int_equal(st->reason[SP_REASON_SLOW_PATH_FULL], s->reason[SP_REASON_SLOW_PATH_FULL]);
	assert_true(alpha->slow_path_up);
	/* It leaves: the management thread notices, and the next one is no_slow_path. */
	close(fd);
	serve();
	assert_false(alpha->slow_path_up);
	hand_up(pkt, 60, 0, 0, SP_REASON_MISS);
	sp_channels_deliver(ch);
	assert_int_equal(s->reason[SP_REASON_NO_SLOW_PATH], 2);
	assert_int_equal(rte_mempool_in_use_count(node->pool), 0);
}

/* A message to inject: header (version, reason, endpoint, reserved), then len bytes. */
static void
inject(int fd, uint8_t version, uint8_t reason, uint16_t ep, size_t len)
{
	static uint8_t buf[sizeof(struct sp_exc_hdr) + SP_EXC_MAX_INJECT + 1];
	const struct sp_exc_hdr h = {.version = version, .reason = reason, .endpoint = ep};

	memcpy(buf, &h, sizeof(h));
	for (size_t i = 0; i < len; i++)
		buf[sizeof(h) + i] = (uint8_t)(i + 1);
	assert_int_equal(send(fd, buf, sizeof(h) + len, 0), (ssize_t)(sizeof(h) + len));
}

/* An injected packet goes to alpha's NPE as if it arrived on the endpoint it names. */
static void
test_injected(void **state)
{
	struct rte_mbuf *m = NULL;
	const struct sp_meta *meta;
	int fd;

	(void)state;
	fd = connect_slow_path();
	serve();
	inject(fd, SP_EXC_VERSION, 0, 1, 40);
	serve();
	assert_int_equal(rte_ring_dequeue(node->npes[0].inject_ring, (void **)&m), 0);
	meta = sp_meta(m);
	assert_int_equal(meta->slice, SP_TEST_SLICE);
	assert_int_equal(meta->in_ep, alpha->endpoints[1]);
	assert_int_equal(meta->verdict, SP_FORWARD);
	assert_true(meta->from_slow_path);
	assert_int_equal(m->port, 1); /* endpoint 1 is on p1 */
	assert_int_equal(rte_pktmbuf_pkt_len(m), 40);
	assert_int_equal(rte_pktmbuf_mtod(m, uint8_t *)[39], 40);
	rte_pktmbuf_free(m);
	assert_int_equal(st->slice[SP_TEST_SLICE].injected.pkts, 1);
	assert_int_equal(st->slice[SP_TEST_SLICE].injected.bytes, 40);
	assert_int_equal(st->slice[SP_TEST_SLICE].inject_dropped, 0);
	close(fd);
}

/* Each refused injection counted; the first of a connection's refusals logged, with why. */
static void
test_injections_refused(void **state)
{
	static const char *const why[] = {
		"not a version 1 header with reason and reserved 0",
		"the packet must have 1 to 2048 bytes",
		"no such endpoint",
		"the NPE's injection ring is full",
	};
	int fd;

	(void)state;
	fd = connect_slow_path();
	serve();
	inject(fd, 2, 0, 0, 40);                 /* version 2 */
	inject(fd, SP_EXC_VERSION, 3, 0, 40);    /* a reason */
	inject(fd, SP_EXC_VERSION, 0, 0, 0);     /* no packet */
	inject(fd, SP_EXC_VERSION, 0, 0, SP_EXC_MAX_INJECT + 1);
	inject(fd, SP_EXC_VERSION, 0, 2, 40);    /* alpha has endpoints 0 and 1 */
	serve();
	assert_int_equal(st->slice[SP_TEST_SLICE].inject_dropped, 5);
	assert_int_equal(st->slice[SP_TEST_SLICE].injected.pkts, 0);
	assert_int_equal(rte_ring_count(node->npes[0].inject_ring), 0);
	assert_int_equal(logged("slice alpha: dropped a packet its slow path injected: "), 1);
	assert_int_equal(logged(why[0]), 1);
	assert_int_equal(logged("logged once per connection"), 1);
	/* The NPE's ring (room 3) full: the fourth is dropped. */
	for (unsigned int i = 0; i < 4; i++)
		inject(fd, SP_EXC_VERSION, 0, 0, 40);
	serve();
	assert_int_equal(st->slice[SP_TEST_SLICE].injected.pkts, 3);
	assert_int_equal(st->slice[SP_TEST_SLICE].inject_dropped, 6);
	close(fd);
	serve();
	/* A new connection's first refusal is logged again. */
	fd = connect_slow_path();
	serve();
	inject(fd, SP_EXC_VERSION, 0, 0, 40);
	serve();
	assert_int_equal(st->slice[SP_TEST_SLICE].inject_dropped, 7);
	assert_int_equal(logged(why[3]), 1);
	for (unsigned int i = 1; i < 3; i++)
		assert_int_equal(logged(why[i]), 0);
	close(fd);
}

/* A second slow path is turned away; the first stays. */
static void
test_one_slow_path_at_a_time(void **state)
{
	uint8_t pkt[60] = {0}, got[128];
	struct sp_exc_hdr h;
	int first, second;

	(void)state;
	first = connect_slow_path();
	serve();
	second = connect_slow_path();
	serve();
	assert_int_equal(recv(second, got, sizeof(got), MSG_DONTWAIT), 0); /* closed on it */
	assert_int_equal(logged("refused a second slow path"), 1);
	hand_up(pkt, sizeof(pkt), 0, 0, SP_REASON_MISS);
	sp_channels_deliver(ch);
	assert_int_equal(message(first, &h, got, sizeof(got)), sizeof(pkt));
	close(second);
	close(first);
}

/*
 * Connect to path as uid and wait (5 s at most) for the channel to answer:
 * exit status 0 if it closed the connection, 1 if not, 2 if no connection.
 */
static void
connect_as(uid_t uid, const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	const struct timeval wait = {.tv_sec = 5};
	uint8_t b;
	int fd;

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (setuid(uid) != 0 || fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
		_exit(2);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
	_exit(recv(fd, &b, 1, 0) == 0 ? 0 : 1);
}

/* Only root or the slice's owner: another user is turned away (root makes one to test). */
static void
test_other_user_refused(void **state)
{
	struct passwd *nobody = getpwnam("nobody");
	int status;
	pid_t pid;

	(void)state;
	if (geteuid() != 0 || nobody == NULL)
		skip();
	/* The file mode would stop it first: open both to everyone. */
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chmod(sp_channel_path(ch, alpha), 0666), 0);
	alpha->owner = 4242; /* neither root nor nobody */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		connect_as(nobody->pw_uid, sp_channel_path(ch, alpha));
	/* Serve until the child's connection came and was turned away (it waits for that). */
	for (unsigned int i = 0; i < 100 && logged("not its owner") == 0; i++) {
		struct pollfd fds[8];
		unsigned int n = sp_channels_pollfds(ch, fds, RTE_DIM(fds));

		if (poll(fds, n, 100) > 0)
			sp_channels_serve(ch, fds, n);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(logged("refused uid"), 1);
	assert_false(alpha->slow_path_up);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_socket_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_say_why, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exceptions_delivered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exceptions_nobody_takes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_injected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_injections_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_slow_path_at_a_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_user_refused, setup, teardown),
	};

	return cmocka_run_group_tests_name("channel", tests, NULL, NULL);
}
