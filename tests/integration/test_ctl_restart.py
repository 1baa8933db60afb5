# SPDX-License-Identifier: BSD-3-Clause
"""A restart brings back every acknowledged slice (docs/api.md, "Durability"): a host
slice's NAT range is stored and asked for again, so a later slice's endpoint inside an
earlier one's old range comes back; slicectld checks a change against its own stored model,
not slicepathd's live state, and says when slicepathd's copy differs; a slice that cannot be
restored whole is degraded (the rest in force, the reason in slice list, replay.status,
metrics), never deleted, and comes back whole once the cause goes; an until_exit endpoint
whose holder is gone while filters send through it is kept and said once; a whole number
written as a real is that number for every parameter."""

import json
import socket
import subprocess
import sys
import time

from conftest import needs_root
from ctlnode import NH1
from spnode import REPO, inner_udp, ipv4_key

pytestmark = needs_root
CTLD_RETRY_S = 5  # control/slicectld/ctld.h: how often slices not in force are tried again


def until(pred, what, timeout=15):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def live_slice(ctl, name):
    """slicepathd's own view of the slice (state.dump on its management socket), or None."""
    return next((s for s in ctl.node.call("state.dump")["slices"] if s["name"] == name), None)


def restart_slicepathd(ctl):
    """kill -9 slicepathd, start it again, and wait for slicectld's replay into it."""
    seen = ctl.ctld.log().count("replay done")
    ctl.node.kill()
    ctl.start_node()
    ctl.ctld.wait_log("replay done", seen + 1)


def test_nat_ranges_are_stored_so_a_later_slice_comes_back(ctl, users):
    """ha (61000-61255) and hb (61256-61511); ha deleted, a filler takes its id, ng (a later
    id than hb) gets UDP 61050 inside ha's old range. After kill -9 of slicepathd, hb asks for
    its own range again (not the lowest free one) and ng's endpoint comes back."""
    tag = time.monotonic_ns() % 100000
    names = [f"spna{tag}", f"spnb{tag}"]
    try:
        ctl.start()
        sc = ctl.ctld.slicectl
        for slice_name, ns in zip(("ha", "hb"), names):
            sc("slice", "create", slice_name, "codeopt", "host", "netns", ns, "nat", 256,
               "buffers", 1000)
        assert live_slice(ctl, "hb")["host"]["nat_first"] == 61256
        sc("slice", "delete", "ha")
        sc("slice", "create", "fill", "codeopt", "ipv4", "buffers", 1000)
        sc("slice", "create", "ng", "codeopt", "ipv4", "buffers", 1000, "owner",
           users.OWNERS[0])
        assert sorted((s["id"], s["name"]) for s in ctl.ctld.json("slice", "list")) == \
            [(1, "fill"), (2, "hb"), (3, "ng")]
        sc("endpoint", "reserve", "ng", "port", "p0", "udp", 61050, user=users.OWNERS[0])

        restart_slicepathd(ctl)
        assert "cannot be restored" not in ctl.ctld.log() and "is degraded" not in \
            ctl.ctld.log(), ctl.ctld.log()
        assert live_slice(ctl, "hb")["host"]["nat_first"] == 61256
        assert [e["udp_port"] for e in live_slice(ctl, "ng")["endpoints"]] == [61050]
        status = ctl.ctld.call("replay.status")
        assert (status["in_force"], status["degraded"], status["absent"]) == (3, 0, 0), status
        # The range survives slicectld's restart too (it is stored, not learnt anew).
        ctl.ctld.kill()
        ctl.ctld.start()
        restart_slicepathd(ctl)
        assert live_slice(ctl, "hb")["host"]["nat_first"] == 61256
    finally:
        for ns in names:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def make_sa(ctl, user):
    """Slice sa of user: endpoint 0 on p0 (UDP 5001), endpoint 1 on p1 (UDP 5002), queue 0
    feeding endpoint 1, a filter sending 10.9/16 out of endpoint 1 through queue 0."""
    sc = ctl.ctld.slicectl
    sc("slice", "create", "sa", "codeopt", "ipv4", "buffers", 1000, "owner", user)
    for port, udp in (("p0", 5001), ("p1", 5002)):
        sc("endpoint", "reserve", "sa", "port", port, "udp", udp, user=user)
    sc("queue", "bind", "sa", 0, "endpoint", 1, "share", "5M", user=user)
    sc("filter", "add", "sa", "pos", 0, "dst", "10.9.0.0/16", "endpoint", 1, "queue", 0,
       "nexthop", f"{NH1[0]}:{NH1[1]}", user=user)


def test_a_change_is_checked_against_the_stored_model(ctl, users):
    """Root unbinds sa's queue 0 on slicepathd's own socket: the owner's bind of queue 0 to
    endpoint 0 (another port) through slicectld is refused as the model has it, and a filter
    through an endpoint only slicepathd has is refused too. slicectld, restarted, finds
    slicepathd's copy differs, says so (log, slicectl node, metrics) and restores the
    database's: the slice forwards by its filter."""
    owner = users.OWNERS[0]
    ctl.start()
    make_sa(ctl, owner)
    ctl.node.call("queue.unbind", slice="sa", queue=0)
    bad = ctl.ctld.slicectl("queue", "bind", "sa", 0, "endpoint", 0, user=owner, check=False)
    assert bad.returncode != 0 and "queue 0 of slice sa feeds p1; a queue cannot move to " \
        "another port (endpoint 0 is on p0)" in bad.stderr, bad.stderr
    ctl.node.call("endpoint.reserve", slice="sa", port="p1", udp_port=5003)
    bad = ctl.ctld.slicectl("filter", "add", "sa", "pos", 1, "dst", "10.8.0.0/16", "endpoint",
                            2, "queue", 0, "nexthop", f"{NH1[0]}:{NH1[1]}", user=owner,
                            check=False)
    assert bad.returncode != 0 and "result.endpoint 2: slice sa has no endpoint 2" in \
        bad.stderr, bad.stderr

    ctl.ctld.kill()
    ctl.ctld.start()
    ctl.ctld.wait_log("slice sa differs from the database in slicepathd")
    assert [q["id"] for q in live_slice(ctl, "sa")["queues"]] == [0]
    assert [e["udp_port"] for e in live_slice(ctl, "sa")["endpoints"]] == [5001, 5002]
    node = ctl.ctld.slicectl("node").stdout
    assert "slices: 1 in force, 0 degraded, 0 absent; slicepathd found other than stored 1 " \
        "time(s)" in node, node
    metrics = ctl.ctld.call("metrics.text")["text"]
    assert "slicectld_divergences_total 1\n" in metrics, metrics
    ctl.send("sa", 5001, inner_udp("10.9.0.7"))
    until(lambda: ctl.ctld.call("stats.get", slice="sa")["slice"]["fwd_pkts"] == 1,
          "the restored slice did not forward by its filter")


def statuses(sock, want):
    """systemd STATUS= lines slicectld sent to $NOTIFY_SOCKET, until want is one of them."""
    said = []
    while want not in said:
        said.append(sock.recv(256).decode())
    return said


def test_a_slice_that_cannot_be_restored_whole_is_degraded_then_whole(ctl, users, tmp_path,
                                                                     monkeypatch):
    """While slicectld is down, a slice of slicepathd's own takes UDP 5002 on p1 from sa.
    At its start slicectld restores what it can of sa (endpoint 0), marks it degraded with the
    reason (slice list, slicectl node, metrics, systemd's status line, the log once), keeps
    everything stored, and once the squatter is gone brings sa back whole by itself and it
    forwards."""
    owner = users.OWNERS[0]
    ctl.start()
    make_sa(ctl, owner)
    ctl.ctld.kill()
    ctl.node.call("slice.delete", slice="sa")
    ctl.node.call("slice.create", name="squat", codeopt="ipv4", id=9, buffer_quota=1000)
    ctl.node.call("endpoint.reserve", slice="squat", port="p1", udp_port=5002)
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(20)
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    ctl.ctld.start()
    assert statuses(notify, "STATUS=serving; 1 slice(s) degraded, 0 absent (slicectl node)")

    ctl.ctld.wait_log("slice sa is degraded")
    listed = {s["name"]: s for s in ctl.ctld.json("slice", "list", user=owner)}
    sa = listed["sa"]
    assert (sa["state"], sa["in_force"]) == ("degraded", False), sa
    assert "UDP port 5002 on p1 is taken" in sa["trouble"], sa
    assert [e["udp_port"] for e in live_slice(ctl, "sa")["endpoints"]] == [5001]
    text = ctl.ctld.slicectl("slice", "list", user=owner).stdout
    assert "degraded: 3 part(s) not restored" in text, text
    node = ctl.ctld.slicectl("node").stdout
    assert "slices: 0 in force, 1 degraded, 0 absent" in node and "sa degraded:" in node, node
    metrics = ctl.ctld.call("metrics.text")["text"]
    assert 'slicectld_slices{state="degraded"} 1\n' in metrics, metrics
    # What is in force stays so: a retry writes only what is missing (the slice is not
    # made again: its counters go on), still refused, said once.
    ctl.send("sa", 5001, inner_udp("10.9.0.7"))
    time.sleep(CTLD_RETRY_S + 1)
    assert ctl.rx("sa") == 1
    assert ctl.ctld.log().count("slice sa is degraded") == 1, ctl.ctld.log()
    assert "differs from the database" not in ctl.ctld.log(), ctl.ctld.log()

    ctl.node.call("slice.delete", slice="squat")
    ctl.ctld.wait_log("slice sa is in force as stored", timeout=15)
    assert statuses(notify, "STATUS=serving")[-1] == "STATUS=serving"
    assert ctl.ctld.call("replay.status")["in_force"] == 1
    assert [f["position"] for f in ctl.ctld.call("filter.list", slice="sa")] == [0]
    ctl.send("sa", 5001, inner_udp("10.9.0.7"))
    until(lambda: ctl.ctld.call("stats.get", slice="sa")["slice"]["fwd_pkts"] == 1,
          "the slice made whole did not forward")


HOLDER = """
import json, sys
sys.path.insert(0, {tools!r})
from sp_rpc import Rpc
r = Rpc({sock!r}).call("endpoint.reserve", slice="u", port="p1", udp_port=7000,
                       until_exit=True)
print(json.dumps(r), flush=True)
sys.stdin.read()
"""


def test_a_gone_holders_endpoint_kept_while_filters_use_it_said_once(ctl):
    """A process reserves an until_exit endpoint; a queue and a filter use it; the process
    exits: the endpoint is kept (its frames keep their way) and the log says so once, not
    every second; when the owner deletes the filter it is released with its queue."""
    ctl.start()
    sc = ctl.ctld.slicectl
    sc("slice", "create", "u", "codeopt", "ipv4", "buffers", 1000)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER.format(tools=str(REPO / "tools"),
                                                                   sock=str(ctl.ctld.socket))],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert json.loads(holder.stdout.readline())["endpoint"] == 0
    sc("queue", "bind", "u", 0, "endpoint", 0)
    sc("filter", "add", "u", "pos", 0, "dst", "10.9.0.0/16", "endpoint", 0, "queue", 0,
       "nexthop", f"{NH1[0]}:{NH1[1]}")
    holder.stdin.close()
    holder.wait(timeout=10)
    ctl.ctld.wait_log(f"process {holder.pid} holding endpoint 0 of slice u (UDP port 7000) is "
                      "gone; kept while filters send through it (positions 0)")
    time.sleep(3)
    log = ctl.ctld.log()
    assert log.count(f"process {holder.pid} holding") == 1, log
    assert [e["udp_port"] for e in live_slice(ctl, "u")["endpoints"]] == [7000]
    sc("filter", "del", "u", "pos", 0)
    ctl.ctld.wait_log(f"process {holder.pid} holding endpoint 0 of slice u (UDP port 7000) is "
                      "gone: released")
    assert live_slice(ctl, "u")["endpoints"] == [] and live_slice(ctl, "u")["queues"] == []


def test_whole_number_reals_are_integers_everywhere(ctl):
    """"slice": 1.0, "position": 9.0, "offset": 1e0 and "length": 1.0 are those integers, on
    slicectld's socket and slicepathd's alike; a fraction is refused naming the parameter."""
    ctl.start()
    ctl.ctld.slicectl("slice", "create", "r", "codeopt", "ipv4", "buffers", 1000,
                      "memory", 64)
    ctl.ctld.slicectl("endpoint", "reserve", "r", "port", "p1", "udp", 5009)
    ctl.ctld.slicectl("queue", "bind", "r", 0, "endpoint", 0)
    key, mask = ipv4_key(dst="10.9.0.0/16")
    result = {"endpoint": 0.0, "queue": 0.0, "next_hop": f"{NH1[0]}:{NH1[1]}"}
    ctl.ctld.call("filter.insert", slice=1.0, position=9.0, key=key, mask=mask, result=result)
    assert [f["position"] for f in ctl.ctld.call("filter.list", slice=1.0)] == [9]
    ctl.ctld.call("mem.write", slice=1.0, offset=1e0, data="ab")
    assert ctl.ctld.call("mem.read", slice="r", offset=1, length=1.0)["data"] == "ab"
    ctl.node.call("filter.delete", slice=1.0, position=9.0)
    for call, params, name in ((ctl.ctld.call, {"slice": "r", "position": 9.5}, "position"),
                               (ctl.node.call, {"slice": "r", "position": 9.5}, "position")):
        try:
            call("filter.delete", **params)
            raise AssertionError("a fraction was taken")
        except Exception as e:  # noqa: BLE001 (sp_rpc.RpcError)
            assert f'"{name}" must be a whole number' in str(e), e
    try:
        ctl.ctld.call("filter.list", slice=1.5)
        raise AssertionError("a fraction was taken as a slice")
    except Exception as e:  # noqa: BLE001
        assert '"slice" must be a slice\'s name or id' in str(e), e
