# SPDX-License-Identifier: BSD-3-Clause
"""DPI cost: the dpi code option (Hyperscan, block mode) with 10, 100 and 1000 patterns on
64- and 1400-byte payloads of text none of them matches (each packet scanned to its end),
against the native ipv4 code option on the same frames, in the single-lcore harness
(saturate.py); trials alternate and the best of each counts."""

import csv
import random

from . import node, plot
from .ratio import ratio, shown
from .saturate import forwarded, ipv4_frame

PATTERN_COUNTS = [10, 100, 1000]
PAYLOADS = [64, 1400]
FLOWS = 16
WORDS = 4000


def words(seed):
    rnd = random.Random(seed)
    return ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(4, 9)))
            for _ in range(WORDS)]


def patterns(n):
    """n patterns of the kinds IDS rules have: literals, classes, bounded repeats."""
    rnd, w = random.Random(n), words(1)
    lines = []
    for i in range(n):
        a, b = rnd.choice(w), rnd.choice(w)
        expr = (f"{a}[0-9]{{2,4}}{b}", f"{a}\\s+{b}", f"^{a}:", f"{a}.{{0,8}}{b}")[i % 4]
        lines.append(f"{i % 255}:/{expr}/{'i' if i % 3 == 0 else ''}")
    return "\n".join(lines) + "\n"


def payload_text():
    """Words none of the patterns were made from (another seed): scanned to the end."""
    return " ".join(words(2)).encode()


def slice_config(kind, pattern_file):
    s = node.ipv4_slice("probe", 1, "p0", "p1", 5001, "10.9.0.0/16", "40G", threshold=1 << 20)
    if kind == "dpi":
        s.update(codeopt="dpi", codeopt_data=str(pattern_file))
    return s


def run(workdir, quick):
    counts, payloads, seconds, trials = (([10], [64], 0.5, 1) if quick else
                                         (PATTERN_COUNTS, PAYLOADS, 3.0, 2))
    text, rows = payload_text(), []
    for payload in payloads:
        frames = [ipv4_frame(5001, i % FLOWS, 70 + payload, text[i * 37:]) for i in range(64)]
        native = 0.0
        for n in counts:
            pattern_file = workdir / f"patterns-{n}.txt"
            pattern_file.write_text(patterns(n))
            best = 0.0
            for t in range(trials):
                tag = f"dpi-{n}-{payload}-{t}"
                best = max(best, forwarded(workdir, tag, [slice_config("dpi", pattern_file)],
                                           frames, seconds)["probe"])
                native = max(native, forwarded(workdir, f"native-{payload}-{n}-{t}",
                                               [slice_config("ipv4", None)], frames,
                                               seconds)["probe"])
            rows.append({"patterns": n, "payload": payload, "dpi_mpps": best / 1e6})
        for r in rows:
            if r["payload"] == payload:
                r["native_mpps"] = native / 1e6
                r["ratio_to_native"] = ratio(r["dpi_mpps"], r["native_mpps"])
    with open(workdir / "dpi.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot.panels(workdir / "dpi.png", "dpi (Hyperscan) by pattern count, one lcore",
                [("forwarded (Mpps)", {f"{p}-byte payload": (
                    [r["patterns"] for r in rows if r["payload"] == p],
                    [r["dpi_mpps"] for r in rows if r["payload"] == p]) for p in payloads})],
                xlabel="patterns")
    lines = [f"dpi: Mpps by pattern count and payload (best of {trials}; native ipv4 beside)"]
    for r in rows:
        lines.append(f"  {r['patterns']:5d} patterns, {r['payload']:5d}-byte payload: "
                     f"{r['dpi_mpps']:6.3f} Mpps (native {r['native_mpps']:6.3f}, "
                     f"{shown(r['ratio_to_native'])})")
    return lines
