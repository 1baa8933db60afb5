# SPDX-License-Identifier: BSD-3-Clause
"""Forwarding through the ipv4 code option: several slices on one node, two
output interfaces, and the same traffic with every lcore layout."""

import pytest

from conftest import needs_root
from spnode import DROP_REASONS, assert_frames, inner_udp, neighbor_table

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


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_slices_forward_to_two_interfaces(std, layout):
    n = std.node
    lay = LAYOUTS[layout]
    n.lcores = lay["lcores"]
    n.eal_extra = lay["eal"]
    if lay.get("npes") == 2:
        n.npes = [{"filters": 4096, "queues": 256}, {"filters": 4096, "queues": 256}]
        std.beta.npe = 1

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

    neigh = neighbor_table(c["neighbors"])
    assert neigh.get(("p1", std.NH1[0])) == std.NH1[2], f"static neighbors: {c['neighbors']}"
    assert neigh.get(("p1", std.NH3[0])) == std.NH3[2], f"static neighbors: {c['neighbors']}"
    assert neigh.get(("p2", std.NH2[0])) == std.NH2[2], f"static neighbors: {c['neighbors']}"
