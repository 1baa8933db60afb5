# SPDX-License-Identifier: BSD-3-Clause
"""Latency (SPP Figure 10): eight slices share one NPE; background streams through all
eight at a fraction of the zero-loss rate, and a separate probe stream of 1000 packets/s
through the first, whose latency percentiles are recorded at each load. The zero-loss
rate of the eight-slice node is found first (throughput's bisection, shorter). The same
traffic at half that rate through dpdk-testpmd (io with retry) and DPDK's l3fwd gives the
harness's own latency in the same run. slicepathd's own residence times (a frame every
100 us, rx to tx, all streams) are recorded beside the probe's, apart from the harness:
the generator, the memif rings and the other process on the shared vCPUs."""

import csv
import json

from . import gen, node, plot
from .dut import L3fwd, Slicepathd, Testpmd
from .search import SearchError, zero_loss

SLICES = 8
PROBE_PPS = 1000
SHARE = "1G"
LEVELS = [0.1, 0.25, 0.5, 0.75, 0.9]


def make_dut(workdir, tag):
    slices = [node.ipv4_slice(f"s{i + 1}", i + 1, "p0", "p1", 5001 + i, f"10.9.{i}.0/24", SHARE,
                              threshold=1 << 20) for i in range(SLICES)]
    return Slicepathd(workdir, tag, node.config(slices, "9G"))


def spec(total_pps, seconds, probe=True):
    # Signed (24 bytes of payload, 94-byte frames): each stream counted apart.
    streams = [node.stream(f"bg{i + 1}", 5001 + i, f"10.9.{i}.1", payload=24, flows=16,
                           pps=total_pps / SLICES) for i in range(SLICES)]
    if probe:
        streams.append(node.stream("probe", 5001, "10.9.0.200", payload=64, pps=PROBE_PPS))
    return {"duration": seconds, "interval": seconds, "streams": streams}


def trial(workdir, tag, total_pps, seconds, probe=True, dut=None):
    dut = dut or make_dut(workdir, tag)
    summary, _ = gen.run(dut.start(), spec(total_pps, seconds, probe), workdir, tag)
    return {s["name"]: s for s in summary["streams"]}


def residence(workdir, tag):
    """slicepathd's residence times over a trial (its node lives for that trial alone), from
    the counters gen.run saved."""
    return json.loads((workdir / f"{tag}-counters.json").read_text())["node"]["residence_ns"]


def zero_loss_rate(workdir, seconds, steps, log):
    def logged(pps, n):
        got = trial(workdir, f"lat-search-{n}", pps, seconds, probe=False)
        sent, lost = sum(s["tx_pps"] for s in got.values()), sum(s["lost"] for s in got.values())
        log(f"  eight slices offered {pps / 1e6:.3f} Mpps, sent {sent / 1e6:.3f}: lost {lost}")
        return sent, lost, sent
    rate, _ = zero_loss(logged, 20e6, steps)
    if rate == 0:
        raise SearchError(f"no rate through the {SLICES} slices was free of loss (where they "
                          f"dropped: {workdir}/lat-search-*-counters.json)")
    return rate


def run(workdir, quick):
    levels, seconds, steps = ([0.5], 0.5, 2) if quick else (LEVELS, 3.0, 5)
    lines = [f"latency: a {PROBE_PPS} packets/s probe through one of {SLICES} loaded slices"]
    rate = zero_loss_rate(workdir, seconds if quick else 2.0, steps, lines.append)
    lines.append(f"  zero-loss rate of the {SLICES} slices: {rate / 1e6:.3f} Mpps (94-byte frames)")
    rows = []
    runs = [("slicepathd", level, None) for level in levels]
    runs.append(("testpmd", 0.5, Testpmd(workdir, "lat-testpmd")))
    runs.append(("l3fwd", 0.5, L3fwd(workdir, "lat-l3fwd")))
    for dut_name, level, dut in runs:
        tag = f"lat-{dut_name}-{level}"
        got = trial(workdir, tag, rate * level, seconds, dut=dut)
        p = got["probe"]["latency_ns"]
        bg_lost = sum(s["lost"] for n, s in got.items() if n != "probe")
        row = {"dut": dut_name, "load": level, "load_mpps": rate * level / 1e6,
               "p50_us": p["p50"] / 1e3, "p99_us": p["p99"] / 1e3,
               "p999_us": p["p999"] / 1e3, "max_us": p["max"] / 1e3,
               "probe_lost": got["probe"]["lost"], "background_lost": bg_lost}
        # The node's own (slicepathd only; empty for the baselines).
        r = residence(workdir, tag) if dut is None else None
        for k in ("p50", "p99", "p999", "max"):
            row[f"node_{k}_us"] = r[k] / 1e3 if r else ""
        row["node_samples"] = r["count"] if r else ""
        rows.append(row)
    with open(workdir / "latency.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    ours = [r for r in rows if r["dut"] == "slicepathd"]
    x = [r["load"] * 100 for r in ours]
    plot.panels(workdir / "latency.png", f"probe latency, {SLICES} slices loaded",
                [("latency (us)", {k: (x, [r[f"{k}_us"] for r in ours])
                                   for k in ("p50", "p99", "p999")}),
                 ("in the node (us)", {k: (x, [r[f"node_{k}_us"] for r in ours])
                                       for k in ("p50", "p99", "p999")})],
                xlabel="background load (% of the zero-loss rate)", log=True)
    for r in rows:
        lines.append(f"  {r['dut']:10s} load {100 * r['load']:3.0f} % ({r['load_mpps']:.3f} Mpps): p50 "
                     f"{r['p50_us']:.1f} us, p99 {r['p99_us']:.1f}, p99.9 {r['p999_us']:.1f}, "
                     f"max {r['max_us']:.1f}; lost {r['probe_lost']} probe, "
                     f"{r['background_lost']} background")
        if r["node_samples"] != "":
            lines.append(f"  {'':10s} in the node: p50 {r['node_p50_us']:.1f} us, p99 "
                         f"{r['node_p99_us']:.1f}, p99.9 {r['node_p999_us']:.1f}, max "
                         f"{r['node_max_us']:.1f} ({r['node_samples']} frames sampled)")
    return lines
