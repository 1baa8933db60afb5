# SPDX-License-Identifier: BSD-3-Clause
"""Endpoints' inbound bandwidth through the real daemon: p0 replays a pcap forever
(far more than any reservation), two endpoints of one slice on p0 reserve 200 and
100 Mb/s inbound, and what the slice forwards from each (its own queue on p1,
sampled over telemetry while traffic flows) is held to that rate on the wire; the
rest is counted as inbound_rate. Reservations beyond the link are refused over
the management API with what is left."""

import time

import pytest

from conftest import needs_root
from lcore_time import Clock, Window, check_rate, sampled
from spnode import LOAD_NH, inner_udp, loaded_node, substrate, write_pcap
from sp_rpc import RpcError  # noqa: E402 (tools/ is on the path once spnode is imported)

pytestmark = needs_root

SCHED = 800_000_000          # NPE scheduler on p1: room for both streams
INBOUND = {0: 200_000_000, 1: 100_000_000}   # input endpoint -> its inbound rate
OVERHEAD = 24                # what the policer adds to each frame, like the scheduler
PAYLOAD = 1000               # 1070-byte frames in and out
WARMUP = 1.0
PERIOD = 3.0


def wire_bits(q):
    return 8 * (q["sent_bytes"] + OVERHEAD * q["sent_pkts"])


def test_inbound_rates_held_on_the_wire(tmp_path):
    n, p0, p1, pcap = loaded_node(tmp_path, "inbound", SCHED)
    s = n.slice("pol", 1)
    for k, rate in INBOUND.items():
        s.endpoint(p0, 5001 + k, inbound=rate)
    out = s.endpoint(p1, 5001, bandwidth=SCHED)
    for k in INBOUND:
        s.queue(k, out, threshold=1 << 20, share=SCHED // 2)
        s.route(k, f"10.9.{k}.0/24", endpoint=out, queue=k, next_hop=f"{LOAD_NH[0]}:{LOAD_NH[1]}")
    frames = []
    for i in range(20):   # both streams interleaved, each far over its rate
        for k in INBOUND:
            frames.append(substrate(inner_udp(f"10.9.{k}.{i + 1}", payload=bytes(PAYLOAD), seq=i),
                                    p0, 5001 + k))
    write_pcap(pcap, frames)
    n.start()
    try:
        # The policers and the scheduler run on lcore 1: rates in its time (lcore_time.py).
        clock = Clock(n)

        def sample():
            return sampled(clock, lambda: (n.cmd("/slicepath/queues,pol"),
                                           n.cmd("/slicepath/slice,pol")))
        time.sleep(WARMUP)
        t0, (q0, s0) = sample()
        time.sleep(PERIOD)
        t1, (q1, s1) = sample()
        state = n.call("state.dump")
        info = n.call("node.info")
    finally:
        n.stop()
    window = Window(t0, t1)
    for k, want in INBOUND.items():
        check_rate(f"endpoint {k}", wire_bits(q1[str(k)]) - wire_bits(q0[str(k)]), window, want,
                   high=1.02)
    arrived = (s1["rx_bytes"] - s0["rx_bytes"]) * 8 / window.run
    policed = s1["reasons"]["inbound_rate"] - s0["reasons"]["inbound_rate"]
    print(f"arrived {arrived / 1e6:.0f} Mb/s of the lcore's time, {policed} frames dropped as "
          f"inbound_rate")
    assert arrived > 2 * sum(INBOUND.values()), "the input did not exceed the rates"
    assert policed > 0
    # Nothing else was dropped: the queues had room, the scheduler more than both.
    assert s1["reasons"]["queue_full"] == 0
    eps = {e["index"]: e for e in next(x for x in state["slices"] if x["name"] == "pol")["endpoints"]}
    assert {k: eps[k]["inbound"] for k in INBOUND} == INBOUND
    assert eps[out]["inbound"] == 0
    p0_info = next(p for p in info["ports"] if p["name"] == "p0")
    assert p0_info["inbound_reserved"] == sum(INBOUND.values())


def test_inbound_beyond_the_link_refused(std):
    """The API refuses an inbound reservation the port's link cannot take, saying what is
    left, and changes nothing; a release gives the bandwidth back."""
    n = std.node
    n.start()
    try:
        before = n.call("state.dump")
        rate = next(p for p in n.call("node.info")["ports"] if p["name"] == "p0")["rate"]
        big = n.call("endpoint.reserve", slice="alpha", port="p0", udp_port=6001, inbound=rate - 1000)
        with pytest.raises(RpcError) as e:
            n.call("endpoint.reserve", slice="beta", port="p0", udp_port=6002, inbound=2000)
        assert e.value.code == 1003
        assert "2k bit/s inbound on p0 do not fit" in e.value.message
        assert "at most 1k is left" in e.value.message
        ok = n.call("endpoint.reserve", slice="beta", port="p0", udp_port=6002, inbound=1000)
        n.call("endpoint.release", slice="beta", endpoint=ok["endpoint"])
        n.call("endpoint.release", slice="alpha", endpoint=big["endpoint"])
        after = n.call("state.dump")
        # a bad type is refused by the envelope
        with pytest.raises(RpcError) as e:
            n.call("endpoint.reserve", slice="beta", port="p0", inbound="fast")
        assert e.value.code == -32602
    finally:
        n.stop()
    assert after == before
