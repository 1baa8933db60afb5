"""Steering endpoints to their NPE's lcore (docs/config.md, "Steering"): rte_flow rules
where the device takes them, else software steering, and the reason shown. No device on
these machines takes a rule (net_tap needs the kernel's flower classifier, the other vdevs
have no rte_flow), so what is checked here is the way down: every port says how it is
steered and why, traffic goes on, and a port that must have rules stops the start."""
import os
import time

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from conftest import needs_root
from sp_rpc import RpcError
from spnode import LOAD_NH, Node, inner_udp, substrate, write_pcap
from test_forwarding import two_lc_node


def tap_device(port):
    return f"net_tap{port.index},iface=spt{os.getpid() % 100000}"


@needs_root
def test_ports_whose_device_refuses_rules_are_steered_in_software(std):
    """A tap port (its kernel refuses the rules), a pcap port (no rte_flow) and a port set
    to "software": each is steered in software, says so and why in node.info and
    telemetry, and an endpoint reserved and released at run time leaves it so."""
    n = two_lc_node(std)
    std.p0.device = tap_device(std.p0)
    std.p1.steering = "software"
    n.start()
    try:
        info = n.call("node.info")
        ep = n.call("endpoint.reserve", slice="alpha", port="p0", udp_port=7001)
        after = n.call("node.info")
        n.call("endpoint.release", slice="alpha", endpoint=ep["endpoint"])
        tel = n.cmd("/slicepath/ports")
    finally:
        n.stop()
    ports = {p["name"]: p for p in info["ports"]}
    assert ports["p0"]["steering"] == "rss", ports["p0"]
    assert ports["p0"]["steering_note"].startswith(
        "the device refused the default rule (every other frame to queue 0)"), ports["p0"]
    assert ports["p1"]["steering"] == "device", ports["p1"]
    assert ports["p1"]["steering_note"] == '"steering": "software"', ports["p1"]
    assert ports["p2"]["steering"] == "device", ports["p2"]
    assert ports["p2"]["steering_note"] == ("the device takes no rte_flow rule of destination "
                                            "IPv4 and UDP port to a queue: Function not "
                                            "implemented"), ports["p2"]
    assert all(p["steering_rules"] == 0 for p in info["ports"] + after["ports"]), after
    assert [p["steering"] for p in after["ports"]] == ["rss", "device", "device"], after
    assert tel["p0"]["steering"] == "rss" and tel["p0"]["steering_rules"] == 0, tel["p0"]
    assert tel["p2"]["steering_note"].startswith("the device takes no rte_flow rule"), tel
    log = n.log()
    assert "steer: p0: steering endpoints in software (rss): the device refused" in log, log
    assert "steer: p2: steering endpoints in software (device)" in log, log
    assert "steer: p1" not in log, log  # "software": no rule tried


@needs_root
@pytest.mark.parametrize("device", ["tap", "pcap"])
def test_rte_flow_steering_the_device_refuses_exit_2(std, device):
    """"steering": "rte_flow" on a port whose device takes no rule: the node does not
    start (exit 2), naming the port, what the device said and what to set instead."""
    n = two_lc_node(std)
    if device == "tap":
        std.p0.device = tap_device(std.p0)
    std.p0.steering = "rte_flow"
    rc, out = n.run_to_exit()
    assert rc == 2, f"exit status {rc}, expected 2:\n{out}"
    said = {"tap": "the device refused the default rule (every other frame to queue 0): ",
            "pcap": "the device takes no rte_flow rule of destination IPv4 and UDP port to a "
                    "queue: Function not implemented"}[device]
    assert f'slicepathd: port p0: "steering": "rte_flow", but {said}' in out, out
    assert 'set it to "auto" or "software" to steer in software' in out, out


def moving_node(tmp_path):
    """Two LC lcores each running an NPE; alpha (192.168.1.0/24) on NPE 0 and beta
    (192.168.2.0/24) on NPE 1, both in both of p0's rx queues, replayed forever; p1's
    schedulers at 10 Mb/s an NPE, each slice reserving 4 of them, so its pcaps stay small.
    Returns (node, p0, p1)."""
    n = Node(tmp_path, "move")
    q0, q1 = tmp_path / "q0.pcap", tmp_path / "q1.pcap"
    p0 = n.port("p0", "10.0.0.1", "02:00:00:00:00:10",
                device=f"net_pcap0,rx_pcap={q0},rx_pcap={q1},infinite_rx=1")
    p1 = n.port("p1", "10.1.0.1", "02:00:00:00:01:10", rate="1G")
    p1.rx_queues = p1.tx_queues = 2
    n.neighbor(p1, LOAD_NH[0], LOAD_NH[2])
    n.npes = [{"filters": 4096, "queues": 256, "rates": {"p1": "10M"}}] * 2
    n.lcores = [{"id": 1, "lc": True, "npes": [0]}, {"id": 2, "lc": True, "npes": [1]}]
    n.eal_extra = ["--lcores", "0@0,1@1,2@0"]
    n.mbufs = 32768
    frames = []
    for sid, name in ((1, "alpha"), (2, "beta")):
        s = n.slice(name, sid)
        s.npe = sid - 1
        s.endpoint(p0, 5000 + sid)
        out = s.endpoint(p1, 5000 + sid, bandwidth="4M")
        s.queue(0, out, share="4M")
        s.route(7, f"192.168.{sid}.0/24", endpoint=out, queue=0,
                next_hop=f"{LOAD_NH[0]}:{LOAD_NH[1]}")
        frames.append([substrate(inner_udp(f"192.168.{sid}.{i + 1}", seq=i), p0, 5000 + sid)
                       for i in range(16)])
    mixed = [f for pair in zip(*frames) for f in pair]
    write_pcap(q0, mixed)
    write_pcap(q1, mixed[::-1])
    return n, p0, p1


@needs_root
def test_slice_moves_between_npes_under_traffic(tmp_path):
    """slice.move takes alpha from NPE 0 to NPE 1 and back, six times, while both slices'
    frames pour in on both LC lcores: each move keeps its filters, queue and reservation
    (now on the new NPE's scheduler), alpha forwards after each, and of everything p1
    sends no frame carries one slice's packet from another slice's endpoint."""
    n, _p0, p1 = moving_node(tmp_path)
    n.start()
    try:
        def filters():  # the hit counters restart on the new NPE
            return [{k: v for k, v in f.items() if k != "hits"}
                    for f in n.call("filter.list", slice="alpha")]

        before = filters()
        for i in range(6):
            to = 1 - i % 2
            fwd = n.cmd("/slicepath/slice,alpha")["fwd_pkts"]
            assert n.call("slice.move", slice="alpha", npe=to) == {"npe": to}
            moved = next(s for s in n.call("slice.list") if s["name"] == "alpha")
            assert moved["npe"] == to, moved
            assert filters() == before
            scheds = {(s["npe"], s["port"]): s["reserved"] for s in n.call("state.dump")["schedulers"]}
            assert (scheds[(0, "p1")], scheds[(1, "p1")]) == (4e6 * (to == 0), 4e6 * (1 + to)), scheds
            deadline = time.monotonic() + 5
            while n.cmd("/slicepath/slice,alpha")["fwd_pkts"] <= fwd + 100:
                assert time.monotonic() < deadline, f"alpha forwards nothing on NPE {to}"
                time.sleep(0.05)
        queues = n.call("state.dump")
        assert n.call("slice.move", slice="alpha", npe=0) == {"npe": 0}  # where it is: nothing to do
    finally:
        n.stop()
    alpha = next(s for s in queues["slices"] if s["name"] == "alpha")
    assert alpha["npe"] == 0 and [q["share"] for q in alpha["queues"]] == [4_000_000], alpha
    out = n.output(p1)
    assert len(out) > 1000, f"p1 sent {len(out)} frames"
    for f in out:
        e = Ether(f)
        slice_net = {5001: "192.168.1.", 5002: "192.168.2."}[e[UDP].sport]
        inner = IP(bytes(e[UDP].payload))
        assert inner.dst.startswith(slice_net), f"{inner.dst} left from endpoint {e[UDP].sport}"


@needs_root
def test_slice_move_that_does_not_fit_changes_nothing(std):
    """A move to an NPE without room for the slice's filter quota, or to no NPE: refused,
    saying why, and the slice stays where it was, forwarding."""
    n = two_lc_node(std)
    n.npes = [{"filters": 4096, "queues": 256}, {"filters": 8, "queues": 256}]
    std.beta.npe = 0
    n.start()
    try:
        with pytest.raises(RpcError) as small:
            n.call("slice.move", slice="alpha", npe=1)
        with pytest.raises(RpcError) as none:
            n.call("slice.move", slice="alpha", npe=2)
        npes = {s["name"]: s["npe"] for s in n.call("slice.list")}
    finally:
        n.stop()
    assert "NPE 1 has 8 of its 8 filter positions left" in str(small.value), small.value
    assert "no NPE 2: the node has 2" in str(none.value), none.value
    assert npes == {"alpha": 0, "beta": 0}
