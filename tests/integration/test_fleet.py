# SPDX-License-Identifier: BSD-3-Clause
"""A fleet (docs/fleet.md): etcd (Debian's etcd-server, started here on loopback ports of
its own) holding the registry, three slicepathd/slicectld pairs in cluster mode, and
slicectl --cluster as the operator. A slice created once is in force on its nodes with the
same filters; a filter change reaches all; a slicectld killed -9 catches up when it
returns; a dead node leaves the live set; concurrent creates never over-commit a node."""

import json
import shutil
import socket
import subprocess
import threading
import time
import urllib.request

import pytest

from conftest import needs_root
from ctlnode import CtlNode
from spnode import SLICECTL, inner_udp

pytestmark = [needs_root,
              pytest.mark.skipif(shutil.which("etcd") is None,
                                 reason="etcd is missing (apt-get install etcd-server)")]

TTL = 3


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Etcd:
    """One etcd member on 127.0.0.1 with a data directory under tmp_path."""

    def __init__(self, tmp_path):
        self.client, self.peer = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.client}"
        self.cluster = f"etcd://127.0.0.1:{self.client}"
        self.dir = tmp_path / "etcd"
        self.log = open(tmp_path / "etcd.log", "ab")
        self.proc = None

    def start(self):
        peer = f"http://127.0.0.1:{self.peer}"
        self.proc = subprocess.Popen(
            ["etcd", "--name", "e0", "--data-dir", str(self.dir), "--listen-client-urls",
             self.url, "--advertise-client-urls", self.url, "--listen-peer-urls", peer,
             "--initial-advertise-peer-urls", peer, "--initial-cluster", f"e0={peer}"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=1) as r:
                    if json.loads(r.read()).get("health") == "true":
                        return self
            except OSError:
                pass
            assert time.monotonic() < deadline, "etcd did not start"
            time.sleep(0.2)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def fleet(tmp_path):
    """etcd and three nodes (n0, n1, n2) in cluster mode, all started."""
    etcd = Etcd(tmp_path).start()
    nodes = []
    try:
        for i in range(3):
            d = tmp_path / f"n{i}"
            d.mkdir()
            # Listed before it starts: one that fails to start is killed too.
            nodes.append(CtlNode(d, f"fleet{i}", "--cluster", etcd.cluster, "--node", f"n{i}",
                                 "--ttl", str(TTL)))
            nodes[-1].start()
        yield etcd, nodes
    finally:
        for n in nodes:
            n.kill()
        etcd.stop()


def fleetctl(etcd, *args, check=True):
    r = subprocess.run([str(SLICECTL), "--cluster", etcd.cluster, *map(str, args)],
                       capture_output=True, text=True, timeout=60)
    print(f"$ slicectl --cluster {etcd.cluster} {' '.join(map(str, args))}")
    print(r.stdout + r.stderr, end="")
    if check:
        assert r.returncode == 0, r.stderr
    return r


def fleet_json(etcd, *args):
    return json.loads(fleetctl(etcd, "-j", *args).stdout)


def until(pred, what, timeout=20):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def live(etcd):
    return sorted(n["node"] for n in fleet_json(etcd, "node", "list") if n["live"])


def filters_on(node, name):
    try:
        r = node.ctld.call("filter.list", slice=name)
    except Exception:  # noqa: BLE001 (not there yet)
        return None
    return sorted((f["position"], f["key"], f["mask"]) for f in r)


def test_a_slice_created_once_is_in_force_on_its_nodes(fleet):
    etcd, nodes = fleet
    until(lambda: live(etcd) == ["n0", "n1", "n2"], "the three nodes did not join")
    out = fleetctl(etcd, "slice", "create", "web", "codeopt", "ipv4", "nodes", 3).stdout
    assert "slice web created in the fleet on n0, n1, n2" in out, out
    fleetctl(etcd, "endpoint", "reserve", "web", "port", "p0", "udp", 5000)
    fleetctl(etcd, "queue", "bind", "web", 0, "endpoint", 0, "share", "10M")
    fleetctl(etcd, "filter", "add", "web", "pos", 0, "dst", "10.2.0.0/16", "endpoint", 0,
             "queue", 0, "nexthop", "10.1.0.2:7001")
    for n in nodes:
        until(lambda n=n: filters_on(n, "web") is not None and len(filters_on(n, "web")) == 1,
              f"the filter did not reach {n.node.prefix}")
    assert filters_on(nodes[0], "web") == filters_on(nodes[1], "web") == filters_on(nodes[2],
                                                                                      "web")
    until(lambda: [s["state"] for s in fleet_json(etcd, "slice", "status", "web")["nodes"]]
          == ["in_force"] * 3, "the slice is not in force on its three nodes")
    # In force in the data path: each node's slice counts a frame to its endpoint.
    for n in nodes:
        n.send("web", 5000, inner_udp("10.2.0.9"))

    # A filter change reaches all three; a slicectld killed -9 meanwhile catches up.
    nodes[1].ctld.kill()
    fleetctl(etcd, "filter", "add", "web", "pos", 1, "dst", "10.3.0.0/16", "endpoint", 0,
             "queue", 0, "nexthop", "10.1.0.3:7103")
    fleetctl(etcd, "filter", "del", "web", "pos", 0)
    for n in (nodes[0], nodes[2]):
        until(lambda n=n: [p for p, _, _ in filters_on(n, "web")] == [1],
              "the change did not reach a live node")
    nodes[1].ctld.start()
    until(lambda: [p for p, _, _ in (filters_on(nodes[1], "web") or [])] == [1],
          "the restarted slicectld did not catch up")

    # A node whose slicectld is gone leaves the live set within the lease's TTL.
    nodes[2].ctld.kill()
    until(lambda: live(etcd) == ["n0", "n1"], "a dead node stayed live", timeout=TTL + 10)
    status = {s["node"]: s for s in fleet_json(etcd, "slice", "status", "web")["nodes"]}
    assert not status["n2"]["live"] and status["n0"]["live"], status

    # Deleted once, gone from every live node; the dead one's when it returns.
    fleetctl(etcd, "slice", "delete", "web")
    for n in (nodes[0], nodes[1]):
        until(lambda n=n: filters_on(n, "web") is None, "the slice stayed on a node")
    nodes[2].ctld.start()
    until(lambda: filters_on(nodes[2], "web") is None, "the returning node kept the slice")
    assert fleet_json(etcd, "slice", "list") == []


def test_concurrent_creates_never_overcommit_a_node(fleet):
    """200 creates from 4 clients at once, each slice a tenth of a node's bandwidth: each
    node takes at most ten, the registry's counts match the slices it holds."""
    etcd, nodes = fleet
    until(lambda: live(etcd) == ["n0", "n1", "n2"], "the three nodes did not join")
    cap = fleet_json(etcd, "node", "list")[0]["bandwidth"]
    results = []

    def client(k):
        for i in range(50):
            r = fleetctl(etcd, "slice", "create", f"s{k}x{i}", "codeopt", "ipv4", "nodes", 1,
                         "bandwidth", cap // 10, check=False)
            results.append(r)

    threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    made = [r for r in results if r.returncode == 0]
    refused = [r for r in results if r.returncode != 0]
    assert len(made) == 30, [r.stderr for r in refused][:5]
    assert all("have room" in r.stderr for r in refused), [r.stderr for r in refused][:5]
    per_node = {}
    for s in fleet_json(etcd, "slice", "list"):
        assert len(s["nodes"]) == 1
        per_node[s["nodes"][0]] = per_node.get(s["nodes"][0], 0) + 1
    assert per_node == {"n0": 10, "n1": 10, "n2": 10}, per_node
    for n in fleet_json(etcd, "node", "list"):
        assert n["used_slices"] == 10 and n["used_bandwidth"] <= n["bandwidth"], n
