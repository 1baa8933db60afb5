# SPDX-License-Identifier: BSD-3-Clause
"""Live views on a loaded node (p0 replays frames forever, p1's scheduler sends 100 Mb/s):
`slicectl stats --interval --count -j` gives one JSON line a sample whose rates show the
scheduler's rate; `slicectl top`, run in tmux as an operator would, shows the same rates
on its screen, refreshed in place; `slicepath-plot` draws them into a PNG and a CSV."""

import csv
import json
import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import needs_root
from lcore_time import Trace
from spnode import LOAD_NH, REPO, SLICECTL, inner_udp, loaded_node, substrate, write_pcap

pytestmark = needs_root

RATE = 100e6
PAYLOAD = 1000


@pytest.fixture
def node(tmp_path):
    n, p0, p1, pcap = loaded_node(tmp_path, "live", "100M")
    s = n.slice("busy", 1)
    s.endpoint(p0, 5001)
    out = s.endpoint(p1, 5001, bandwidth="100M")
    s.queue(0, out, share="100M")
    s.route(0, "10.9.0.0/16", endpoint=out, queue=0, next_hop=f"{LOAD_NH[0]}:{LOAD_NH[1]}")
    write_pcap(pcap, [substrate(inner_udp(f"10.9.0.{i + 1}", payload=bytes(PAYLOAD)), p0, 5001)
                      for i in range(16)])
    n.start()
    yield n
    n.kill()


def slicectl(node, *args, **kw):
    return subprocess.run([str(SLICECTL), "-s", str(node.mgmt_socket), *args], text=True,
                          capture_output=True, timeout=60, **kw)


def on_the_wire(bps, share):
    """What p1's 100 Mb/s scheduler lets through, counted without the 24 bytes of Ethernet
    overhead it charges per frame (1070-byte frames), while its lcore has share of the
    time (Trace.least_share: other processes take the CPU for milliseconds at a time)."""
    return 0.85 * RATE * share <= bps <= 1.02 * RATE


def test_stats_interval_count_json(node):
    with Trace(node) as lcore:
        r = slicectl(node, "-j", "stats", "--interval", "0.5", "--count", "5")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(lines) == 5
    assert lines[0]["interval"] == 0 and all(0.4 < x["interval"] < 1.5 for x in lines[1:])
    for x in lines[2:]:
        assert on_the_wire(8 * x["rates"]["ports"]["p1"]["tx_bytes"],
                           lcore.least_share(x["interval"])), x["rates"]["ports"]
        assert x["counters"]["ports"]["p1"]["tx_pkts"] > lines[0]["counters"]["ports"]["p1"][
            "tx_pkts"]
    r = slicectl(node, "stats", "busy", "--interval", "0.5", "--count", "3")
    out = r.stdout.splitlines()
    assert len(out) == 3 and out[-1].startswith("busy: rx "), r.stdout
    assert "fwd" in out[-1] and "bit/s" in out[-1]
    r = slicectl(node, "stats", "--interval", "0")
    assert r.returncode != 0 and "usage: slicectl stats" in r.stderr


def waited(p50, top, share):
    """Frames wait behind the busy queue's megabyte at 100 Mb/s: some 86 ms of the lcore's
    time, at most 86 ms / share + 0.1 s of the wall clock where it has share of any
    0.1 s (Trace.least_share(0.1)), well under 200 ms / share."""
    return 40_000 < p50 and top * share < 200_000


def test_stats_interval_text_shows_the_interval_residence(node):
    with Trace(node) as lcore:
        r = slicectl(node, "stats", "--interval", "0.5", "--count", "3")
    share = lcore.least_share(0.1)
    assert r.returncode == 0, r.stderr
    res = [line for line in r.stdout.splitlines() if line.startswith("residence:")]
    print(r.stdout)
    assert len(res) == 3
    # The first sample has no interval before it.
    assert res[0] == "residence: no frames sampled"
    for line in res[1:]:
        m = re.fullmatch(r"residence: p50 ([\d.]+) us, p99 ([\d.]+) us, p99.9 [\d.]+ us, max ([\d.]+) us "
                         r"\((\d+) frames sampled\)", line)
        assert m, line
        p50, p99, top, n = float(m[1]), float(m[2]), float(m[3]), int(m[4])
        assert p50 <= p99 <= top and waited(p50, top, share) and n > 0, (line, share)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="no tmux here")
def test_top_in_tmux(node):
    session = f"sptop{node.prefix[-8:]}"
    with Trace(node) as lcore:
        subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "40",
                        f"{SLICECTL} -s {node.mgmt_socket} top --interval 0.5"], check=True)
        try:
            time.sleep(3)
            screen = subprocess.run(["tmux", "capture-pane", "-p", "-t", session],
                                    capture_output=True, text=True, check=True).stdout
        finally:
            subprocess.run(["tmux", "kill-session", "-t", session])
    share, wait_share = lcore.least_share(0.5), lcore.least_share(0.1)
    print(screen)
    rows = {line.split()[0]: line.split() for line in screen.splitlines() if line.split()}
    assert screen.startswith("slicectl top"), screen
    # IFACE RX_PPS RX_BIT/S TX_PPS TX_BIT/S TX_DROP_PPS: p1 sends the scheduler's rate.
    tx = rows["p1"][4]
    assert tx.endswith("M") and on_the_wire(float(tx[:-1]) * 1e6, share), rows["p1"]
    # The frames the last refresh sampled waited behind the busy queue: tens of ms.
    res = next(line for line in screen.splitlines() if line.startswith("residence:"))
    m = re.fullmatch(r"residence: p50 ([\d.]+) us, p99 ([\d.]+) us, p99.9 [\d.]+ us, max ([\d.]+) us "
                     r"\((\d+) frames sampled\)", res)
    assert m and waited(float(m[1]), float(m[3]), wait_share), (res, wait_share)
    # SLICE RX_PPS FWD_PPS FWD_BIT/S ...: the slice forwards what p1 sends.
    busy = [line.split() for line in screen.splitlines() if line.startswith("busy")]
    fwd = busy[0][3]
    assert fwd.endswith("M") and on_the_wire(float(fwd[:-1]) * 1e6, share), busy
    # SLICE QUEUE SENT_PPS SENT_BIT/S LEN_PKTS LEN_BYTES DROP_PPS: its queue, backlogged.
    assert busy[1][1] == "0" and int(busy[1][4]) > 0, busy


def test_plot_samples_rates_into_png_and_csv(node, tmp_path):
    png, rates = tmp_path / "rates.png", tmp_path / "rates.csv"
    with Trace(node) as lcore:
        r = subprocess.run([str(REPO / "tools" / "slicepath-plot"), "-s", str(node.mgmt_socket),
                            "-o", str(png), "-c", str(rates), "--seconds", "2", "--interval",
                            "0.25"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Not a terminal: what it samples, then how far it is every quarter of this short run.
    said = r.stderr.splitlines()
    assert said[0] == f"slicepath-plot: sampling {node.mgmt_socket} every 0.25 s for 2 s", said
    assert re.fullmatch(r"slicepath-plot: 0\.\d/2 s, [1-4] samples", said[1]), said
    assert len(said) >= 4 and said[-1].startswith("slicepath-plot: 2.0/2 s"), said
    # On a terminal: a bar redrawn in place, full at the end, then a new line.
    master, slave = os.openpty()
    with os.fdopen(master, "rb", buffering=0) as tty:
        p = subprocess.run([str(REPO / "tools" / "slicepath-plot"), "-s", str(node.mgmt_socket),
                            "-o", str(tmp_path / "tty.png"), "--seconds", "1", "--interval",
                            "0.25"], stdout=subprocess.DEVNULL, stderr=slave, timeout=60)
        os.close(slave)
        bar = tty.read(4096).decode()
    assert p.returncode == 0, bar
    draws = bar.count("\rslicepath-plot: [")
    assert draws >= 4 and bar.endswith(f"\rslicepath-plot: [{'#' * 30}] 1.0/1 s, {draws} "
                                       "samples\r\n"), repr(bar)
    with open(rates) as f:
        rows = list(csv.DictReader(f))
    fwd = [float(x["value"]) for x in rows if (x["kind"], x["name"], x["what"]) ==
           ("slice", "busy", "fwd_bps")]
    share = lcore.least_share(0.25)
    assert len(fwd) >= 6 and all(on_the_wire(v, share) for v in fwd[1:]), (fwd, share)
    held = [float(x["value"]) for x in rows if x["what"] == "len_bytes"]
    assert held and max(held) > 0
    r = subprocess.run([str(REPO / "tools" / "slicepath-plot"), "-s", "/nonexistent.sock",
                        "--seconds", "1"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "/nonexistent.sock" in r.stderr
    # Without -s, slicectl's variable names the socket.
    r = subprocess.run([str(REPO / "tools" / "slicepath-plot"), "--seconds", "1"],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, SLICECTL_SOCKET="/nonexistent-env.sock"))
    assert r.returncode == 1 and "/nonexistent-env.sock" in r.stderr
