# SPDX-License-Identifier: BSD-3-Clause
"""The queue manager through the real daemon (SPP's fairness experiment): inputs
replayed forever from a pcap keep every queue backlogged, one 800 Mb/s
scheduler shares a port, and the queue counters, sampled over telemetry while
traffic flows, give each queue's share of the wire, the total rate and the
queue lengths. Then the opposite: an output that keeps up holds no backlog."""

import shutil
import tempfile
import time
from pathlib import Path

import pytest

from conftest import needs_root
from lcore_time import Clock, Window, check_rate, sampled
from spnode import LOAD_NH, Node, inner_udp, loaded_node, substrate, write_pcap

pytestmark = needs_root

RATE = 800_000_000           # the NPE's scheduler on p1, bits/s
OVERHEAD = 24                # preamble, FCS, inter-frame gap: the port default
PAYLOAD = 1000               # inner UDP payload bytes: 1070-byte frames out
THRESHOLD = 65536            # queue threshold, bytes
THRESHOLD_PKTS = 100
WARMUP = 1.0                 # s before the first sample
PERIOD = 3.0                 # s measured
SAMPLES = 6                  # samples over the period (queue lengths)
NH = LOAD_NH


def stream(p0, udp_port, dst, count):
    return [substrate(inner_udp(dst, payload=bytes(PAYLOAD), seq=i), p0, udp_port)
            for i in range(count)]


def wire_bytes(q):
    """Bytes a queue's sent frames took on the wire (each is over 60 bytes)."""
    return q["sent_bytes"] + OVERHEAD * q["sent_pkts"]


def measure(n, slices, lcore=1):
    """Per (slice, queue): wire bytes sent, packets offered (taken or dropped) and the
    largest lengths seen, over PERIOD s of traffic, and that window's wall and run time
    of the lcore whose schedulers send them (lcore_time.py)."""
    clock = Clock(n, lcore)

    def sample():
        return sampled(clock, lambda: {s: n.cmd(f"/slicepath/queues,{s}") for s in slices})

    time.sleep(WARMUP)
    t_start, first = sample()
    longest = {}
    last = first
    for _ in range(SAMPLES):
        time.sleep(PERIOD / SAMPLES)
        t_end, last = sample()
        for s, qs in last.items():
            for qid, q in qs.items():
                k = (s, qid)
                prev = longest.get(k, (0, 0))
                longest[k] = (max(prev[0], q["len_bytes"]), max(prev[1], q["len_pkts"]))
    got = {}
    for s, qs in last.items():
        for qid, q in qs.items():
            a = first[s][qid]
            got[(s, qid)] = {
                "wire": wire_bytes(q) - wire_bytes(a),
                "offered": (q["enq_pkts"] + q["drop_pkts"]) - (a["enq_pkts"] + a["drop_pkts"]),
                "longest": longest[(s, qid)],
            }
    return got, Window(t_start, t_end)


def check_lengths(got):
    for k, v in got.items():
        assert v["longest"][0] <= THRESHOLD, f"queue {k} held {v['longest'][0]} bytes"
        assert v["longest"][1] <= THRESHOLD_PKTS, f"queue {k} held {v['longest'][1]} packets"


def run_fairness(tmp_path, tag, pct, busy):
    """One slice, five queues with shares pct (percent of RATE) on p1, inputs for the
    queues in busy only. Returns {queue: wire bytes, offered, lengths} and the window."""
    n, p0, p1, pcap = loaded_node(tmp_path, tag, RATE)
    s = n.slice("fair", 1)
    s.endpoint(p0, 5001)
    out = s.endpoint(p1, 5001, bandwidth=RATE)
    for k, p in enumerate(pct):
        s.queue(k, out, threshold=THRESHOLD, threshold_packets=THRESHOLD_PKTS,
                share=RATE * p // 100)
        s.route(k, f"10.9.{k}.0/24", endpoint=out, queue=k, next_hop=f"{NH[0]}:{NH[1]}")
    frames = []
    for i in range(20):  # the streams interleaved
        for k in busy:
            frames += stream(p0, 5001, f"10.9.{k}.{i + 1}", 1)
    write_pcap(pcap, frames)
    n.start()
    try:
        got, window = measure(n, ["fair"])
    finally:
        n.stop()
    print(f"{tag}: {window} measured")
    return {int(q): v for (_s, q), v in got.items()}, window


def test_shares_30_25_20_15_10_of_800M(tmp_path):
    pct = [30, 25, 20, 15, 10]
    got, window = run_fairness(tmp_path, "fair", pct, busy=range(5))
    total = sum(v["wire"] for v in got.values())
    for k, p in enumerate(pct):
        share = 100 * got[k]["wire"] / total
        print(f"queue {k}: share {p} %, got {share:.2f} % (offered "
              f"{got[k]['offered'] / window.run:.0f} pkt/s of the lcore's time)")
        assert abs(share - p) < 1, f"queue {k}: {share:.2f} % of the wire, configured {p} %"
        assert got[k]["offered"] * (PAYLOAD + 70) * 8 / window.run > RATE * p / 100, \
            f"queue {k} was not backlogged"
    check_rate("the scheduler", total * 8, window, RATE)
    check_lengths(got)


def test_idle_shares_taken_up(tmp_path):
    """Inputs of the 30 % and 10 % queues off: the others fill the scheduler 25:20:15."""
    pct = [30, 25, 20, 15, 10]
    busy = [1, 2, 3]
    got, window = run_fairness(tmp_path, "conserve", pct, busy=busy)
    total = sum(got[k]["wire"] for k in busy)
    assert got[0]["wire"] == 0 and got[4]["wire"] == 0
    for k in busy:
        share = 100 * got[k]["wire"] / total
        want = 100 * pct[k] / sum(pct[j] for j in busy)
        print(f"queue {k}: want {want:.2f} %, got {share:.2f} %")
        assert abs(share - want) < 1
    check_rate("the scheduler", total * 8, window, RATE)
    check_lengths(got)


def check_isolation(got, window, flooder, kept, reserved, flooder_reserved=None, shared=True):
    """Over the time the kept slice's lcore ran (measure()): the flooder (queue 0 of the
    slice) was offered ten times its reservation (flooder_reserved, default the same as
    the kept slice's) at least, the kept slice was backlogged and sent 99 % of its
    reservation at least; and where both share one scheduler, 99 % of its part of what
    the two sent (however little the lcore ran)."""
    f, k = got[(flooder, "0")], got[(kept, "0")]
    offered = f["offered"] * (PAYLOAD + 70) * 8 / window.run
    flooder_reserved = flooder_reserved or reserved
    print(f"{flooder} offered {offered / 1e6:.0f} Mb/s of the lcore's time "
          f"({offered / flooder_reserved:.1f} x its reservation), sent "
          f"{f['wire'] * 8 / window.run / 1e6:.1f} Mb/s")
    assert offered >= 10 * flooder_reserved, \
        f"the input did not reach ten times {flooder}'s reservation"
    assert k["offered"] * (PAYLOAD + 70) * 8 / window.run > reserved, f"{kept} was not backlogged"
    check_rate(kept, k["wire"] * 8, window, reserved, low=0.99, high=None)
    if shared:
        part, want = k["wire"] / (k["wire"] + f["wire"]), reserved / (reserved + flooder_reserved)
        print(f"{kept} sent {100 * part:.2f} % of the two's bytes, reserved {100 * want:.2f} %")
        assert part >= 0.99 * want, f"{kept} sent {100 * part:.2f} % of the two's bytes"
    check_lengths(got)


def test_flooding_slice_cannot_squeeze_another(tmp_path):
    """Slices a and b each reserve half the scheduler; a sends ten times as many
    packets as b, and far more than ten times its reservation: b keeps 99 % of its."""
    n, p0, p1, pcap = loaded_node(tmp_path, "isolation", RATE)
    reserved = RATE // 2
    for sid, name in ((1, "a"), (2, "b")):
        s = n.slice(name, sid)
        s.endpoint(p0, 5000 + sid)
        out = s.endpoint(p1, 5000 + sid, bandwidth=reserved)
        s.queue(0, out, threshold=THRESHOLD, threshold_packets=THRESHOLD_PKTS, share=reserved)
        s.route(0, "10.9.0.0/16", endpoint=out, queue=0, next_hop=f"{NH[0]}:{NH[1]}")
    frames = []
    for i in range(10):
        frames += stream(p0, 5001, f"10.9.1.{i + 1}", 10)  # a: 10 for every one of b
        frames += stream(p0, 5002, f"10.9.2.{i + 1}", 1)
    write_pcap(pcap, frames)
    n.start()
    try:
        got, window = measure(n, ["a", "b"])
    finally:
        n.stop()
    check_isolation(got, window, "a", "b", reserved)


@pytest.mark.parametrize("layout", ["steered", "mixed"])
def test_flooding_slice_on_npe_1_leaves_npe_0_its_rate(tmp_path, layout):
    """Cost isolation across cores: two LC lcores, each running an NPE; slice a on NPE 0,
    slice b on NPE 1, each reserving its NPE's scheduler on p1. b is offered far more than
    ten times its reservation (its frames replayed forever), a just enough to keep its
    queue backlogged: a keeps 99 % of its rate. "steered": p0's rx queue 0 holds a's
    frames and queue 1 b's (as rte_flow rules deliver them); "mixed": both queues carry
    both, so LC 0 also hands b's flood to NPE 1's ring (software steering)."""
    n = Node(tmp_path, f"xcore{layout[0]}")
    q0, q1 = tmp_path / "q0.pcap", tmp_path / "q1.pcap"
    p0 = n.port("p0", "10.0.0.1", "02:00:00:00:00:10",
                device=f"net_pcap0,rx_pcap={q0},rx_pcap={q1},infinite_rx=1")
    p1 = n.port("p1", "10.1.0.1", "02:00:00:00:01:10", device="net_null1,no-rx=1", rate="1G")
    n.neighbor(p1, NH[0], NH[2])
    reserved = RATE // 2
    n.npes = [{"filters": 4096, "queues": 256, "rates": {"p1": reserved}}] * 2
    n.lcores = [{"id": 1, "lc": True, "npes": [0]}, {"id": 2, "lc": True, "npes": [1]}]
    n.eal_extra = ["--lcores", "0@0,1@1,2@0"]
    n.mbufs = 32768
    for sid, name in ((1, "a"), (2, "b")):
        s = n.slice(name, sid)
        s.npe = sid - 1
        s.endpoint(p0, 5000 + sid)
        out = s.endpoint(p1, 5000 + sid, bandwidth=reserved)
        s.queue(0, out, threshold=THRESHOLD, threshold_packets=THRESHOLD_PKTS, share=reserved)
        s.route(0, "10.9.0.0/16", endpoint=out, queue=0, next_hop=f"{NH[0]}:{NH[1]}")
    a = [f for i in range(10) for f in stream(p0, 5001, f"10.9.1.{i + 1}", 1)]
    b = [f for i in range(10) for f in stream(p0, 5002, f"10.9.2.{i + 1}", 10)]
    if layout == "steered":
        write_pcap(q0, a)
        write_pcap(q1, b)
    else:
        write_pcap(q0, a + b)
        write_pcap(q1, b + a)
    n.start()
    try:
        got, window = measure(n, ["a", "b"])  # lcore 1: a's NPE
        info = n.call("node.info")
    finally:
        n.stop()
    assert [p["rx_queues"] for p in info["ports"]] == [2, 2], info["ports"]
    check_isolation(got, window, "b", "a", reserved, shared=False)


def test_output_that_keeps_up_holds_no_backlog(tmp_path):
    """Small frames replayed forever into an output far faster than they come: every
    turn of the loop brings a full round, and the output takes more than a round a
    turn, so whatever queued for a moment drains and the queues stay (nearly) empty.
    Taking exactly a round a turn once kept any backlog for good, growing to
    thousands of packets within seconds, each then costing the round robin."""
    n = Node(tmp_path, "keepup")
    # The pcap's path must be short (net_pcap's device arguments).
    short = Path(tempfile.mkdtemp(prefix="spk"))
    pcap = short / "in.pcap"
    p0 = n.port("p0", "10.0.0.1", "02:00:00:00:00:10",
                device=f"net_pcap0,rx_pcap={pcap},infinite_rx=1")
    p1 = n.port("p1", "10.1.0.1", "02:00:00:00:01:10", device="net_null1,no-rx=1", rate="10T")
    n.neighbor(p1, NH[0], NH[2])
    frames = []
    for sid, name in enumerate(("k1", "k2", "k3", "k4"), start=1):
        s = n.slice(name, sid)
        s.endpoint(p0, 5000 + sid)
        out = s.endpoint(p1, 5000 + sid, bandwidth="1G")
        for q in range(16):
            s.queue(q, out, share="10M")
            s.route(q, f"10.9.{q}.0/24", endpoint=out, queue=q, next_hop=f"{NH[0]}:{NH[1]}")
        frames += [substrate(inner_udp(f"10.9.{q}.{sid}", seq=q), p0, 5000 + sid)
                   for q in range(16)]
    write_pcap(pcap, frames)
    names = ["k1", "k2", "k3", "k4"]
    n.start()
    try:
        time.sleep(3)
        samples = []
        for _ in range(4):
            qs = [q for name in names for q in n.cmd(f"/slicepath/queues,{name}").values()]
            samples.append((sum(q["len_pkts"] for q in qs), sum(q["sent_pkts"] for q in qs)))
            time.sleep(0.5)
    finally:
        n.stop()
        shutil.rmtree(short)
    print("waiting, sent:", samples)
    assert samples[-1][1] - samples[0][1] > 100000, "the queues did not carry the traffic"
    # A round is 256 frames; two may be in the queues between an enqueue and the output.
    assert max(waiting for waiting, _ in samples) <= 512, samples
