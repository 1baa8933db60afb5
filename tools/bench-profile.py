#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where a forwarding lcore's time goes, a packet: the breakdown tools/bench-pipeline.sh -P
prints for each program from what tools/sp_null_rate.py --perf left (OUT.data: perf's
cpu-clock samples of the lcore's thread; OUT.stat: perf stat's hardware counts).

usage: bench-profile.py OUT MPPS FRAMES      (what sp_null_rate.py printed)

A busy-polling lcore runs all the time, so a packet costs 1 / MPPS of it; each
stage's share of the samples is its share of that, in ns and in cycles at the CPU's clock
(/proc/cpuinfo; perf's own count of cycles where the machine has a PMU). The stages are
slicepathd's (docs/architecture.md); the harness (net_pcap's copies in, net_null's frees
out) is the same for every program. Hardware counts a packet come from OUT.stat, or say
that the machine has no PMU (a VM): tools/bench-pipeline.sh -I -P then simulates caches
and branches instead (callgrind)."""

import re
import subprocess
import sys

# A sample's stage: the first whose DSO and symbol patterns both match.
SP = r"^slicepathd$|codeopt"  # slicepathd and the code options it loads
STAGES = [
    ("harness in: net_pcap's copies", r"librte_net_pcap", r""),
    ("harness out: net_null's frees", r"librte_net_null", r""),
    ("l3fwd's own", r"^l3fwd", r""),
    ("testpmd's own", r"testpmd", r""),
    ("rx, decap, demux", SP, r"^(lc_rx|sp_decap|decap_|demux)"),
    ("parse (code option)", SP, r"(^parse$|_parse)"),
    ("lookup", SP, r"^(sp_lookup|lk_|acl_|lookup_)"),
    ("lookup", r"librte_acl", r""),
    ("format (code option)", SP, r"format"),
    ("encap", SP, r"^(sp_encap|write_outer|sp_neigh|neigh_)"),
    ("queue manager", SP, r"^(sp_qm|qm_|wdrr)"),
    ("tx", SP, r"^(lc_tx|send_burst|sp_lc_tx)"),
    ("NPE loop, counters, the rest", SP, r""),
    ("DPDK and C libraries (mbufs, rings)", r"^(librte_|libc|ld-linux)", r""),
    ("kernel (interrupts, the hypervisor's ticks)", r"kernel", r""),
]
OTHER = "other"


def samples(data):
    """(share %, dso, symbol) of every symbol perf sampled."""
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children", "-q",
                          "--percent-limit", "0", "-F", "overhead,dso,sym"],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(\S+)", line)
        if m:
            yield float(m[1]), m[2], m[3]


def stage_of(dso, sym):
    for name, dso_re, sym_re in STAGES:
        if re.search(dso_re, dso) and re.search(sym_re, sym):
            return name
    return OTHER


def hardware(stat):
    """perf stat's counts by event, None for one the machine cannot count."""
    counts = {}
    for line in open(stat):
        f = line.strip().split(",")
        if len(f) >= 3 and not line.startswith("#"):
            counts[f[2]] = int(f[0]) if f[0].isdigit() else None
    return counts


def cpu_hz():
    for line in open("/proc/cpuinfo"):
        if line.startswith("cpu MHz"):
            return float(line.split(":")[1]) * 1e6
    return None


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    out, mpps, frames = argv[0], float(argv[1]), int(argv[2])
    ns, seconds = 1e3 / mpps, frames / (mpps * 1e6)
    hw = hardware(f"{out}.stat")
    hz = hw["cycles"] / seconds if hw.get("cycles") else cpu_hz()
    shares = {}
    for share, dso, sym in samples(f"{out}.data"):
        stage = stage_of(dso, sym)
        shares[stage] = shares.get(stage, 0) + share
    print(f"  {ns:.1f} ns a packet" + (f", {ns * hz / 1e9:.0f} cycles at {hz / 1e9:.2f} GHz" if hz else ""))
    print(f"  {'stage':44} {'share':>7} {'ns':>7} {'cycles':>7}")
    for name in dict.fromkeys([s[0] for s in STAGES] + [OTHER]):
        if name in shares:
            cyc = f"{shares[name] / 100 * ns * hz / 1e9:7.1f}" if hz else f"{'-':>7}"
            print(f"  {name:44} {shares[name]:6.1f}% {shares[name] / 100 * ns:7.1f} {cyc}")
    if all(v is None for v in hw.values()):
        print("  hardware counters: none (no PMU here, as in most VMs): -I -P simulates caches "
              "and branches")
        return
    print("  a packet: " + ", ".join(f"{e} {v / frames:.2f}" if v is not None else f"{e} -"
                                     for e, v in hw.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
