# SPDX-License-Identifier: BSD-3-Clause
"""The slices' exception channels (slicepath/proto.h, docs/slowpath.md): a slow path on
the Unix SOCK_SEQPACKET socket of its slice receives the exceptions of the fast path with
their reason and arrival endpoint, injects packets that are then looked up and forwarded
like any other, and never holds the fast path up when it stops reading. Only the slice's
owner (and root) may connect, one slow path at a time."""

import os
import socket
import stat
import struct
import time

import pytest

from conftest import needs_root
from spnode import (LOAD_NH, TapNode, assert_frames, encap_out, inner_udp, routed_inner)

pytestmark = needs_root

HDR = struct.Struct("=BBHI")  # struct sp_exc_hdr: version, reason, endpoint, reserved
VERSION = 1
TTL_EXPIRED, MISS = 14, 17   # enum sp_reason (slicepath/reason.h)
NOBODY = 65534


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(5)
    s.connect(str(path))
    return s


def exception(sock):
    """(reason, endpoint, packet) of the next exception on the channel."""
    msg = sock.recv(70000)
    version, reason, endpoint, reserved = HDR.unpack_from(msg)
    assert (version, reserved) == (VERSION, 0), msg[:HDR.size].hex()
    return reason, endpoint, msg[HDR.size:]


def inject(sock, endpoint, packet, *, version=VERSION, reason=0):
    sock.send(HDR.pack(version, reason, endpoint, 0) + bytes(packet))


def wait(pred, what, timeout=5):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def wait_accepted(n, count=1):
    """Until the daemon has logged count slow paths connected."""
    wait(lambda: n.log().count(": slow path (pid") >= count, "the slow path was not accepted")


def counters(n):
    return n.call("stats.get", slice="alpha")["slice"]


@pytest.fixture
def tap(tmp_path):
    t = TapNode(tmp_path, "chan")
    yield t
    t.node.kill()


def channel_path(tap):
    return tap.node.channel_dir / "alpha.sock"


def test_exceptions_reach_the_slow_path_and_injected_packets_are_forwarded(tap):
    tap.start()
    n = tap.node
    n.call("filter.insert", slice="alpha", **tap.route(0, "192.168.1.0/24", LOAD_NH))
    path = channel_path(tap)
    mode = os.stat(path).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
    assert [s["channel"] for s in n.call("slice.list")] == [str(path)]

    expired = inner_udp("192.168.1.5", ttl=1, seq=1)
    missed = inner_udp("10.77.0.1", seq=2)
    tap.send(expired)                    # nobody listens yet: counted, dropped
    assert counters(n)["reasons"] == {"ttl_expired": 1, "no_slow_path": 1}

    sp = connect(path)
    wait_accepted(n)
    tap.send(expired, missed)
    # One burst: its exceptions come stage by stage (lookup's before parse's).
    assert sorted([exception(sp), exception(sp)]) == [(TTL_EXPIRED, 0, expired),
                                                      (MISS, 0, missed)]
    c = counters(n)
    assert (c["exception_pkts"], c["to_slow_path_pkts"]) == (3, 2)
    assert c["to_slow_path_bytes"] == len(expired) + len(missed)

    # Injected as if it arrived on endpoint 0: looked up, TTL decremented, queued, sent.
    reply = inner_udp("192.168.1.9", src="192.0.2.77", seq=3)
    inject(sp, 0, reply)
    wait(lambda: counters(n)["fwd_pkts"] == 1, "the injected packet was not forwarded")
    c = counters(n)
    assert (c["injected_pkts"], c["injected_bytes"], c["inject_dropped"]) == (1, len(reply), 0)
    assert c["rx_pkts"] == 3             # injections are not arrivals

    # Refused injections are counted; the channel stays up.
    inject(sp, 0, reply, version=2)
    inject(sp, 9, reply)                 # no such endpoint
    inject(sp, 0, reply, reason=TTL_EXPIRED)
    inject(sp, 0, b"")
    inject(sp, 0, bytes(3000))           # longer than a packet buffer
    sp.send(b"\x01\x00")                 # shorter than a header
    wait(lambda: counters(n)["inject_dropped"] == 6, "refused injections not counted")
    inject(sp, 0, reply)
    wait(lambda: counters(n)["fwd_pkts"] == 2, "the channel stopped taking injections")
    assert "dropped a packet its slow path injected: not a version 1 header" in n.log()

    # A second slow path is refused while one is connected.
    other = connect(path)
    assert other.recv(100) == b""
    other.close()
    tap.send(inner_udp("192.168.1.6", ttl=1, seq=4))
    assert exception(sp)[0] == TTL_EXPIRED

    # Gone: exceptions are counted as no_slow_path again.
    sp.close()
    wait(lambda: "its slow path left the exception channel" in n.log(), "no disconnect seen")
    tap.send(inner_udp("192.168.1.7", ttl=1, seq=5))
    wait(lambda: counters(n)["reasons"].get("no_slow_path") == 2, "no_slow_path not counted")
    tap.stop()
    out = encap_out(routed_inner(reply), tap.p1, 5001, *LOAD_NH)
    assert_frames(n.output(tap.p1), [out, out], "p1 output")


def test_a_slow_path_that_does_not_read_never_stalls_the_fast_path(tap):
    tap.start()
    n = tap.node
    n.call("filter.insert", slice="alpha", **tap.route(0, "192.168.1.0/24", LOAD_NH))
    sp = connect(channel_path(tap))
    wait_accepted(n)
    burst = [inner_udp("192.168.1.5", ttl=1, seq=i, payload=bytes(1000)) for i in range(3000)]
    for i in range(0, len(burst), 500):
        tap.send(*burst[i:i + 500])
    good = [inner_udp("192.168.1.5", seq=10_000 + i) for i in range(20)]
    tap.send(*good)
    wait(lambda: counters(n)["fwd_pkts"] == len(good), "forwarding stalled")
    c = counters(n)
    lost = c["reasons"].get("slow_path_full", 0) + c["reasons"].get("ring_full", 0)
    print(f"exceptions {c['exception_pkts']}, delivered {c['to_slow_path_pkts']}, lost {lost}")
    assert c["exception_pkts"] == len(burst)
    assert c["reasons"].get("slow_path_full", 0) > 0
    assert c["to_slow_path_pkts"] + lost == len(burst)
    # What the channel holds is intact and in order.
    first = [exception(sp) for _ in range(3)]
    assert [p for _r, _e, p in first] == burst[:3]
    tap.stop()
    assert_frames(n.output(tap.p1),
                  [encap_out(routed_inner(g), tap.p1, 5001, *LOAD_NH) for g in good],
                  "p1 output")


def run_as(uid, fn):
    """fn() in a child process running as uid; its return value (a small int) comes back."""
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            os.setgid(uid)
            os.setuid(uid)
            code = fn()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WEXITSTATUS(status)


def try_connect(path):
    try:
        connect(path).close()
        return 0
    except PermissionError:
        return 1


def test_only_the_owner_may_connect(tap):
    tap.start()
    n = tap.node
    # A slice created with an owner: its channel belongs to that user.
    n.call("slice.create", name="gamma", codeopt="ipv4", owner=NOBODY)
    path = n.channel_dir / "gamma.sock"
    st = os.stat(path)
    assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (NOBODY, 0o600)
    assert [s.get("owner") for s in n.call("slice.list")] == [None, NOBODY]
    assert run_as(NOBODY, lambda: try_connect(path)) == 0, "the owner could not connect"
    assert run_as(1, lambda: try_connect(path)) == 1, "another user connected"
    assert run_as(NOBODY, lambda: try_connect(channel_path(tap))) == 1, \
        "a user connected to a root-owned slice's channel"
    # Deleting the slice removes its channel.
    n.call("slice.delete", slice="gamma")
    assert not path.exists()
    tap.stop()
