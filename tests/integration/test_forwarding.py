# SPDX-License-Identifier: BSD-3-Clause
"""Forwarding through the ipv4 code option: several slices on one node, two
output interfaces, and the same traffic with every lcore layout."""

import os

import pytest

from conftest import needs_root
from spnode import DROP_REASONS, assert_frames, inner_udp, neighbor_table, substrate

pytestmark = needs_root


def traffic(std):
    """(input frames for p0, expected frames on p1, expected frames on p2), with
    interleaved slices, varied TTLs and sizes."""
    a, b = std.alpha, std.beta
    plan = [
        # slice, inner dst, output port, next hop, ttl, payload size
        (a, "192.168.1.5", std.p1, std.NH1, 64, 18),
        (b, "192.168.1.5", std.p2, std.NH2B, 64, 18),
        (a, "192.168.2.7", std.p2, std.NH2, 2, 100),
        (b, "172.16.4.4", std.p1, std.NH3, 255, 18),
        (a, "192.168.1.200", std.p1, std.NH1, 128, 1400),
        (a, "192.168.2.1", std.p2, std.NH2, 64, 18),
        (b, "192.168.1.77", std.p2, std.NH2B, 3, 512),
        (a, "192.168.1.5", std.p1, std.NH1, 64, 18),
        (b, "172.16.255.1", std.p1, std.NH3, 64, 60),
        (a, "192.168.2.99", std.p2, std.NH2, 9, 18),
        (b, "192.168.1.5", std.p2, std.NH2B, 64, 18),
        (a, "192.168.1.6", std.p1, std.NH1, 64, 18),
    ]
    rx, out = [], {"p1": [], "p2": []}
    for seq, (s, dst, port, nh, ttl, size) in enumerate(plan):
        payload = bytes((seq + i) & 0xFF for i in range(size))
        inner = inner_udp(dst, src=f"192.0.2.{seq + 1}", ttl=ttl, sport=1000 + seq, dport=53,
                          payload=payload, ident=seq)
        rx.append(std.to_slice(s, inner))
        out[port.name].append((s, std.out(s, inner, port, nh)))
    return rx, out, plan


def check_output(std, out):
    n = std.node
    for port in (std.p1, std.p2):
        got = n.output(port)
        expected = [f for _s, f in out[port.name]]
        # Queues of different slices share the port, so their interleaving is the
        # scheduler's choice; within one slice (one queue) the order must hold.
        assert_frames(got, expected, f"{port.name} output", ordered=False)
        for s in (std.alpha, std.beta):
            sport = s.udp_port_on(port).to_bytes(2, "big")
            mine = [f for f in got if f[34:36] == sport]
            assert_frames(mine, [f for t, f in out[port.name] if t is s],
                          f"{port.name} output of slice {s.name}")


LAYOUTS = {
    # one lcore does everything (run to completion)
    "rtc": dict(lcores=None, eal=[]),
    # LC on lcore 1, the NPE on lcore 2 (2 cores: lcore 2 shares CPU 0 with the main lcore)
    "split": dict(lcores=[{"id": 1, "lc": True}, {"id": 2, "npes": [0]}],
                  eal=["--lcores", "0@0,1@1,2@0"]),
    # LC and NPE 0 on lcore 1, NPE 1 (slice beta) on lcore 2
    "two-npes": dict(lcores=[{"id": 1, "lc": True, "npes": [0]}, {"id": 2, "npes": [1]}],
                     eal=["--lcores", "0@0,1@1,2@0"], npes=2),
}


def two_lc_node(std):
    """The standard node on two LC lcores, each running an NPE (alpha's 0, beta's 1), each
    receiving on its own queue of every port; returns the node."""
    n = std.node
    n.lcores = [{"id": 1, "lc": True, "npes": [0]}, {"id": 2, "lc": True, "npes": [1]}]
    n.eal_extra = ["--lcores", "0@0,1@1,2@0"]
    n.npes = [{"filters": 4096, "queues": 256}, {"filters": 4096, "queues": 256}]
    std.beta.npe = 1
    for port in (std.p0, std.p1, std.p2):
        port.rx_queues = port.tx_queues = 2
    return n


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_slices_forward_to_two_interfaces(std, layout):
    n = std.node
    lay = LAYOUTS[layout]
    n.lcores = lay["lcores"]
    n.eal_extra = lay["eal"]
    if lay.get("npes") == 2:
        n.npes = [{"filters": 4096, "queues": 256}, {"filters": 4096, "queues": 256}]
        std.beta.npe = 1

    std.p1.ipv6 = "2001:db8:1::1"  # the node's own: nothing of the forwarding changes
    rx, out, _plan = traffic(std)
    n.receive(std.p0, rx)
    c = n.run()

    check_output(std, out)

    info = c["info"]
    assert info["state"] == "running"
    assert (info["ports"], info["slices"], info["npes"]) == (3, 2, len(n.npes))

    ports = c["ports"]
    assert ports["p0"]["rx_pkts"] == len(rx)
    assert ports["p0"]["rx_bytes"] == sum(len(f) for f in rx)
    for p in ("p1", "p2"):
        assert ports[p]["tx_pkts"] == len(out[p]), ports[p]
        assert ports[p]["tx_bytes"] == sum(len(f) for _s, f in out[p]), ports[p]
        assert ports[p]["tx_drop_pkts"] == 0
    assert ports["p0"]["tx_pkts"] == 0
    assert ports["p1"]["ipv4"] == std.p1.ipv4
    assert (ports["p0"]["ipv6"], ports["p1"]["ipv6"]) == ("", "2001:db8:1::1"), ports
    assert ports["p1"]["mac"].lower() == std.p1.mac

    assert set(DROP_REASONS) <= set(c["drops"]), f"reasons missing: {set(DROP_REASONS) - set(c['drops'])}"
    assert not any(c["drops"].values()), f"unexpected drops: {c['drops']}"

    for s, expect_fwd in ((std.alpha, 7), (std.beta, 5)):
        sl = c["slices"][s.name]
        assert sl["id"] == s.id and sl["codeopt"] == "ipv4" and sl["npe"] == s.npe
        assert (sl["rx_pkts"], sl["fwd_pkts"], sl["exception_pkts"], sl["drop_pkts"]) == \
            (expect_fwd, expect_fwd, 0, 0), sl
        assert not any(c["slice"][s.name]["reasons"].values())

    # Filter hits by position, each slice its own table (both have 192.168.1.0/24 at 0).
    assert {k: v for k, v in c["filters"]["alpha"].items()} == {"0": 4, "1": 3}
    assert {k: v for k, v in c["filters"]["beta"].items()} == {"0": 3, "1": 2}
    # Both filters in the table, compiled by now or searched beside the compiled ones; a table
    # this small has no tree: its filters are scanned in order.
    for s in (std.alpha, std.beta):
        lk = c["lookup"][s.name]
        assert (lk["quota"], lk["filters"]) == (1024, 2), lk  # filter_quota's default
        assert lk["compiled"] + lk["changes"] >= 2 and lk["form"] == "list", lk
        assert lk["classifier"] == "list", lk
        # Every forwarded packet was looked up; a flow's first packet is never a cache hit.
        assert lk["flow_cache_lookups"] == c["slices"][s.name]["fwd_pkts"], lk
        assert 0 <= lk["flow_cache_hits"] < lk["flow_cache_lookups"] and lk["flow_cache"] == "in use", lk

    # Queues: everything enqueued was sent; nothing left, nothing dropped.
    for s, per_queue in (("alpha", {"0": 4, "1": 3}), ("beta", {"0": 2, "1": 3})):
        qs = c["queues"][s]
        for qid, pk in per_queue.items():
            q = qs[qid]
            assert (q["enq_pkts"], q["sent_pkts"], q["drop_pkts"], q["len_pkts"], q["len_bytes"]) \
                == (pk, pk, 0, 0, 0), f"{s} queue {qid}: {q}"

    # Endpoints: what each received on p0 and sent on p1/p2.
    eps = {(e["slice"], str(e["port"]), e["udp_port"]): e for e in c["endpoints"].values()}
    assert eps[("alpha", "p0", 5001)]["rx_pkts"] == 7
    assert eps[("beta", "p0", 5002)]["rx_pkts"] == 5
    assert eps[("alpha", "p1", 5001)]["tx_pkts"] == 4
    assert eps[("alpha", "p2", 5001)]["tx_pkts"] == 3
    assert eps[("beta", "p1", 5002)]["tx_pkts"] == 2
    assert eps[("beta", "p2", 5002)]["tx_pkts"] == 3


def test_each_lcore_transmits_on_its_own_tx_queue(std):
    """Ports with a tx queue for each forwarding lcore: NPE 1's lcore sends slice beta's
    frames on its own queue (the pcap of queue 1), not through the LC lcore (queue 0)."""
    n = std.node
    lay = LAYOUTS["two-npes"]
    n.lcores, n.eal_extra = lay["lcores"], lay["eal"]
    n.npes = [{"filters": 4096, "queues": 256}, {"filters": 4096, "queues": 256}]
    std.beta.npe = 1
    for port in (std.p1, std.p2):
        port.tx_queues = 2

    rx, out, _plan = traffic(std)
    n.receive(std.p0, rx)
    n.start()
    try:
        info = n.call("node.info")
        ports = n.cmd("/slicepath/ports")
    finally:
        n.stop()

    assert {p["name"]: p["tx_queues"] for p in info["ports"]} == {"p0": 1, "p1": 2, "p2": 2}
    assert (ports["p0"]["tx_queues"], ports["p1"]["tx_queues"]) == (1, 2)
    check_output(std, out)
    for port in (std.p1, std.p2):
        for queue, s in ((0, std.alpha), (1, std.beta)):
            assert_frames(n.output(port, queue), [f for t, f in out[port.name] if t is s],
                          f"{port.name} tx queue {queue}")


def test_two_lc_lcores_each_receive_their_own_queue(std):
    """Two LC lcores, each with NPE: p0's two rx queues (a pcap file each, both slices in
    both) go one to each LC, which hands every frame to its slice's NPE, directly or through
    the other's ring. Every frame comes out right, each input queue's frames of a slice in
    their order, and the counters add up."""
    n = two_lc_node(std)

    rx, out, plan = traffic(std)
    by_queue = {0: rx[0::2], 1: rx[1::2]}  # frame seq goes to rx queue seq % 2
    for q, frames in by_queue.items():
        n.receive(std.p0, frames, queue=q)
    n.start()
    try:
        n.wait_rx()
        info = n.call("node.info")
        c = n.counters()
        lcores = n.cmd("/slicepath/lcores")
    finally:
        n.stop()

    p0 = next(p for p in info["ports"] if p["name"] == "p0")
    assert (p0["rx_queues"], p0["tx_queues"], p0["steering"]) == (2, 2, "device"), p0
    # Each LC lcore hands the other NPE's frames of its queue over; each NPE takes its own.
    for q, (lcore, mine) in enumerate((("1", std.alpha), ("2", std.beta))):
        frames = [entry[0] for seq, entry in enumerate(plan) if seq % 2 == q]
        want = {"lc_index": q, "npes": str(q), "rx_pkts": len(frames),
                "crossed_pkts": sum(s is not mine for s in frames),
                "npe_pkts": sum(entry[0] is mine for entry in plan)}
        assert lcores[lcore] == want, lcores
    seqs = {"p1": [], "p2": []}  # the input seq of each expected output frame, in order
    for seq, entry in enumerate(plan):
        seqs[entry[2].name].append(seq)
    for port in (std.p1, std.p2):
        got = n.output(port)
        assert_frames(got, [f for _s, f in out[port.name]], f"{port.name} output", ordered=False)
        for s in (std.alpha, std.beta):
            sport = s.udp_port_on(port).to_bytes(2, "big")
            mine = [f for f in got if f[34:36] == sport]
            want = [(seq, f) for seq, (t, f) in zip(seqs[port.name], out[port.name]) if t is s]
            assert_frames(mine, [f for _seq, f in want], f"{port.name}, slice {s.name}",
                          ordered=False)
            for q in by_queue:  # an input queue's frames of a slice keep their order
                order = [f for seq, f in want if seq % 2 == q]
                assert [f for f in mine if f in order] == order, f"{port.name} {s.name} rxq {q}"
    assert c["ports"]["p0"]["rx_pkts"] == len(rx)
    assert not any(c["drops"].values()), c["drops"]
    for s, fwd in ((std.alpha, 7), (std.beta, 5)):
        sl = c["slices"][s.name]
        assert (sl["rx_pkts"], sl["fwd_pkts"], sl["drop_pkts"]) == (fwd, fwd, 0), sl


def test_two_lc_lcores_steered_take_each_frame_on_its_npes_lcore(std):
    """Each of p0's rx queues carrying only the frames of the slice whose NPE runs on its
    LC lcore (what rte_flow rules per endpoint deliver on a NIC): every frame goes from rx
    to tx on the lcore that received it, none crosses to the other (/slicepath/lcores),
    and every frame comes out right."""
    n = two_lc_node(std)
    rx, out, plan = traffic(std)
    for q, mine in enumerate((std.alpha, std.beta)):
        n.receive(std.p0, [f for f, entry in zip(rx, plan) if entry[0] is mine], queue=q)
    n.start()
    try:
        n.wait_rx()
        lcores = n.cmd("/slicepath/lcores")
    finally:
        n.stop()
    for q, (lcore, mine) in enumerate((("1", std.alpha), ("2", std.beta))):
        count = sum(entry[0] is mine for entry in plan)
        assert lcores[lcore] == {"lc_index": q, "npes": str(q), "rx_pkts": count,
                                 "crossed_pkts": 0, "npe_pkts": count}, lcores
    for port in (std.p1, std.p2):
        assert_frames(n.output(port), [f for _s, f in out[port.name]], f"{port.name} output",
                      ordered=False)


@pytest.mark.parametrize("nb_lc", [1, 2])
def test_lc_lcores_poll_every_rx_queue_of_theirs(std, nb_lc):
    """"rx_queues": 4 on p0 (four rx_pcap files): one LC lcore polls all four, two poll
    two each (LC k queues k and k + 2); every frame is received once, by the lcore of its
    queue, and comes out right."""
    n = two_lc_node(std) if nb_lc == 2 else std.node
    std.p0.rx_queues = std.p0.rx_queues_key = 4
    rx, out, _plan = traffic(std)
    for q in range(4):
        n.receive(std.p0, rx[q::4], queue=q)
    n.start()
    try:
        n.wait_rx()
        info = n.call("node.info")
        lcores = n.cmd("/slicepath/lcores")
    finally:
        n.stop()
    assert next(p["rx_queues"] for p in info["ports"] if p["name"] == "p0") == 4
    got = {k: v["rx_pkts"] for k, v in lcores.items()}
    want = {str(k + 1): sum(len(rx[q::4]) for q in range(k, 4, nb_lc)) for k in range(nb_lc)}
    assert got == want, lcores
    for port in (std.p1, std.p2):  # a slice's frames in several queues: no order among them
        assert_frames(n.output(port), [f for _s, f in out[port.name]], f"{port.name} output",
                      ordered=False)


def test_two_lc_lcores_police_an_endpoint_with_one_bucket(std):
    """An endpoint's inbound policer is one bucket whichever LC lcore receives: 400 frames
    at once over both rx queues, 1 Mb/s inbound, pass about the bucket's depth (2 frames of
    2 KB: 37 of these), not twice it, and every frame is counted once."""
    n = two_lc_node(std)
    std.alpha.endpoints[0] = ("p0", 5001, {"inbound": 1_000_000})
    frames = [std.to_slice(std.alpha, inner_udp(f"192.168.1.{i % 200 + 1}", payload=bytes(18),
                                                sport=1000 + i, ident=i)) for i in range(400)]
    n.receive(std.p0, frames[0::2], queue=0)
    n.receive(std.p0, frames[1::2], queue=1)
    n.start()
    try:
        n.wait_rx()
        c = n.counters()
    finally:
        n.stop()
    sl = c["slices"]["alpha"]
    policed = c["slice"]["alpha"]["reasons"]["inbound_rate"]
    assert sl["rx_pkts"] == 400 and sl["fwd_pkts"] + policed == 400, sl
    assert 30 <= sl["fwd_pkts"] <= 60, sl
    assert c["ports"]["p1"]["tx_pkts"] == sl["fwd_pkts"]


def test_memif_and_tap_ports_keep_one_tx_queue(std):
    """With two forwarding lcores a memif port (its queues are rings the peer negotiates)
    and a tap port (it takes no more tx queues than rx) keep the LC lcore's one tx queue,
    while a pcap port with two tx files gets two."""
    n = std.node
    std.p0.device = f"net_tap{std.p0.index},iface=spq{os.getpid() % 100000}"
    n.lcores, n.eal_extra = LAYOUTS["two-npes"]["lcores"], LAYOUTS["two-npes"]["eal"]
    n.npes = [{"filters": 4096, "queues": 256}, {"filters": 4096, "queues": 256}]
    std.beta.npe = 1
    std.p1.tx_queues = 2
    std.p2.device = (f"net_memif{std.p2.index},role=server,"
                     f"socket=/tmp/{n.prefix}-p2.sock,socket-abstract=no")
    n.start()
    try:
        info = n.call("node.info")
    finally:
        n.stop()
    assert {p["name"]: p["tx_queues"] for p in info["ports"]} == {"p0": 1, "p1": 2, "p2": 1}
    assert "p0: device net_tap0" in n.log() and "failed to configure with 2 tx queues" in n.log()
    assert "p2: device net_memif2" in n.log() and "one tx queue, the LC lcore's" in n.log()


def test_static_neighbors_are_reported(std):
    """/slicepath/neighbors lists the config's static neighbors ("<port>/<ipv4>": mac)."""
    n = std.node
    n.receive(std.p0, [std.to_slice(std.alpha, inner_udp("192.168.1.5"))])
    c = n.run()
    neigh = neighbor_table(c["neighbors"])
    assert neigh.get(("p1", std.NH1[0])) == std.NH1[2], f"static neighbors: {c['neighbors']}"
    assert neigh.get(("p1", std.NH3[0])) == std.NH3[2], f"static neighbors: {c['neighbors']}"
    assert neigh.get(("p2", std.NH2[0])) == std.NH2[2], f"static neighbors: {c['neighbors']}"
    assert len(neigh) == 3, c["neighbors"]


def test_queue_over_threshold_drops_and_counts(std):
    """A burst far above a queue's byte threshold: the queue takes what fits, the rest
    is dropped as queue_full, and what it took leaves in order."""
    n, a = std.node, std.alpha
    a.queues[0]["threshold"] = 2048  # the smallest threshold: one 1400-byte packet fits
    inners = [inner_udp("192.168.1.10", seq=i, payload=bytes([i]) * 1400) for i in range(32)]
    n.receive(std.p0, [std.to_slice(a, i) for i in inners])

    c = n.run()

    q = c["queues"]["alpha"]["0"]
    assert q["drop_pkts"] > 0, f"nothing dropped above the threshold: {q}"
    assert q["enq_pkts"] + q["drop_pkts"] == len(inners), q
    assert q["sent_pkts"] == q["enq_pkts"] and q["len_pkts"] == 0, q
    assert c["drops"]["queue_full"] == q["drop_pkts"], c["drops"]
    assert c["slice"]["alpha"]["reasons"]["queue_full"] == q["drop_pkts"]
    assert c["slices"]["alpha"]["drop_pkts"] == q["drop_pkts"]
    assert c["slices"]["alpha"]["fwd_pkts"] + q["drop_pkts"] == len(inners)

    out = n.output(std.p1)
    assert len(out) == q["sent_pkts"]
    expected = [std.out(a, i, std.p1, std.NH1) for i in inners]
    # what was sent is the expected frames minus the dropped ones, in order
    it = iter(expected)
    assert all(any(f == e for e in it) for f in out), "p1 output is not an in-order subset"


def test_names_the_config_accepts_appear_in_telemetry(node):
    """Port and slice names ([A-Za-z0-9_], docs/config.md) are the telemetry keys."""
    p_in = node.port("in_0", "10.0.0.1", "02:00:00:00:00:10")
    p_out = node.port("Out_1", "10.1.0.1", "02:00:00:00:01:10")
    node.neighbor(p_out, "10.1.0.2", "02:bb:00:00:01:02")
    s = node.slice("tenant_A7", 7)
    s.endpoint(p_in, 5001)
    e = s.endpoint(p_out, 5001)
    s.queue(0, e)
    s.route(0, "0.0.0.0/0", endpoint=e, queue=0, next_hop="10.1.0.2:7001")
    node.receive(p_in, [substrate(inner_udp("192.168.1.1"), p_in, 5001)])
    c = node.run()
    assert set(c["ports"]) == {"in_0", "Out_1"}, f"ports reported: {list(c['ports'])}"
    assert set(c["slices"]) == {"tenant_A7"}, f"slices reported: {list(c['slices'])}"
    assert c["slices"]["tenant_A7"]["fwd_pkts"] == 1
    assert c["slice"]["tenant_A7"]["fwd_pkts"] == 1
    assert c["queues"]["tenant_A7"]["0"]["sent_pkts"] == 1
    assert neighbor_table(c["neighbors"]) == {("Out_1", "10.1.0.2"): "02:bb:00:00:01:02"}
