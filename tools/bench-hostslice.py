#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/bench-hostslice.py — a host slice against plain kernel networking, in one run
(docs/guide-slice-owner.md, "Benchmark"). Needs root, iperf3, and the built slicepathd
(SLICEPATHD, default build/slicepathd); ethtool for the per-frame veth baseline.

Two network namespaces, a client (10.0.0.2) and a server (10.0.0.1), joined in turn by:
  veth        a veth pair (the kernel's default offloads: 64 KB TSO/GRO segments)
  veth-frames the same pair with TSO, GSO and GRO off (every 1500-byte frame crosses
              on its own, as on the node's path)
  hostslice   slicepathd: its p0 a net_tap whose kernel side is the client's interface,
              the server namespace a host slice's (TCP 5201 reserved, a queue sharing
              p0's 10 Gb/s); the client's frames cross the node to the slice's interface
              and back
  hostslice-afp  the same with p0 a net_af_packet port on a veth pair whose other end
              is the client's: frames reach the node through the kernel's packet ring,
              without a system call each
  hostslice-xdp  the same with p0 a net_af_xdp port on that veth pair (an AF_XDP socket:
              the veth's XDP hook hands frames to the node's ring)
and each measures, for SECONDS:
  TCP throughput   iperf3 -c from the client to iperf3 -s in the server (Gb/s)
  connections/s    a client in the server namespace opening and closing 2000 TCP
                   connections to a server in the client namespace (on the host slice:
                   each through the slice's NAT, a new entry)
Rounds alternate the order. Prints each round, the medians, and the target: the host
slice's TCP throughput >= 0.5 of veth's (both baselines reported). The NAT table's own
cost per packet and setup rate on one core: build/tools/bench-nat/sp-bench-nat.

usage: sudo tools/bench-hostslice.py [-r ROUNDS] [-t SECONDS] [-o DIR]"""

import argparse
import csv
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sp_rpc import Rpc  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DAEMON = Path(os.environ.get("SLICEPATHD", REPO / "build" / "slicepathd"))
CLI_IP, SRV_IP = "10.0.0.2", "10.0.0.1"
TAG = os.getpid() % 100000
CLI, SRV = f"sphbc{TAG}", f"sphbs{TAG}"
TAP = f"sphbt{TAG}"
VETH_NODE, VETH_CLI = f"sphba{TAG}", f"sphbb{TAG}"  # the pair of the af_packet/af_xdp ports
TARGET = 0.5
# The host slice's paths: p0's device, a vdev on VETH_NODE or (None) a net_tap.
HOSTSLICE_PORTS = {
    "hostslice": None,
    "hostslice-afp": f"net_af_packet0,iface={VETH_NODE},qpairs=1,qdisc_bypass=1",
    "hostslice-xdp": f"net_af_xdp0,iface={VETH_NODE},start_queue=0,queue_count=1",
}
PATHS = ("veth", "veth-frames", *HOSTSLICE_PORTS)

# CONNECTIONS connections to ip:port, each opened and closed with a reset (no TIME_WAIT left
# to slow later rounds), as fast as they go; prints how many a second. Fewer than a host
# slice's NAT range holds: each takes a number for tcp_closed seconds (docs/config.md).
CONNECTIONS = 2000
CONNECT_LOOP = """
import socket, struct, time
start = time.monotonic()
for _ in range({count}):
    s = socket.create_connection(('{ip}', {port}), timeout=2)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
    s.close()
print({count} / (time.monotonic() - start))
"""

ACCEPT_LOOP = """
import socket
srv = socket.create_server(('{ip}', {port}), backlog=512)
while True:
    srv.accept()[0].close()
"""


def sh(*cmd, check=True, **kw):
    return subprocess.run(cmd, check=check, capture_output=True, text=True, **kw)


def ns_exec(ns, *cmd, **kw):
    return sh("ip", "netns", "exec", ns, *cmd, **kw)


def spawn(ns, *cmd):
    return subprocess.Popen(["ip", "netns", "exec", ns, *cmd], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def stop(p):
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def measure(seconds):
    """iperf3 throughput (Gb/s) and connections/s, the servers in place for each."""
    iperf = spawn(SRV, "iperf3", "-s", "-B", SRV_IP)
    time.sleep(0.5)
    try:
        r = ns_exec(CLI, "iperf3", "-c", SRV_IP, "-t", str(seconds), "-J", check=False)
    finally:
        stop(iperf)
    gbps = json.loads(r.stdout)["end"]["sum_received"]["bits_per_second"] / 1e9 \
        if r.returncode == 0 else float("nan")
    acc = spawn(CLI, sys.executable, "-c", ACCEPT_LOOP.format(ip=CLI_IP, port=7000))
    time.sleep(0.5)
    try:
        r = ns_exec(SRV, sys.executable, "-c",
                    CONNECT_LOOP.format(ip=CLI_IP, port=7000, count=CONNECTIONS), check=False)
    finally:
        stop(acc)
    cps = float(r.stdout) if r.returncode == 0 else float("nan")
    return gbps, cps


def veth(seconds, frames):
    sh("ip", "link", "add", "sphv0", "netns", CLI, "type", "veth", "peer", "sphv1", "netns", SRV)
    try:
        for ns, dev, ip in ((CLI, "sphv0", CLI_IP), (SRV, "sphv1", SRV_IP)):
            ns_exec(ns, "ip", "addr", "add", f"{ip}/24", "dev", dev)
            ns_exec(ns, "ip", "link", "set", dev, "up")
            if frames:
                ns_exec(ns, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off")
        return measure(seconds)
    finally:
        ns_exec(CLI, "ip", "link", "del", "sphv0", check=False)


def node_config(run, device):
    """slicepathd's config; its sockets in run, a short path (a socket's is 108 bytes)."""
    port = ({"device": device} if device else
            {"device": f"net_tap0,iface={TAP}", "mac": "02:00:00:00:00:10"})
    return {
        "eal": ["--no-huge", "-m", "1024", "--no-pci", "--file-prefix", f"sphb{TAG}",
                "--log-level", "lib.*:notice"],
        "ports": [{"name": "p0", "ipv4": SRV_IP, "rate": "10G", **port}],
        "npes": [{"rates": {"p0": "10G"}}],
        "mgmt_socket": str(run / "mgmt.sock"),
        "channel_dir": str(run / "slices"),
    }


def hostslice(seconds, d, device):
    cfg, run = d / "node.json", Path(tempfile.mkdtemp(prefix="sphb"))
    cfg.write_text(json.dumps(node_config(run, device)))
    cli_if = VETH_CLI if device else TAP
    if device:
        sh("ip", "link", "add", VETH_NODE, "type", "veth", "peer", VETH_CLI, "netns", CLI)
        sh("ip", "link", "set", VETH_NODE, "up")
    log = open(d / "slicepathd.log", "wb")
    p = subprocess.Popen([str(DAEMON), "-c", str(cfg)], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while "slicepathd: forwarding" not in (d / "slicepathd.log").read_text(errors="replace"):
            if p.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"slicepathd did not start: see {d / 'slicepathd.log'}")
            time.sleep(0.1)
        if not device:
            sh("ip", "link", "set", TAP, "netns", CLI)
        ns_exec(CLI, "ip", "addr", "add", f"{CLI_IP}/24", "dev", cli_if)
        ns_exec(CLI, "ip", "link", "set", cli_if, "up")
        if device:
            # A veth leaves TCP checksums to a "device" (the rings pass them on
            # unfinished): the client computes them, as frames from a wire have them.
            ns_exec(CLI, "ethtool", "-K", cli_if, "tx", "off")
        rpc = Rpc(run / "mgmt.sock")
        rpc.call("slice.create", name="srv", codeopt="host", netns=SRV, nat_ports=4096)
        rpc.call("endpoint.reserve", slice="srv", port="p0", tcp_port=5201,
                 bandwidth=10_000_000_000)
        rpc.call("queue.bind", slice="srv", queue=0, endpoint=0, share=10_000_000_000,
                 threshold=4 << 20, threshold_packets=4096)
        gbps, cps = measure(seconds)
        st = rpc.call("stats.get", slice="srv")["slice"]
        nat = rpc.call("nat.list", slice="srv")
        rpc.close()
        print(f"  host slice: {st['to_netns_pkts']} frames in, {st['from_netns_pkts']} out, "
              f"drops {st['reasons']}; NAT created {nat['created']}, full {nat['full']}")
        return gbps, cps
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
        log.close()
        shutil.rmtree(run, ignore_errors=True)
        sh("ip", "link", "del", VETH_NODE, check=False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-r", "--rounds", type=int, default=3)
    ap.add_argument("-t", "--seconds", type=int, default=5)
    ap.add_argument("-o", "--out", type=Path, default=None)
    a = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("bench-hostslice: run as root (namespaces, a DPDK tap)")
    for tool in ("iperf3", "ethtool"):
        if shutil.which(tool) is None:
            raise SystemExit(f"bench-hostslice: {tool} is missing (apt-get install {tool})")
    out = a.out or Path(tempfile.mkdtemp(prefix="bench-hostslice."))
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for ns in (CLI, SRV):
        sh("ip", "netns", "add", ns)
    try:
        for ns in (CLI, SRV):
            ns_exec(ns, "ip", "link", "set", "lo", "up")
        for r in range(1, a.rounds + 1):
            order = list(PATHS)
            if r % 2 == 0:
                order.reverse()
            for what in order:
                d = out / f"r{r}-{what}"
                d.mkdir(exist_ok=True)
                gbps, cps = (hostslice(a.seconds, d, HOSTSLICE_PORTS[what])
                             if what in HOSTSLICE_PORTS else
                             veth(a.seconds, what == "veth-frames"))
                rows.append({"round": r, "path": what, "tcp_gbps": gbps, "conn_per_s": cps})
                print(f"round {r} {what:13s}: TCP {gbps:6.2f} Gb/s, {cps:7.0f} connections/s",
                      flush=True)
    finally:
        for ns in (CLI, SRV):
            sh("ip", "netns", "del", ns, check=False)
    with open(out / "hostslice.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    med = {p: {k: statistics.median(x[k] for x in rows if x["path"] == p)
               for k in ("tcp_gbps", "conn_per_s")} for p in PATHS}
    print("medians:")
    for p, m in med.items():
        print(f"  {p:13s}: TCP {m['tcp_gbps']:6.2f} Gb/s, {m['conn_per_s']:7.0f} connections/s")
    for hs in HOSTSLICE_PORTS:
        ratio = med[hs]["tcp_gbps"] / med["veth"]["tcp_gbps"]
        ratio_frames = med[hs]["tcp_gbps"] / med["veth-frames"]["tcp_gbps"]
        print(f"{hs} / veth TCP: {ratio:.2f} (target >= {TARGET}: "
              f"{'met' if ratio >= TARGET else 'NOT met'}); / veth without offloads: "
              f"{ratio_frames:.2f}; NAT setups {med[hs]['conn_per_s']:.0f}/s "
              f"against {med['veth']['conn_per_s']:.0f}/s without NAT")
    print(f"CSV: {out / 'hostslice.csv'}")


if __name__ == "__main__":
    main()
