# SPDX-License-Identifier: BSD-3-Clause
"""Packet capture: slicepathd enables DPDK's capture framework, so dpdk-dumpcap, a
secondary process, captures on its ports while it forwards: the frames in the pcapng file
are the ones the port received. Needs hugepages (a secondary shares the primary's memory):
skipped, and said so, without them."""

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from scapy.utils import rdpcap

from conftest import needs_root
from spnode import HUGE_EAL, LOAD_NH, inner_udp, loaded_node, substrate, write_pcap

pytestmark = needs_root

FRAMES = 16


def free_hugepages():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("HugePages_Free:"):
                return int(line.split()[1])
    return 0


@pytest.mark.skipif(shutil.which("dpdk-dumpcap") is None, reason="no dpdk-dumpcap here")
def test_dumpcap_captures_what_a_port_receives(tmp_path):
    if free_hugepages() < 300:
        pytest.skip(f"{free_hugepages()} free 2 MB hugepages: dpdk-dumpcap needs the node in "
                    "hugepage memory (scripts/setup.sh reserves 512)")
    n, p0, p1, _ = loaded_node(tmp_path, "cap", "100M")
    n.eal = HUGE_EAL
    # A secondary process opens the primary's vdevs again from their devargs, which DPDK
    # keeps to 64 characters: the pcap's path must be short.
    short = Path(tempfile.mkdtemp(prefix="spc"))
    pcap = short / "in.pcap"
    p0.device = f"net_pcap0,rx_pcap={pcap},infinite_rx=1"
    s = n.slice("busy", 1)
    s.endpoint(p0, 5001)
    out = s.endpoint(p1, 5001, bandwidth="100M")
    s.queue(0, out, share="100M")
    s.route(0, "10.9.0.0/16", endpoint=out, queue=0, next_hop=f"{LOAD_NH[0]}:{LOAD_NH[1]}")
    frames = [substrate(inner_udp(f"10.9.0.{i + 1}", seq=i), p0, 5001) for i in range(FRAMES)]
    write_pcap(pcap, frames)
    n.start()
    try:
        capture = tmp_path / "p0.pcapng"
        r = subprocess.run(["dpdk-dumpcap", "--file-prefix", n.prefix, "-i", "0", "-c", "40",
                            "-w", str(capture), "-q"], capture_output=True, text=True,
                           timeout=60)
        print(r.stdout, r.stderr)
        assert r.returncode == 0, r.stderr
    finally:
        n.stop()
        shutil.rmtree(short)
    got = [bytes(p) for p in rdpcap(str(capture))]
    assert len(got) >= 40  # it stops after the burst that reached -c
    # The port replays the pcap in order, forever: every captured frame is one of them.
    assert all(g in frames for g in got)
    assert "packet capture unavailable" not in n.log()
