# SPDX-License-Identifier: BSD-3-Clause
"""eBPF against native: the eBPF IPv4 router (codeopts/bpf/examples/ipv4_router.bpf.c, JIT-
compiled by rte_bpf) against the native ipv4 code option it re-writes, one slice at a time
with the same route and frames, in the single-lcore harness (saturate.py); trials
alternate between the two and the best of each counts (the harness's noise only slows)."""

import csv

from . import node, plot
from .dut import BUILD
from .ratio import ratio, shown
from .saturate import forwarded, ipv4_frame

PROGRAM = BUILD / "codeopts" / "bpf" / "examples" / "ipv4_router.bpf.o"
FLOWS = 16


def one(workdir, kind, size, seconds, n):
    """Packets/s the slice forwards with its code option kind ("ipv4" or "bpf")."""
    s = node.ipv4_slice("router", 1, "p0", "p1", 5001, "10.9.0.0/16", "40G", threshold=1 << 20)
    if kind == "bpf":
        s.update(codeopt="bpf", codeopt_data=str(PROGRAM))
    frames = [ipv4_frame(5001, i % FLOWS, size) for i in range(4 * FLOWS)]
    return forwarded(workdir, f"ebpf-{kind}-{size}-{n}", [s], frames, seconds)["router"]


def run(workdir, quick):
    sizes, seconds, trials = ([70], 0.5, 1) if quick else ([70, 1470], 3.0, 3)
    rows = []
    for size in sizes:
        best = {"ipv4": 0.0, "bpf": 0.0}
        for n in range(trials):
            for kind in best:
                best[kind] = max(best[kind], one(workdir, kind, size, seconds, n))
        rows.append({"frame_bytes": size, "native_mpps": best["ipv4"] / 1e6,
                     "ebpf_mpps": best["bpf"] / 1e6,
                     "ratio": ratio(best["bpf"], best["ipv4"])})
    with open(workdir / "ebpf.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    x = [r["frame_bytes"] for r in rows]
    plot.panels(workdir / "ebpf.png", "IPv4 router: eBPF (rte_bpf JIT) against native, one lcore",
                [("forwarded (Mpps)", {"native ipv4": (x, [r["native_mpps"] for r in rows]),
                                       "eBPF ipv4_router": (x, [r["ebpf_mpps"] for r in rows])})],
                xlabel="frame (bytes)")
    lines = [f"ebpf: the eBPF IPv4 router against the native one (best of {trials}, one lcore)"]
    for r in rows:
        lines.append(f"  {r['frame_bytes']:5d}-byte frames: native {r['native_mpps']:6.3f} Mpps, "
                     f"eBPF {r['ebpf_mpps']:6.3f} Mpps: {shown(r['ratio'])}")
    return lines
