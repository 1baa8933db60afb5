# SPDX-License-Identifier: BSD-3-Clause
"""Backlog (SPP Figure 8): five slices, each from p0 to an output port of its own
(p1 to p5, a 100 Mb/s scheduler each), each offered 80 % of it. In the middle third
slice b1 is offered twice its output's rate while b2 goes idle; the others must not
notice. Input and output rate of each slice and its queue's length over time."""

import csv

from . import gen, node, plot
from .dut import Slicepathd
from .sample import QueueSampler

RATE = 100_000_000
SLICES = 5
PAYLOAD = 1000


def run(workdir, quick):
    duration, interval = (1.5, 0.25) if quick else (15.0, 0.5)
    third = duration / 3
    names = [f"b{i + 1}" for i in range(SLICES)]
    slices = [node.ipv4_slice(n, i + 1, "p0", f"p{i + 1}", 5001 + i, f"10.9.{i}.0/24", RATE)
              for i, n in enumerate(names)]
    dut = Slicepathd(workdir, "backlog",
                     node.config(slices, RATE, link="1G", outputs=SLICES)).start()

    def s(name, i, bps, phases):
        return node.stream(name, 5001 + i, f"10.9.{i}.1", rx_port=i + 1, payload=PAYLOAD,
                           bps=bps, phases=phases)

    streams = [s(n, i, RATE * 8 // 10, [[0, duration]]) for i, n in enumerate(names)]
    # b1 twice its rate in the middle third (a second stream on top), b2 idle then.
    streams.append(s("b1-more", 0, RATE * 12 // 10, [[third, 2 * third]]))
    streams[1]["phases"] = [[0, third], [2 * third, duration]]
    queues = QueueSampler(dut, names, interval / 2)
    summary, rates = gen.run(dut, {"duration": duration, "interval": interval,
                                   "streams": streams}, workdir, "backlog", during=queues)
    return report(workdir, names, third, rates, queues)


def per_slice(rates, names):
    """{(t, slice): [in_bps, out_bps]}: b1's two streams added up."""
    got = {}
    for r in rates:
        key = (float(r["t"]), r["stream"].split("-")[0])
        acc = got.setdefault(key, [0.0, 0.0])
        acc[0] += float(r["tx_bps"])
        acc[1] += float(r["rx_bps"])
    return {k: v for k, v in got.items() if k[1] in names}


def report(workdir, names, third, rates, queues):
    got = per_slice(rates, names)
    with open(workdir / "backlog.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t", "slice", "in_bps", "out_bps"])
        for (t, n), (i, o) in sorted(got.items()):
            w.writerow([t, n, i, o])
    with open(workdir / "backlog-queues.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t", "slice", "queue_bytes"])
        w.writerows(queues.rows)

    def series(col):
        return {n: ([t for (t, m) in sorted(got) if m == n],
                    [got[(t, m)][col] / 1e6 for (t, m) in sorted(got) if m == n]) for n in names}

    plot.panels(workdir / "backlog.png", f"backlog: five outputs of {RATE / 1e6:.0f} Mb/s, b1 "
                "at 2x and b2 idle in the middle third",
                [("input (Mb/s)", series(0)), ("output (Mb/s)", series(1)),
                 ("queue (bytes)", queues.series())])
    lines = [f"backlog: mean output (Mb/s) per third of {3 * third:g} s: before, b1 at 2x and b2 "
             "idle, after"]
    for n in names:
        thirds = []
        for k in range(3):
            vals = [o for (t, m), (_, o) in got.items()
                    if m == n and k * third < t <= (k + 1) * third]
            thirds.append(sum(vals) / len(vals) / 1e6 if vals else 0.0)
        lines.append(f"  {n}: " + "  ".join(f"{v:6.1f}" for v in thirds))
    return lines
