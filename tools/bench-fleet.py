#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/bench-fleet.py — the fleet's registry under load (docs/fleet.md, "Benchmark"), in
one run: etcd (MEMBERS members on 127.0.0.x, started here), then
  real   three slicepathd/slicectld pairs in cluster mode (a net_null port each) and
         build/tools/bench-fleet/sp-bench-fleet --nodes n0,n1,n2
  model  sp-bench-fleet --model NODES on the same etcd (the cluster applier's etcd side
         for each node, a model of the node behind it: 100 real nodes do not fit here)
Each prints etcd's own put rate (the anchor), write -> in force on all nodes (p50, p99,
max) and fleet filter writes/s. Needs root (DPDK), etcd (apt-get install etcd-server) and
the build (SLICEPATHD, default build/slicepathd).

usage: sudo tools/bench-fleet.py [-m MEMBERS] [-n NODES] [-w WRITES] [-s SAMPLES] [-o DIR]"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("SLICEPATH_BUILD", REPO / "build"))
DAEMON = Path(os.environ.get("SLICEPATHD", BUILD / "slicepathd"))
SLICECTLD = BUILD / "control" / "slicectld" / "slicectld"
BENCH = BUILD / "tools" / "bench-fleet" / "sp-bench-fleet"
TAG = os.getpid() % 100000


def free_port(host):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait(pred, what, timeout=60):
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench-fleet: {what}")
        time.sleep(0.1)


def healthy(url):
    try:
        with urllib.request.urlopen(url + "/health", timeout=1) as r:
            return json.loads(r.read()).get("health") == "true"
    except OSError:
        return False


def start_etcd(out, members):
    hosts = [f"127.0.0.{i + 1}" for i in range(members)]
    client = [f"http://{h}:{free_port(h)}" for h in hosts]
    peer = [f"http://{h}:{free_port(h)}" for h in hosts]
    initial = ",".join(f"e{i}={p}" for i, p in enumerate(peer))
    procs = [subprocess.Popen(
        ["etcd", "--name", f"e{i}", "--data-dir", str(out / f"etcd{i}"), "--listen-client-urls",
         client[i], "--advertise-client-urls", client[i], "--listen-peer-urls", peer[i],
         "--initial-advertise-peer-urls", peer[i], "--initial-cluster", initial,
         "--max-txn-ops", "1024"],  # a slice on 100 nodes is placed in 201 operations
        stdout=open(out / f"etcd{i}.log", "ab"), stderr=subprocess.STDOUT)
        for i in range(members)]
    for url in client:
        wait(lambda url=url: healthy(url), f"etcd at {url} did not start")
    return procs, "etcd://" + ",".join(u.removeprefix("http://") for u in client)


def start_node(out, i, cluster):
    """slicepathd (a net_null port) and slicectld --cluster --node n{i}."""
    run = Path(tempfile.mkdtemp(prefix=f"spbf{i}"))
    cfg = {
        "eal": ["--no-huge", "-m", "256", "--no-pci", "--file-prefix", f"spbf{TAG}n{i}",
                "--log-level", "lib.*:notice"],
        "ports": [{"name": "p0", "ipv4": f"10.9.0.{i + 1}", "device": f"net_null{i},no-rx=1",
                   "rate": "10G"}],
        "npes": [{"rates": {"p0": "10G"}}],
        "mgmt_socket": str(run / "mgmt.sock"),
        "channel_dir": str(run / "slices"),
    }
    (out / f"n{i}.json").write_text(json.dumps(cfg))
    log = open(out / f"n{i}.log", "ab")
    sp = subprocess.Popen([str(DAEMON), "-c", str(out / f"n{i}.json")], stdout=log,
                          stderr=subprocess.STDOUT)
    wait(lambda: (run / "mgmt.sock").exists() or sp.poll() is not None,
         f"slicepathd n{i} did not start (see {out / f'n{i}.log'})")
    ctld = subprocess.Popen([str(SLICECTLD), "-s", str(run / "ctl.sock"), "-b",
                             str(run / "mgmt.sock"), "-d", str(run / "ctld.db"), "--metrics",
                             "off", "--cluster", cluster, "--node", f"n{i}"],
                            stdout=log, stderr=subprocess.STDOUT)
    return [sp, ctld], run


def bench(args, out, name):
    print(f"$ {' '.join(map(str, args))}", flush=True)
    r = subprocess.run(list(map(str, args)), capture_output=True, text=True, timeout=1800)
    (out / f"{name}.txt").write_text(r.stdout + r.stderr)
    print(r.stdout + r.stderr, end="", flush=True)
    if r.returncode != 0:
        raise SystemExit(f"bench-fleet: sp-bench-fleet ({name}) failed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--members", type=int, default=1)
    ap.add_argument("-n", "--nodes", type=int, default=100, help="model nodes")
    ap.add_argument("-w", "--writes", type=int, default=2000)
    ap.add_argument("-s", "--samples", type=int, default=200)
    ap.add_argument("-o", "--out", type=Path, default=None)
    a = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("bench-fleet: run as root (DPDK)")
    if shutil.which("etcd") is None:
        raise SystemExit("bench-fleet: etcd is missing (apt-get install etcd-server)")
    out = a.out or Path(tempfile.mkdtemp(prefix="bench-fleet."))
    out.mkdir(parents=True, exist_ok=True)
    procs, runs = [], []
    try:
        etcd, cluster = start_etcd(out, a.members)
        procs += etcd
        for i in range(3):
            p, run = start_node(out, i, cluster)
            procs += p
            runs.append(run)
        common = ["--cluster", cluster, "--writes", a.writes, "--samples", a.samples]
        bench([BENCH, *common, "--nodes", "n0,n1,n2"], out, "real3")
        bench([BENCH, *common, "--model", a.nodes], out, f"model{a.nodes}")
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
        for run in runs:
            shutil.rmtree(run, ignore_errors=True)
    print(f"output: {out}")


if __name__ == "__main__":
    sys.exit(main())
