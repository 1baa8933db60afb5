# SPDX-License-Identifier: BSD-3-Clause
"""Steering through slicectl on a node of two LC lcores (docs/config.md, "Steering"): its
ports take no rte_flow rule here (p0 a tap on a kernel without flower, p1 a pcap), so
`slicectl node` shows each steered in software and why; slices created on both NPEs at run
time receive every frame of theirs, from both queues of the tap, and forward it; an
operator moves one to the other NPE with `slicectl slice move`, and the move is kept."""

from conftest import needs_root
from ctlnode import NH1
from spnode import assert_frames, inner_udp, substrate

pytestmark = needs_root


def two_lc_lcores(ctl):
    n = ctl.node
    n.lcores = [{"id": 1, "lc": True, "npes": [0]}, {"id": 2, "lc": True, "npes": [1]}]
    n.eal_extra = ["--lcores", "0@0,1@1,2@0"]
    n.npes = [{"filters": 4096, "queues": 256}, {"filters": 4096, "queues": 256}]
    ctl.p1.rx_queues = ctl.p1.tx_queues = 2


def test_slicectl_node_and_slices_on_two_npes(ctl, users):
    two_lc_lcores(ctl)
    ctl.start()
    sc, owner = ctl.ctld.slicectl, users.OWNERS[0]

    out = sc("node", user=owner).stdout.splitlines()
    assert out[0].split() == ["IFACE", "RX_QUEUES", "TX_QUEUES", "STEERING", "RULES", "NOTE"]
    rows = {line.split()[0]: line for line in out[1:]}
    assert rows["p0"].split()[1:5] == ["2", "2", "rss", "0"], out
    assert "the device refused the default rule (every other frame to queue 0)" in rows["p0"]
    assert rows["p1"].split()[1:5] == ["2", "2", "device", "0"], out
    assert "the device takes no rte_flow rule of destination IPv4 and UDP port" in rows["p1"]
    assert {i["name"]: i["steering"] for i in ctl.ctld.json("node")} == {"p0": "rss",
                                                                        "p1": "device"}

    want, udp = [], {"alpha": 5001, "beta": 5002}
    for npe, (name, port) in enumerate(udp.items()):
        sc("slice", "create", name, "codeopt", "ipv4", "owner", owner, "npe", npe, "filters",
           64, "queues", 4, "buffers", 2048, "bandwidth", "50M")
        sc("endpoint", "reserve", name, "port", "p0", "udp", port, user=owner)
        sc("endpoint", "reserve", name, "port", "p1", "udp", port, "bandwidth", "20M",
           user=owner)
        sc("queue", "bind", name, 0, "endpoint", 1, "share", "10M", user=owner)
        sc("filter", "add", name, "pos", 0, "dst", "192.168.0.0/16", "endpoint", 1, "queue", 0,
           "nexthop", f"{NH1[0]}:{NH1[1]}", user=owner)
    assert [s["npe"] for s in ctl.ctld.json("slice", "list", user=owner)] == [0, 1]

    # Many outer flows (source ports): the tap spreads them over both rx queues.
    queues_before = rx_queue_packets(ctl)
    for name, port in udp.items():
        inners = [inner_udp("192.168.1.5", seq=i) for i in range(24)]
        for i, inner in enumerate(inners):
            ctl.sock.send(substrate(inner, ctl.p0, port, udp_sport=20000 + i))
        ctl.wait(lambda: ctl.rx(name) >= len(inners), f"{name} did not count its frames")
        want += [ctl.expected(inner, port, NH1) for inner in inners]
    per_queue = [a - b for a, b in zip(rx_queue_packets(ctl), queues_before)]
    assert all(n > 0 for n in per_queue), f"p0's rx queues received {per_queue}"
    for name in udp:
        sl = ctl.ctld.json("stats", name, user=owner)["slice"]
        assert (sl["rx_pkts"], sl["fwd_pkts"]) == (24, 24), sl

    # An operator moves beta to NPE 0 (its owner may not), where it forwards; the move is
    # stored: slicepathd restarted, slicectld puts beta back on NPE 0.
    refused = sc("slice", "move", "beta", "npe", 0, user=owner, check=False)
    assert refused.returncode != 0 and "operator" in refused.stderr, refused.stderr
    assert "slice beta moved to NPE 0" in sc("slice", "move", "beta", "npe", 0).stdout
    assert {s["name"]: s["npe"] for s in ctl.ctld.json("slice", "list")} == {"alpha": 0,
                                                                            "beta": 0}
    inners = [inner_udp("192.168.1.5", seq=50 + i) for i in range(4)]
    ctl.send("beta", udp["beta"], *inners)
    want += [ctl.expected(inner, udp["beta"], NH1) for inner in inners]
    ctl.node.stop()
    assert_frames(ctl.node.output(ctl.p1), want, "p1 output", ordered=False)
    ctl.start_node()
    ctl.ctld.wait_log("slice beta (id 2) restored with its 1 filter(s)")
    assert {s["name"]: s["npe"] for s in ctl.node.call("slice.list")} == {"alpha": 0, "beta": 0}
    inners = [inner_udp("192.168.1.5", seq=100 + i) for i in range(4)]
    ctl.send("beta", udp["beta"], *inners)
    want_after = [ctl.expected(inner, udp["beta"], NH1) for inner in inners]
    ctl.stop()
    assert_frames(ctl.node.output(ctl.p1), want_after, "p1 output after the restart",
                  ordered=False)


def rx_queue_packets(ctl):
    """p0's frames received per rx queue (the tap's extended stats)."""
    xs = ctl.node.cmd(f"/ethdev/xstats,{ctl.p0.index}")
    return [xs[f"rx_q{q}_packets"] for q in range(2)]
