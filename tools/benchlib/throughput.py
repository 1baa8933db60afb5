# SPDX-License-Identifier: BSD-3-Clause
"""Throughput (SPP Figure 9, RFC 2544): for each inner payload, the highest rate at which
nothing is lost, found by a binary search of trials, through slicepathd (one ipv4 slice)
and, on the same ports, through dpdk-testpmd in io mode (no packet work) and DPDK's
l3fwd (an IPv4 router: the outer header looked up, TTL and MACs rewritten), the
baselines. Each trial starts the device afresh (see gen.py for why)."""

import csv

from . import gen, node, plot
from .dut import L3fwd, Slicepathd, Testpmd
from .ratio import ratio, shown
from .search import zero_loss

PAYLOADS = [0, 120, 400, 800, 1400]
HDRS = 70          # substrate Ethernet, IPv4, UDP and the inner IPv4 and UDP headers
OVERHEAD = 24      # preamble, FCS, inter-frame gap
LINK = 10e9        # the memif ports' nominal rate (any ceiling would do)
MAX_PPS = 20e6     # above what slicepath-gen reaches over memif on any machine here


def wire_bits(payload):
    return (max(HDRS + payload, 60) + OVERHEAD) * 8


DUTS = ("slicepathd", "testpmd", "l3fwd")


def make_dut(kind, workdir, tag):
    if kind == "testpmd":
        return Testpmd(workdir, tag)
    if kind == "l3fwd":
        return L3fwd(workdir, tag)
    # A deep queue (8 MiB or 8192 packets, 22 ms at 3 Gb/s): the generator sharing the 2 vCPUs stalls its
    # receive side for milliseconds, and a router's bounded queue then drops, where
    # testpmd's retry just waits.
    alpha = node.ipv4_slice("alpha", 1, "p0", "p1", 5001, "10.9.0.0/16", "9G",
                            threshold=8 << 20, packets=8192)
    return Slicepathd(workdir, tag, node.config([alpha], "9G"))


def trial(kind, workdir, payload, pps, seconds, n):
    """Offer pps for seconds; returns (received pps, lost, sent pps)."""
    dut = make_dut(kind, workdir, f"tp-{kind}-{payload}-{n}").start()
    spec = {"duration": seconds, "interval": seconds,
            "streams": [node.stream("tp", 5001, "10.9.0.1", payload=payload, pps=pps,
                                    flows=16)]}
    summary, _ = gen.run(dut, spec, workdir, f"tp-{kind}-{payload}-{n}")
    st = summary["streams"][0]
    return st["rx_pps"], st["lost"], st["tx_pps"]


def search(kind, workdir, payload, seconds, steps, log):
    """Zero-loss rate from a first trial at the link rate (or the generator's most)."""
    def logged(pps, n):
        rx, lost, sent = trial(kind, workdir, payload, pps, seconds, n)
        log(f"  {kind} payload {payload}: offered {pps / 1e6:.3f} Mpps, sent {sent / 1e6:.3f}, "
            f"received {rx / 1e6:.3f}, lost {lost}")
        return rx, lost, sent
    return zero_loss(logged, min(LINK / wire_bits(payload), MAX_PPS), steps)


def run(workdir, quick):
    payloads, seconds, steps = ([0, 1400], 0.5, 2) if quick else (PAYLOADS, 2.0, 6)
    lines, rows = ["throughput: zero-loss rate (RFC 2544 bisection) by inner payload"], []

    for kind in DUTS:
        for p in payloads:
            pps, gen_bound = search(kind, workdir, p, seconds, steps, lines.append)
            rows.append({"dut": kind, "payload": p, "frame_bytes": HDRS + p,
                         "mpps": pps / 1e6, "gbps": pps * wire_bits(p) / 1e9,
                         "lower_bound": gen_bound})
    for baseline in ("testpmd", "l3fwd"):
        base = {r["payload"]: r["mpps"] for r in rows if r["dut"] == baseline}
        for r in rows:
            r[f"ratio_to_{baseline}"] = ratio(r["mpps"], base.get(r["payload"]))
    with open(workdir / "throughput.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    series = {k: ([r["payload"] for r in rows if r["dut"] == k],
                  [r["mpps"] for r in rows if r["dut"] == k]) for k in DUTS}
    gbps = {k: ([r["payload"] for r in rows if r["dut"] == k],
                [r["gbps"] for r in rows if r["dut"] == k]) for k in DUTS}
    plot.panels(workdir / "throughput.png", "zero-loss throughput over memif",
                [("Mpps", series), ("Gb/s on the wire", gbps)], xlabel="inner payload (bytes)")
    for r in rows:
        lines.append(f"  {r['dut']:10s} payload {r['payload']:5d}: {r['mpps']:7.3f} Mpps "
                     f"{r['gbps']:6.2f} Gb/s  {shown(r['ratio_to_testpmd'])} of testpmd, "
                     f"{shown(r['ratio_to_l3fwd'])} of l3fwd"
                     f"{'  (at least: all offered got through)' if r['lower_bound'] else ''}")
    return lines
