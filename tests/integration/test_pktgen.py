# SPDX-License-Identifier: BSD-3-Clause
"""scripts/pktgen/ against slicepathd over memif, with a pktgen-DPDK you built (PKTGEN=path;
docs/testing.md, "pktgen-DPDK"). Skipped, saying so, without one: this repository does not
build pktgen."""

import os
import re
import subprocess

import pytest

from conftest import needs_root
from spnode import REPO

PKTGEN = os.environ.get("PKTGEN")
pytestmark = [needs_root, pytest.mark.skipif(not PKTGEN, reason="no PKTGEN=/path/to/pktgen given")]


def test_pktgen_replays_substrate_frames_through_slicepathd():
    r = subprocess.run([str(REPO / "scripts" / "pktgen" / "run-memif.sh"), "-s", "3", "-r", "1"],
                       capture_output=True, text=True, timeout=180, env=dict(os.environ))
    print(r.stdout, r.stderr)
    assert r.returncode == 0, r.stderr
    rows = [line.split(",") for line in r.stdout.splitlines() if line[:1].isdigit()]
    assert len(rows) == 3 and all(int(tx) > 0 for _t, tx, _rx in rows), rows
    total = next(line for line in r.stdout.splitlines() if line.startswith("# total"))
    sent, received = map(int, re.match(r"# total: port 0 sent (\d+), port 1 received (\d+)",
                                       total).groups())
    assert received > 0.9 * sent, total
    assert '"fwd_pkts"' in r.stdout
