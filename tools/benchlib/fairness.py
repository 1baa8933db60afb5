# SPDX-License-Identifier: BSD-3-Clause
"""Fairness (SPP Figure 7): five slices' inputs into one output, shares 30/25/20/15/10 % of
its scheduler, each offering 40 % of it, starting one after another: the input and
output rate of each slice and its queue's length over time."""

import csv

from . import gen, node, plot
from .dut import Slicepathd
from .sample import QueueSampler

RATE = 200_000_000
SHARES = [30, 25, 20, 15, 10]
PAYLOAD = 1000


def run(workdir, quick):
    duration, stagger, interval = (2.0, 0.2, 0.25) if quick else (20.0, 2.0, 0.5)
    slices = [node.ipv4_slice(f"s{i + 1}", i + 1, "p0", "p1", 5001 + i, f"10.9.{i}.0/24",
                              RATE * pct // 100) for i, pct in enumerate(SHARES)]
    dut = Slicepathd(workdir, "fairness", node.config(slices, RATE, link="1G")).start()
    spec = {"duration": duration, "interval": interval, "streams": [
        node.stream(s["name"], 5001 + i, f"10.9.{i}.1", payload=PAYLOAD, bps=RATE * 4 // 10,
                    phases=[[i * stagger, duration]]) for i, s in enumerate(slices)]}
    queues = QueueSampler(dut, [s["name"] for s in slices], interval / 2)
    summary, rates = gen.run(dut, spec, workdir, "fairness", during=queues)
    return report(workdir, duration, stagger, summary, rates, queues)


def report(workdir, duration, stagger, summary, rates, queues):
    with open(workdir / "fairness.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t", "slice", "in_bps", "out_bps"])
        for r in rates:
            w.writerow([r["t"], r["stream"], r["tx_bps"], r["rx_bps"]])
    with open(workdir / "fairness-queues.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t", "slice", "queue_bytes"])
        w.writerows(queues.rows)
    names = [s["name"] for s in summary["streams"]]

    def series(rows, key, scale=1e6):
        return {n: ([float(r["t"]) for r in rows if r["stream"] == n],
                    [float(r[key]) / scale for r in rows if r["stream"] == n]) for n in names}

    plot.panels(workdir / "fairness.png", f"fairness: shares {SHARES} % of {RATE / 1e6:.0f} Mb/s",
                [("input (Mb/s)", series(rates, "tx_bps")),
                 ("output (Mb/s)", series(rates, "rx_bps")),
                 ("queue (bytes)", queues.series())])
    # All five busy: from the last start to the end.
    busy = [r for r in rates if stagger * (len(names) - 1) < float(r["t"]) <= duration]
    total = sum(float(r["rx_bps"]) for r in busy) or 1.0
    lines = [f"fairness: output shares with all five busy (configured {SHARES} %)"]
    for n, pct in zip(names, SHARES):
        got = sum(float(r["rx_bps"]) for r in busy if r["stream"] == n)
        lines.append(f"  {n}: {100 * got / total:5.1f} %  (configured {pct} %)")
    out = total / max(len({r['t'] for r in busy}), 1)
    lines.append(f"  output {out / 1e6:.1f} Mb/s on the wire, scheduler {RATE / 1e6:.0f} Mb/s")
    return lines
