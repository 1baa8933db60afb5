# SPDX-License-Identifier: BSD-3-Clause
"""slicepathd's management socket (docs/api.md) with the daemon forwarding: slices,
endpoints, queues and filters created and deleted while traffic flows and checked on
the wire, slice memory changed, and every kind of bad request or misbehaving client
answered clearly without changing anything or stopping the others.

Input arrives on a tap port (net_tap) the test writes frames into at any moment;
output goes to a pcap file read after the daemon stops."""

import json
import os
import select
import socket
import stat
import time

import pytest

from conftest import needs_root
from lcore_time import Clock, Window, check_rate, sampled
from sp_rpc import Rpc, RpcError
from spnode import (LOAD_NH, TAP_NH3, Node, TapNode, assert_frames, encap_out, inner_udp,
                    ipv4_key, loaded_node, routed_inner, substrate, write_pcap)

pytestmark = needs_root

NH1 = LOAD_NH
NH3 = TAP_NH3

# slicepath/proto.h
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
NOT_FOUND, QUOTA, NO_ROOM, BUSY, TOO_LARGE, EXISTS = 1001, 1002, 1003, 1004, 1005, 1007


@pytest.fixture
def tap(tmp_path):
    t = TapNode(tmp_path, "api")
    yield t
    t.node.kill()


def test_filters_change_forwarding_while_traffic_flows(tap):
    tap.start()
    n = tap.node
    pkts = [inner_udp(dst, seq=i) for i, dst in enumerate(
        ["192.168.1.5", "192.168.1.5", "192.168.1.5", "192.168.2.5", "192.168.1.5",
         "192.168.1.5"])]
    want = []
    tap.send(pkts[0])                               # no filter yet: a miss
    # A miss is an exception; with no slow path on alpha's channel it is counted and dropped.
    assert n.call("stats.get", slice="alpha")["slice"]["reasons"] == {"miss": 1,
                                                                       "no_slow_path": 1}
    assert n.call("filter.insert", slice="alpha", **tap.route(10, "192.168.0.0/16", NH1)) == \
        {"written": 1}
    tap.send(pkts[1])
    want.append(tap.expected(pkts[1], NH1))
    # A more specific filter at a higher priority position takes over its prefix only.
    n.call("filter.insert", slice="alpha", **tap.route(0, "192.168.1.0/24", NH3))
    tap.send(pkts[2], pkts[3])
    want += [tap.expected(pkts[2], NH3), tap.expected(pkts[3], NH1)]
    hits = {f["position"]: f["hits"] for f in n.call("filter.list", slice="alpha")}
    assert hits == {0: 1, 10: 2}
    assert n.call("filter.delete", slice="alpha", position=0) == {"deleted": 1}
    tap.send(pkts[4])
    want.append(tap.expected(pkts[4], NH1))
    n.call("filter.delete", slice="alpha", position=10)
    tap.send(pkts[5])                               # no filter left: a miss again
    assert n.call("filter.list", slice="alpha") == []
    st = n.call("stats.get", slice="alpha")
    assert st["slice"]["reasons"] == {"miss": 2, "no_slow_path": 2}
    assert st["slice"]["fwd_pkts"] == 4
    tap.stop()
    assert_frames(n.output(tap.p1), want, "p1 output")


def test_bulk_insert_is_all_or_nothing(tap):
    tap.start()
    n = tap.node
    good = [tap.route(i, f"10.{i // 250}.{i % 250}.0/24", NH1) for i in range(1000)]
    bad = good[:5] + [dict(good[5], result=dict(good[5]["result"], queue=9))]
    with pytest.raises(RpcError) as e:
        n.call("filter.insert", slice="alpha", filters=bad)
    assert e.value.code == NOT_FOUND
    assert "filters[5].result.queue 9" in e.value.message
    assert n.call("filter.list", slice="alpha") == []
    assert n.call("filter.insert", slice="alpha", filters=good) == {"written": 1000}
    listed = n.call("filter.list", slice="alpha")
    assert [(f["position"], f["key"], f["mask"]) for f in listed] == \
        [(f["position"], f["key"], f["mask"]) for f in good]
    dumped = n.call("state.dump")["slices"][0]["filters"]
    assert dumped == listed
    # The filters work: a packet inside the last one goes to NH1.
    p = inner_udp("10.3.249.9")
    tap.send(p)
    assert n.call("filter.list", slice="alpha")[999]["hits"] == 1
    tap.stop()
    assert_frames(n.output(tap.p1), [tap.expected(p, NH1)], "p1 output")


def expect_error(n, code, text, method, **params):
    with pytest.raises(RpcError) as e:
        n.call(method, **params)
    print(f"{method}: {e.value}")
    assert e.value.code == code
    assert text in e.value.message
    return e.value


def test_bad_requests_get_clear_errors_and_change_nothing(tap):
    tap.start()
    n = tap.node
    n.call("filter.insert", slice="alpha", **tap.route(3, "192.168.1.0/24", NH1))
    before = n.call("state.dump")
    route = tap.route(4, "192.168.9.0/24", NH1)
    expect_error(n, NOT_FOUND, 'no slice is named "gamma"', "filter.insert", slice="gamma",
                 **route)
    expect_error(n, NOT_FOUND, "no slice has id 7", "filter.list", slice=7)
    expect_error(n, INVALID_PARAMS, '"slice" must be', "filter.list")
    expect_error(n, QUOTA, "beyond slice alpha's filter quota of 1024", "filter.insert",
                 slice="alpha", **dict(route, position=1024))
    expect_error(n, INVALID_PARAMS, "exactly 28 hex digits", "filter.insert", slice="alpha",
                 **dict(route, key="c0a8"))
    expect_error(n, INVALID_PARAMS, '"position" must be a whole number', "filter.insert",
                 slice="alpha", **dict(route, position="4"))
    expect_error(n, INVALID_PARAMS, "224.0.0.1:7001 is a multicast address", "filter.insert",
                 slice="alpha", **dict(route, result=dict(route["result"],
                                                          next_hop="224.0.0.1:7001")))
    expect_error(n, NOT_FOUND, "result.endpoint 5", "filter.insert", slice="alpha",
                 **dict(route, result=dict(route["result"], endpoint=5)))
    expect_error(n, NOT_FOUND, "no filter at position 4", "filter.delete", slice="alpha",
                 position=4)
    expect_error(n, METHOD_NOT_FOUND, 'no method "filter.add"', "filter.add", slice="alpha")
    e = expect_error(n, NO_ROOM, "at most 10M is left", "queue.set", slice="alpha",
                     queue=0, share=20_000_000)
    assert "a share of 20M bit/s does not fit" in e.message
    assert "reserves 10M bit/s on p1" in e.message
    expect_error(n, NOT_FOUND, "no queue 3 bound", "queue.set", slice="alpha", queue=3)
    expect_error(n, QUOTA, "beyond slice alpha's memory of 4096 bytes", "mem.write",
                 slice="alpha", offset=4094, data="010203")
    expect_error(n, INVALID_PARAMS, "hex digits", "mem.write", slice="alpha", offset=0,
                 data="xyz")
    expect_error(n, INVALID_PARAMS, '"share" is not a parameter of queue.unbind, which takes '
                 'slice, queue', "queue.unbind", slice="alpha", queue=0, share=1)
    expect_error(n, INVALID_PARAMS, '"slice" is not a parameter of node.info, which takes none',
                 "node.info", slice="alpha")
    expect_error(n, INVALID_PARAMS, '"slice": "1" is a string of digits', "filter.list",
                 slice="1")
    assert n.call("state.dump") == before

    # The envelope, sent raw.
    with Rpc(n.mgmt_socket) as r:
        def raw(line):
            r.send_line(line)
            return r.read_reply()["error"]
        assert raw(b"{not json")["code"] == PARSE_ERROR
        # Bytes that are not UTF-8 are quoted as '?' in the message, which stays JSON.
        err = raw(b'{"jsonrpc":"2.0","id":1,"method":"st\xffate.dump"}')
        assert err["code"] == PARSE_ERROR and "\ufffd" not in err["message"]
        assert raw(b'[{"jsonrpc":"2.0","id":1,"method":"state.dump"}]')["code"] == \
            INVALID_REQUEST
        assert raw(b'{"id":1,"method":"state.dump"}')["code"] == INVALID_REQUEST
        assert raw(b'{"jsonrpc":"2.0","id":1,"method":5}')["code"] == INVALID_REQUEST
        assert raw(b'{"jsonrpc":"2.0","id":1,"method":"state.dump","params":[1]}')["code"] == \
            INVALID_PARAMS
        assert raw(b'{"jsonrpc":"2.0","id":1,"id":2,"method":"state.dump"}')["code"] == \
            PARSE_ERROR
    # What changes: memory, queue parameters.
    assert n.call("mem.write", slice="alpha", offset=100, data="c0ffee") == {"written": 3}
    assert n.call("mem.read", slice="alpha", offset=99, length=5) == {"data": "00c0ffee00"}
    n.call("queue.set", slice="alpha", queue=0, share=5_000_000, threshold=4096)
    q = n.call("state.dump")["slices"][0]["queues"][0]
    assert (q["share"], q["threshold"], q["threshold_packets"]) == (5_000_000, 4096, 1024)
    tap.stop()


def test_misbehaving_clients_do_not_stop_the_others(tap):
    tap.start()
    n = tap.node
    path = n.mgmt_socket
    half = socket.socket(socket.AF_UNIX)
    half.connect(str(path))
    half.sendall(b'{"jsonrpc":"2.0","id":7,"method":"sta')   # half a line, then nothing
    assert "slices" in n.call("state.dump")                   # others are served meanwhile
    half.sendall(b'te.dump"}\n')
    reply = json.loads(half.makefile("rb").readline())
    assert reply["id"] == 7 and "slices" in reply["result"]
    half.close()

    with Rpc(path) as r:
        # A notification (no id) gets no answer; the next request gets its own.
        r.send_line(b'{"jsonrpc":"2.0","method":"state.dump"}')
        assert "slices" in r.call("state.dump")
        # A line over 16 MiB: an error, and the connection goes on after its end.
        r.sock.sendall(b"x" * (17 << 20) + b"\n")
        err = r.read_reply()["error"]
        assert err["code"] == TOO_LARGE and "split it" in err["message"]
        assert "slices" in r.call("state.dump")

    conns, refused = [], 0
    for _ in range(300):
        c = socket.socket(socket.AF_UNIX)
        c.connect(str(path))
        conns.append(c)
    time.sleep(0.3)
    for c in conns:
        c.settimeout(0.05)
        try:
            line = c.makefile("rb").readline()
            if line:
                assert json.loads(line)["error"]["code"] == NO_ROOM
                refused += 1
        except (socket.timeout, OSError):
            pass
    print(f"{refused} of 300 connections refused")
    assert refused == 300 - 256 + 1  # 256 at most, this test's own connection among them
    for c in conns:
        c.close()
    assert "slices" in n.call("state.dump")
    tap.stop()


@pytest.fixture
def big_tap(tmp_path):
    """The tap node with room for 110,000 filters in alpha."""
    t = TapNode(tmp_path, "held")
    t.node.npes = [{"filters": 131072, "queues": 256}]
    t.alpha.extra["filter_quota"] = 110000
    yield t
    t.node.kill()


def test_others_are_served_while_a_write_waits_for_its_compile(big_tap):
    """A batch too large to show beside alpha's 100,000 compiled filters waits for a compile
    of them all: the management thread does not, its answer does, and another client is
    answered meanwhile, many times; the batch works once answered."""
    t = big_tap
    t.start()
    n = t.node
    for first in (0, 50000):
        routes = [t.route(i, f"10.{i >> 16}.{(i >> 8) & 255}.{i & 255}/32", NH1)
                  for i in range(first, first + 50000)]
        assert n.call("filter.insert", slice="alpha", filters=routes) == {"written": 50000}
    batch = [t.route(100000 + i, f"172.16.{i}.0/24", NH1) for i in range(200)]
    with Rpc(n.mgmt_socket) as a, Rpc(n.mgmt_socket) as b:
        a.send_line(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "filter.insert",
                                "params": {"slice": "alpha", "filters": batch}}).encode())
        start, served = time.monotonic(), 0
        while not select.select([a.sock], [], [], 0)[0]:
            assert b.call("node.info")["npes"]
            served += 1
        waited = time.monotonic() - start
        assert a.read_reply() == {"jsonrpc": "2.0", "id": 1, "result": {"written": 200}}
    print(f"the batch's answer came after {waited * 1e3:.0f} ms; the other client was "
          f"answered {served} times meanwhile")
    assert served >= 5
    p = inner_udp("172.16.199.9")
    t.send(p)
    assert n.call("stats.get", slice="alpha")["slice"]["reasons"].get("miss", 0) == 0
    t.stop()
    assert_frames(n.output(t.p1), [t.expected(p, NH1)], "p1 output")


def test_socket_is_root_only(tap):
    tap.start()
    path = tap.node.mgmt_socket
    mode = os.stat(path).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600 and os.stat(path).st_uid == 0
    pid = os.fork()
    if pid == 0:  # as nobody
        code = 1
        try:
            os.setgid(65534)
            os.setuid(65534)
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(str(path))
            except PermissionError:
                code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0, "user nobody could connect to the management socket"
    tap.stop()


def test_slice_lifecycle_while_traffic_flows(tap):
    tap.start()
    n = tap.node
    assert n.call("slice.create", name="gamma", codeopt="ipv4", filter_quota=16,
                  queue_quota=2) == {"id": 2, "npe": 0,
                                     "channel": str(n.channel_dir / "gamma.sock")}
    assert n.call("endpoint.reserve", slice="gamma", port="p0", udp_port=6001) == \
        {"endpoint": 0, "udp_port": 6001}
    # Any free UDP port: the lowest from 1024.
    assert n.call("endpoint.reserve", slice="gamma", port="p1", bandwidth=2_000_000) == \
        {"endpoint": 1, "udp_port": 1024}
    assert n.call("queue.bind", slice="gamma", queue=0, endpoint=1, share=2_000_000) == \
        {"bound": 1, "queue": {"id": 0, "endpoint": 1, "threshold": 65536,
                               "threshold_packets": 1024, "share": 2_000_000}}
    n.call("filter.insert", slice="gamma", position=0, key=ipv4_key(dst="10.9.0.0/16")[0],
           mask=ipv4_key(dst="10.9.0.0/16")[1],
           result={"endpoint": 1, "queue": 0, "next_hop": f"{NH1[0]}:{NH1[1]}"})
    assert [s["name"] for s in n.call("slice.list")] == ["alpha", "gamma"]

    def to_gamma(inner):
        tap.sock.send(substrate(inner, tap.p0, 6001))

    def gamma_counts():
        return n.call("stats.get", slice="gamma")["slice"]

    def wait(pred, what):
        deadline = time.monotonic() + 5
        while not pred():
            assert time.monotonic() < deadline, what
            time.sleep(0.02)

    g1 = inner_udp("10.9.1.1", seq=1)
    to_gamma(g1)
    wait(lambda: gamma_counts()["fwd_pkts"] == 1, "gamma did not forward")
    want = [encap_out(routed_inner(g1), tap.p1, 1024, NH1[0], NH1[1], NH1[2])]

    expect_error(n, EXISTS, "already named gamma", "slice.create", name="gamma",
                 codeopt="ipv4")
    expect_error(n, EXISTS, "slice id 1 is taken", "slice.create", name="delta",
                 codeopt="ipv4", id=1)
    expect_error(n, NO_ROOM, "filter positions left", "slice.create", name="delta",
                 codeopt="ipv4", filter_quota=100000)
    expect_error(n, INVALID_PARAMS, "letters, digits or '_'", "slice.create", name="de-lta",
                 codeopt="ipv4")
    expect_error(n, INVALID_PARAMS, 'unknown code option "nosuch"', "slice.create",
                 name="delta", codeopt="nosuch")
    expect_error(n, NOT_FOUND, 'no port "p7"', "endpoint.reserve", slice="gamma", port="p7")
    expect_error(n, EXISTS, "UDP port 5001 on p0 is taken", "endpoint.reserve", slice="gamma",
                 port="p0", udp_port=5001)
    expect_error(n, NO_ROOM, "are reserved, so at most", "endpoint.reserve", slice="gamma",
                 port="p1", bandwidth=20_000_000_000)
    expect_error(n, BUSY, "queue 0 of slice gamma was bound for endpoint 1",
                 "endpoint.release", slice="gamma", endpoint=1)
    assert [s["name"] for s in n.call("slice.list")] == ["alpha", "gamma"]

    # Its queue unbound, gamma's filter names a queue it no longer has: counted drops.
    assert n.call("queue.unbind", slice="gamma", queue=0) == {"unbound": 1}
    to_gamma(inner_udp("10.9.1.2", seq=2))
    wait(lambda: gamma_counts()["reasons"].get("bad_result") == 1, "no bad_result drop")
    assert n.call("endpoint.release", slice="gamma", endpoint=1) == {"released": 1}
    eps = n.call("state.dump")["slices"][1]["endpoints"]
    assert [(e["index"], e["port"], e["udp_port"]) for e in eps] == [(0, "p0", 6001)]

    # Deleted: its endpoint is gone from the node, alpha goes on.
    assert n.call("slice.delete", slice="gamma") == {"deleted": 1}
    before = n.call("stats.get")["drops"].get("no_endpoint", 0)
    to_gamma(inner_udp("10.9.1.3", seq=3))
    wait(lambda: n.call("stats.get")["drops"].get("no_endpoint", 0) == before + 1,
         "a frame to a deleted slice's endpoint was not counted as no_endpoint")
    n.call("filter.insert", slice="alpha", **tap.route(0, "192.168.0.0/16", NH1))
    a1 = inner_udp("192.168.7.7", seq=4)
    tap.send(a1)
    want.append(tap.expected(a1, NH1))
    # The id and the UDP port are free again; the new gamma counts from zero.
    assert n.call("slice.create", name="gamma", codeopt="ipv4")["id"] == 2
    assert n.call("endpoint.reserve", slice="gamma", port="p0", udp_port=6001)["endpoint"] == 0
    assert gamma_counts()["rx_pkts"] == 0
    tap.stop()
    assert_frames(n.output(tap.p1), want, "p1 output")


def slices_under_load(tmp_path, tag, names):
    """Slices (ids 1, 2, ...) that each reserve 400 Mb/s of p1's 800 Mb/s scheduler and
    route 10.9.0.0/16 there through queue 0, with inputs replayed forever from a pcap."""
    n, p0, p1, pcap = loaded_node(tmp_path, tag, "800M")
    frames = []
    for sid, name in enumerate(names, 1):
        s = n.slice(name, sid)
        s.endpoint(p0, 5000 + sid)
        out = s.endpoint(p1, 5000 + sid, bandwidth="400M")
        s.queue(0, out, share="400M")
        s.route(0, "10.9.0.0/16", endpoint=out, queue=0, next_hop=f"{NH1[0]}:{NH1[1]}")
    for i in range(20):
        for sid in range(1, len(names) + 1):
            frames.append(substrate(inner_udp(f"10.9.{sid}.{i + 1}", payload=bytes(1000)), p0,
                                    5000 + sid))
    write_pcap(pcap, frames)
    return n


def test_deleting_a_backlogged_slice_under_load(tmp_path):
    """Slices a and b share p1's 800 Mb/s scheduler with inputs replayed forever: b is
    deleted while its queue is full and created again; a forwards throughout."""
    n = slices_under_load(tmp_path, "churn", ["a", "b"])
    n.start()
    try:
        def sent(name):
            return n.call("stats.get", slice=name)["queues"]["0"]["sent_pkts"]
        time.sleep(0.5)
        q = n.call("stats.get", slice="b")["queues"]["0"]
        assert q["len_pkts"] > 0, "b's queue is not backlogged"
        for round_ in range(3):
            a_before = sent("a")
            assert n.call("slice.delete", slice="b") == {"deleted": 1}
            assert [s["name"] for s in n.call("slice.list")] == ["a"]
            n.call("slice.create", name="b", codeopt="ipv4", id=2)
            n.call("endpoint.reserve", slice="b", port="p0", udp_port=5002)
            n.call("endpoint.reserve", slice="b", port="p1", bandwidth=400_000_000)
            n.call("queue.bind", slice="b", queue=0, endpoint=1, share=400_000_000)
            n.call("filter.insert", slice="b", position=0, key=ipv4_key(dst="10.9.0.0/16")[0],
                   mask=ipv4_key(dst="10.9.0.0/16")[1],
                   result={"endpoint": 1, "queue": 0, "next_hop": f"{NH1[0]}:{NH1[1]}"})
            time.sleep(0.3)
            assert sent("a") > a_before, f"round {round_}: a stopped forwarding"
            assert sent("b") > 0, f"round {round_}: the new b does not forward"
    finally:
        n.stop()


def test_scheduler_rate_changes_under_load(tmp_path):
    """sched.set while a backlogged queue drains p1: the wire rate follows at once."""
    n = slices_under_load(tmp_path, "sched", ["a"])
    n.start()
    try:
        clock = Clock(n)

        def sent(seconds=2.0):
            """Wire bits a's queue sent over seconds, and that window (lcore_time.py)."""
            def wire():
                q = n.call("stats.get", slice="a")["queues"]["0"]
                return q["sent_bytes"] + 24 * q["sent_pkts"]
            (t0, b0), _ = sampled(clock, wire), time.sleep(seconds)
            t1, b1 = sampled(clock, wire)
            return (b1 - b0) * 8, Window(t0, t1)
        time.sleep(0.5)
        before = sent()
        assert n.call("sched.set", npe=0, port="p1", rate=500_000_000) == \
            {"set": 1, "scheduler": {"npe": 0, "port": "p1", "rate": 500_000_000,
                                     "overhead": 24, "reserved": 400_000_000}}
        time.sleep(0.1)
        after = sent()
        check_rate("at 800M", *before, 800e6)
        check_rate("at 500M", *after, 500e6)
        sched = [x for x in n.call("state.dump")["schedulers"] if x["port"] == "p1"]
        assert sched == [{"npe": 0, "port": "p1", "rate": 500_000_000, "overhead": 24,
                          "reserved": 400_000_000}]
        expect_error(n, NO_ROOM, "reserve 400M bit/s on p1", "sched.set", npe=0,
                     port="p1", rate=300_000_000)
        expect_error(n, NO_ROOM, "at most 1G is left", "sched.set", npe=0,
                     port="p1", rate=2_000_000_000)
        expect_error(n, NOT_FOUND, 'no port "p9"', "sched.set", npe=0, port="p9", rate=1)
        expect_error(n, NOT_FOUND, "no NPE 3", "sched.set", npe=3, port="p1", rate=1)
        assert [x for x in n.call("state.dump")["schedulers"] if x["port"] == "p1"] == sched
    finally:
        n.stop()


def test_node_info_and_endpoints_at_given_indexes(tap):
    tap.start()
    n = tap.node
    info = n.call("node.info")
    assert [(p["name"], p["index"], p["ipv4"], p["mac"]) for p in info["ports"]] == \
        [("p0", 0, "10.0.0.1", "02:00:00:00:00:10"), ("p1", 1, "10.1.0.1", "02:00:00:00:01:10")]
    assert info["npes"] == [{"id": 0, "lcore": 1, "filters": 4096, "queues": 256,
                             "filter_quotas": 1024, "queue_quotas": 16}]
    assert (info["mbufs"], info["channel_dir"]) == (n.mbufs, str(n.channel_dir))

    # An index given is kept (the gap below it reads as released); a free one is the lowest.
    assert n.call("endpoint.reserve", slice="alpha", port="p0", udp_port=5005, index=5) == \
        {"endpoint": 5, "udp_port": 5005}
    assert n.call("endpoint.reserve", slice="alpha", port="p1", udp_port=5002)["endpoint"] == 2
    eps = n.call("state.dump")["slices"][0]["endpoints"]
    assert [(e["index"], e["udp_port"]) for e in eps] == [(0, 5001), (1, 5001), (2, 5002),
                                                          (5, 5005)]
    expect_error(n, EXISTS, "already has endpoint 5", "endpoint.reserve", slice="alpha",
                 port="p1", udp_port=5006, index=5)
    expect_error(n, INVALID_PARAMS, '"index" must be a whole number from 0 to 15',
                 "endpoint.reserve", slice="alpha", port="p1", index=16)
    # A packet for the endpoint at index 5 is the slice's.
    n.call("filter.insert", slice="alpha", **tap.route(0, "192.168.0.0/16", NH1))
    tap.sock.send(substrate(inner_udp("192.168.3.3"), tap.p0, 5005))
    deadline = time.monotonic() + 5
    while n.call("stats.get", slice="alpha")["endpoints"][3]["rx_pkts"] != 1:
        assert time.monotonic() < deadline, "the endpoint at index 5 did not count its packet"
        time.sleep(0.02)

    created = n.call("slice.create", name="owned", codeopt="ipv4", owner=4242, managed=True)
    listed = {s["name"]: s for s in n.call("slice.list")}
    assert (listed["owned"]["owner"], listed["owned"]["managed"]) == (4242, True)
    assert "owner" not in listed["alpha"] and listed["alpha"]["managed"] is False
    assert listed["owned"]["channel"] == created["channel"]
    expect_error(n, INVALID_PARAMS, '"managed" must be true or false', "slice.create",
                 name="other", codeopt="ipv4", managed=1)
    tap.stop()
