# SPDX-License-Identifier: BSD-3-Clause
"""Running slicepath-gen against a device under test: as the memif clients of its
ports, with -H so that the device stops before the generator lets go of the ports
(DPDK 22.11's memif crashes a process whose peer leaves while it polls)."""

import csv
import json
import os
import subprocess
import time

from . import progress
from .dut import BUILD, EAL, memif, remove_runtime_dir

GEN = BUILD / "tools" / "gen" / "slicepath-gen"


class GenError(Exception):
    pass


def run(dut, spec, workdir, tag, during=None, timeout=None):
    """Send spec (a dict) through dut (started), call during() while it runs (sampling),
    stop dut once the summary is written, and return (summary, rows of the per-interval
    CSV as dicts)."""
    if not GEN.exists():
        raise GenError(f"{GEN} is missing: build it first (scripts/setup.sh)")
    progress.trial(tag, spec.get("duration", 10))
    spec_path, out, rates = (workdir / f"{tag}-spec.json", workdir / f"{tag}-gen.json",
                             workdir / f"{tag}-rates.csv")
    spec_path.write_text(json.dumps(spec, indent=1))
    out.unlink(missing_ok=True)
    vdevs = []
    for i, s in enumerate(dut.sockets):
        vdevs += ["--vdev", memif(i, s, "client")]
    prefix = f"spb-{os.getpid()}-{tag}-gen"
    cmd = [str(GEN), *EAL, "--file-prefix", prefix, "-l", "0",
           "--log-level", "*:error", *vdevs, "--", "-s", str(spec_path), "-j", str(out),
           "-c", str(rates), "-q", "-H"]
    log = open(workdir / f"{tag}-gen.log", "w")
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                         text=True)
    limit = time.monotonic() + (timeout or spec.get("duration", 10) + 30)
    summary = None
    try:
        while summary is None and p.poll() is None and time.monotonic() < limit:
            if during is not None:
                during()
            try:
                summary = json.loads(out.read_text())
            except (FileNotFoundError, ValueError):
                time.sleep(0.02)
    finally:
        if summary is not None:
            # Where the device dropped what it dropped, before it goes.
            (workdir / f"{tag}-counters.json").write_text(json.dumps(dut.counters(), indent=1))
        dut.stop()
        p.communicate(input="", timeout=30)
        log.close()
        remove_runtime_dir(prefix)
    if summary is None:
        raise GenError(f"slicepath-gen gave no summary (exit {p.returncode}); its log: "
                       f"{workdir / (tag + '-gen.log')}")
    with open(rates) as f:
        return summary, list(csv.DictReader(f))
