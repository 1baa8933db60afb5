# SPDX-License-Identifier: BSD-3-Clause
"""Persistence: every change slicectld acknowledged survives kill -9 of slicectld and,
separately, of slicepathd; after the restart the node forwards exactly as before (checked
on the wire) and state.dump shows the same slices, endpoints (at the same indexes), queues,
filters, schedulers and memory. A change slicepathd holds but slicectld never stored (one
not acknowledged) is undone."""

import time

from conftest import needs_root
from ctlnode import NH1, NH3
from spnode import assert_frames, inner_udp, ipv4_key, strip_counters, substrate

pytestmark = needs_root

FILTERS = 20


def acknowledge_changes(ctl):
    """Changes through slicectl, each acknowledged; how many."""
    sc = ctl.ctld.slicectl
    changes = [
        ("slice", "create", "alpha", "codeopt", "ipv4", "filters", 64, "queues", 4,
         "memory", 8192, "buffers", 2000, "inbound", "500M"),
        ("endpoint", "reserve", "alpha", "port", "p0", "udp", 5001, "inbound", "300M"),
        ("endpoint", "reserve", "alpha", "port", "p1", "udp", 5001, "bandwidth", "20M"),
        ("queue", "bind", "alpha", 0, "endpoint", 1, "share", "5M"),
        ("queue", "bind", "alpha", 1, "endpoint", 1, "share", "3M", "threshold", 100000),
        ("mem", "write", "alpha", 4090, "0102030405060708"),   # across a page boundary
        ("sched", "set", 0, "p1", "2G"),
        # beta: its endpoints at indexes 0 and 2, index 1 released.
        ("slice", "create", "beta", "codeopt", "ipv4", "filters", 16, "buffers", 1000),
        ("endpoint", "reserve", "beta", "port", "p0", "udp", 6001),
        ("endpoint", "reserve", "beta", "port", "p1", "udp", 6001),
        ("endpoint", "reserve", "beta", "port", "p1", "udp", 6002),
        ("endpoint", "release", "beta", 1),
        ("queue", "bind", "beta", 0, "endpoint", 2),
        ("filter", "add", "beta", "pos", 3, "dst", "172.16.0.0/12", "endpoint", 2, "queue", 0,
         "nexthop", f"{NH3[0]}:{NH3[1]}"),
        # An IPv6 next hop: stored, compared and replayed as the IPv4 ones are.
        ("filter", "add", "beta", "pos", 4, "dst", "172.31.0.0/16", "endpoint", 2, "queue", 0,
         "nexthop", "[2001:db8:1::9]:7009"),
    ]
    for i in range(FILTERS):
        nh = NH1 if i % 2 == 0 else NH3
        changes.append(("filter", "add", "alpha", "pos", i, "dst", f"192.168.{i}.0/24",
                        "endpoint", 1, "queue", i % 2, "nexthop", f"{nh[0]}:{nh[1]}"))
    for change in changes:
        sc(*change)
    return len(changes)


def traffic(ctl):
    """One packet per filter of alpha and one for beta; the frames p1 must send."""
    want = []
    for i in range(FILTERS):
        inner = inner_udp(f"192.168.{i}.9", seq=i)
        ctl.send("alpha", 5001, inner)
        want.append(ctl.expected(inner, 5001, NH1 if i % 2 == 0 else NH3))
    inner = inner_udp("172.20.0.1", seq=99)
    ctl.send("beta", 6001, inner)
    want.append(ctl.expected(inner, 6002, NH3))
    return want


def state(ctl):
    return (strip_counters(ctl.ctld.call("state.dump")),
            ctl.ctld.call("mem.read", slice="alpha", offset=0, length=8192))


def test_acknowledged_changes_survive_kill_9_of_either_daemon(ctl):
    ctl.start()
    n = acknowledge_changes(ctl)
    print(f"{n} changes acknowledged")
    before = state(ctl)
    assert before[1]["data"][2 * 4090:2 * 4098] == "0102030405060708"
    assert [e["index"] for e in before[0]["slices"][1]["endpoints"]] == [0, 2]
    assert before[0]["slices"][0]["endpoints"][0]["inbound"] == 300_000_000
    assert [s for s in before[0]["schedulers"] if s["port"] == "p1"][0]["rate"] == 2_000_000_000
    assert [f["result"]["next_hop"] for f in before[0]["slices"][1]["filters"]] == \
        [f"{NH3[0]}:{NH3[1]}", "[2001:db8:1::9]:7009"]

    # slicectld dies: restarted, it finds slicepathd as it left it and changes nothing.
    ctl.ctld.kill()
    log_before = len(ctl.ctld.log())
    ctl.ctld.start()
    assert state(ctl) == before
    replay = ctl.ctld.log()[log_before:]
    assert "restored" not in replay and "deleting" not in replay, replay
    traffic(ctl)

    # slicepathd dies: slicectld notices, and replays everything into the new one.
    ctl.node.crash()
    ctl.start_node()
    ctl.ctld.wait_log("slice alpha (id 1) restored with its 20 filter(s)")
    ctl.ctld.wait_log("slice beta (id 2) restored with its 2 filter(s)")
    assert "restored NPE 0's scheduler on p1: 2G bit/s" in ctl.ctld.log()
    assert state(ctl) == before
    want = traffic(ctl)
    ctl.stop()
    assert_frames(ctl.node.output(ctl.p1), want, "p1 output after slicepathd's restart")


def test_changes_never_acknowledged_are_undone(ctl):
    ctl.start()
    sc = ctl.ctld.slicectl
    sc("slice", "create", "alpha", "codeopt", "ipv4", "filters", 64, "buffers", 1000)
    sc("endpoint", "reserve", "alpha", "port", "p1", "udp", 5001)
    sc("queue", "bind", "alpha", 0, "endpoint", 0)
    sc("filter", "add", "alpha", "pos", 1, "dst", "10.0.0.0/8", "endpoint", 0, "queue", 0,
       "nexthop", f"{NH1[0]}:{NH1[1]}")
    before = strip_counters(ctl.ctld.call("state.dump"))
    ctl.ctld.kill()
    # What slicectld would leave behind if it died between slicepathd's answer and its
    # commit: a filter changed, one added, a managed slice created.
    key, mask = ipv4_key(dst="10.1.0.0/16")
    route = {"endpoint": 0, "queue": 0, "next_hop": f"{NH3[0]}:{NH3[1]}"}
    ctl.node.call("filter.insert", slice="alpha", position=1, key=key, mask=mask, result=route)
    ctl.node.call("filter.insert", slice="alpha", position=7, key=key, mask=mask, result=route)
    ctl.node.call("slice.create", name="ghost", codeopt="ipv4", managed=True, filter_quota=8)
    ctl.ctld.start()
    log = ctl.ctld.log()
    assert "slice ghost is in slicepathd but not in the database" in log
    assert "slice alpha: 1 filter(s) rewritten and 1 deleted to match the database" in log
    assert strip_counters(ctl.ctld.call("state.dump")) == before
    ctl.stop()


def test_a_restored_slice_keeps_forwarding_while_slicectld_is_down(ctl):
    """slicepathd goes on forwarding without slicectld; requests meanwhile are refused with
    a clear error by a slicectld without slicepathd, and nothing is stored."""
    ctl.start()
    sc = ctl.ctld.slicectl
    sc("slice", "create", "alpha", "codeopt", "ipv4", "filters", 8, "buffers", 1000)
    sc("endpoint", "reserve", "alpha", "port", "p0", "udp", 5001)
    sc("endpoint", "reserve", "alpha", "port", "p1", "udp", 5001)
    sc("queue", "bind", "alpha", 0, "endpoint", 1)
    sc("filter", "add", "alpha", "pos", 0, "dst", "10.9.0.0/16", "endpoint", 1, "queue", 0,
       "nexthop", f"{NH1[0]}:{NH1[1]}")
    ctl.ctld.kill()
    inner = inner_udp("10.9.1.1")
    ctl.sock.send(substrate(inner, ctl.p0, 5001))
    deadline = time.monotonic() + 5
    while ctl.node.call("stats.get", slice="alpha")["slice"]["fwd_pkts"] != 1:
        assert time.monotonic() < deadline, "alpha stopped forwarding without slicectld"
        time.sleep(0.02)
    # slicepathd gone too: slicectld answers, refuses changes, stores nothing.
    ctl.node.crash()
    ctl.ctld.start(connected=False)
    r = sc("filter", "add", "alpha", "pos", 1, "dst", "10.8.0.0/16", "endpoint", 1, "queue", 0,
           "nexthop", f"{NH1[0]}:{NH1[1]}", check=False)
    assert r.returncode == 2 and "slicepathd is not reachable" in r.stderr
    assert "(code 1008)" in r.stderr
    listed = ctl.ctld.json("slice", "list")
    assert [(s["name"], s["in_force"]) for s in listed] == [("alpha", False)]
    ctl.start_node()
    ctl.ctld.wait_log("slice alpha (id 1) restored with its 1 filter(s)")
    assert [f["position"] for f in ctl.ctld.call("filter.list", slice="alpha")] == [0]
    ctl.stop()
