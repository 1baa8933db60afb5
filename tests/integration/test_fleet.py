# SPDX-License-Identifier: BSD-3-Clause
"""A fleet (docs/fleet.md): etcd (Debian's etcd-server, started here on loopback ports of
its own) holding the registry, three slicepathd/slicectld pairs in cluster mode, and
slicectl --cluster as the operator. A slice created once is in force on its nodes with the
same filters; a filter change reaches all; a slicectld killed -9 catches up when it
returns; a dead node leaves the live set; concurrent creates never over-commit a node."""

import json
import os
import shutil
import socket
import ssl
import subprocess
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import needs_root
from ctlnode import NH1, CtlNode
from spnode import SLICECTL, assert_frames, inner_udp, substrate
from sp_rpc import RpcError  # noqa: E402 (tools/ is on the path once spnode is imported)

pytestmark = [needs_root,
              pytest.mark.skipif(shutil.which("etcd") is None,
                                 reason="etcd is missing (apt-get install etcd-server)")]

TTL = 3
RENEW = (TTL + 2) // 3  # how often a node renews its lease (control/slicectld/cluster.c)
# Past the TTL, leaving the live set takes etcd's check for expired leases (every 500 ms)
# and its revoke through raft: 2 s covers both on 2 busy cores. Timed from when a listing
# began, so a slow `node list` (a slicectl run) is not counted against the lease.
LEAVE_SLACK = 2.0
NOT_FOUND = 1001  # SP_RPC_NOT_FOUND (include/slicepath/proto.h)


def free_port(host):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class Etcd:
    """An etcd cluster of members on 127.0.0.1, 127.0.0.2, ... with data under tmp_path."""

    def __init__(self, tmp_path, members=1, tls=None):
        """tls: (cert, key) files for the clients' side (https), or None (http)."""
        scheme = "https" if tls else "http"
        self.hosts = [f"127.0.0.{i + 1}" for i in range(members)]
        self.client = [f"{scheme}://{h}:{free_port(h)}" for h in self.hosts]
        self.peer = [f"http://{h}:{free_port(h)}" for h in self.hosts]
        self.cluster = ("etcds://" if tls else "etcd://") + ",".join(
            u.split("://")[1] for u in self.client)
        self.tls = ["--cert-file", str(tls[0]), "--key-file", str(tls[1])] if tls else []
        self.tmp = tmp_path
        self.procs = [None] * members

    def start(self, *which):
        """Start the members (all by default), then wait until each is healthy."""
        which = which or range(len(self.hosts))
        initial = ",".join(f"e{i}={p}" for i, p in enumerate(self.peer))
        for i in which:
            self.procs[i] = subprocess.Popen(
                ["etcd", "--name", f"e{i}", "--data-dir", str(self.tmp / f"etcd{i}"),
                 "--listen-client-urls", self.client[i], "--advertise-client-urls",
                 self.client[i], "--listen-peer-urls", self.peer[i],
                 "--initial-advertise-peer-urls", self.peer[i], "--initial-cluster", initial,
                 *self.tls],
                stdout=open(self.tmp / f"etcd{i}.log", "ab"), stderr=subprocess.STDOUT)
        for i in which:
            until(lambda i=i: self.healthy(i), f"etcd member {i} did not start", timeout=30)
        return self

    def healthy(self, i):
        try:
            with urllib.request.urlopen(self.client[i] + "/health", timeout=1,
                                        context=ssl._create_unverified_context()) as r:
                return json.loads(r.read()).get("health") == "true"
        except OSError:
            return False

    def kill(self, *which):
        for i in which or range(len(self.hosts)):
            if self.procs[i] is not None and self.procs[i].poll() is None:
                self.procs[i].kill()
                self.procs[i].wait()


def fleet_of(tmp_path, etcd):
    """Three nodes (n0, n1, n2) in cluster mode on etcd, started; a node that fails to start
    is killed with the others."""
    nodes = []
    try:
        for i in range(3):
            d = tmp_path / f"n{i}"
            d.mkdir()
            # Listed before it starts: one that fails to start is killed too.
            nodes.append(CtlNode(d, f"fleet{i}", "--cluster", etcd.cluster, "--node", f"n{i}",
                                 "--ttl", str(TTL), p1_tap=True))
            nodes[-1].start()
    except BaseException:
        for n in nodes:
            n.kill()
        raise
    return nodes


@pytest.fixture
def fleet(tmp_path):
    """One etcd member and three nodes in cluster mode, all started."""
    etcd = Etcd(tmp_path).start()
    nodes = []
    try:
        nodes = fleet_of(tmp_path, etcd)
        yield etcd, nodes
    finally:
        for n in nodes:
            n.kill()
        etcd.kill()


def fleetctl(etcd, *args, check=True, opts=()):
    r = subprocess.run([str(SLICECTL), "--cluster", etcd.cluster, *opts, *map(str, args)],
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


def make_web(etcd):
    """Slice web's endpoints (UDP 5000 in on p0, 5001 out on p1), queue and first filter,
    written once for the fleet."""
    fleetctl(etcd, "endpoint", "reserve", "web", "port", "p0", "udp", 5000)
    fleetctl(etcd, "endpoint", "reserve", "web", "port", "p1", "udp", 5001)
    fleetctl(etcd, "queue", "bind", "web", 0, "endpoint", 1, "share", "10M")
    fleetctl(etcd, "filter", "add", "web", "pos", 0, "dst", "10.2.0.0/16", "endpoint", 1,
             "queue", 0, "nexthop", "10.1.0.2:7001")


def live(etcd):
    return sorted(n["node"] for n in fleet_json(etcd, "node", "list") if n["live"])


def etcdctl(etcd, *args, opts=()):
    """etcdctl (Debian's etcd-client) on the first member: its output."""
    return subprocess.run(["etcdctl", "--endpoints", etcd.client[0], *opts, *map(str, args)],
                          check=True, capture_output=True, text=True,
                          env={**os.environ, "ETCDCTL_API": "3"}).stdout


def filters_on(node, name):
    """The slice's filters on the node, or None when its slicectld answers that it has no
    such slice; no answer (a slicectld dead or refusing) fails the test."""
    try:
        r = node.ctld.call("filter.list", slice=name)
    except RpcError as e:
        if e.code == NOT_FOUND and e.message == f'no slice is named "{name}"':
            return None
        raise
    return sorted((f["position"], f["key"], f["mask"]) for f in r)


def kill_node(etcd, node, name):
    """kill -9 the node's slicectld; returns once the node has left the live set, asserting
    it did within TTL + LEAVE_SLACK of the kill (its lease ran out; sooner would be no fault).
    Returns when a listing last found it live (monotonic): down only after that."""
    others = [n for n in live(etcd) if n != name]
    node.ctld.kill()
    killed = last_live = time.monotonic()
    while True:
        asked = time.monotonic()
        seen = live(etcd)
        if seen == others:
            print(f"{name} left the live set {time.monotonic() - killed:.2f} s after its death")
            return last_live
        assert seen == sorted(others + [name]), seen
        assert asked - killed <= TTL + LEAVE_SLACK, \
            f"{name} still live in a listing begun {asked - killed:.1f} s after its death " \
            f"(lease {TTL} s)"
        last_live = asked
        time.sleep(0.1)


def placed_until(etcd, deadline, on, what):
    """Every listing of slice web finished before deadline (monotonic) places it on the
    nodes on; there is at least one."""
    seen = 0
    while True:
        nodes = fleet_json(etcd, "slice", "list")[0]["nodes"]
        if time.monotonic() >= deadline:
            break
        assert nodes == on, f"{what}: on {nodes}"
        seen += 1
        time.sleep(0.1)
    assert seen, "no listing was made in the window"


def test_a_slice_created_once_is_in_force_on_its_nodes(fleet):
    etcd, nodes = fleet
    until(lambda: live(etcd) == ["n0", "n1", "n2"], "the three nodes did not join")
    out = fleetctl(etcd, "slice", "create", "web", "codeopt", "ipv4", "nodes", 3).stdout
    assert "slice web created in the fleet on n0, n1, n2" in out, out
    make_web(etcd)
    for n in nodes:
        until(lambda n=n: filters_on(n, "web") is not None and len(filters_on(n, "web")) == 1,
              f"the filter did not reach {n.node.prefix}")
    assert filters_on(nodes[0], "web") == filters_on(nodes[1], "web") == filters_on(nodes[2],
                                                                                      "web")
    until(lambda: [s["state"] for s in fleet_json(etcd, "slice", "status", "web")["nodes"]]
          == ["in_force"] * 3, "the slice is not in force on its three nodes")
    # In force in the data path: each node's slice forwards a frame by the filter.
    for n in nodes:
        n.send("web", 5000, inner_udp("10.2.0.9"))
        n.wait(lambda n=n: n.ctld.call("stats.get", slice="web")["slice"]["fwd_pkts"] == 1,
               "a node did not forward by the fleet's filter")

    # A filter change reaches all three; a slicectld killed -9 meanwhile catches up, and
    # drops a slice made on it by hand (the registry is the node's desired state).
    nodes[1].ctld.call("slice.create", name="byhand", codeopt="ipv4", buffer_quota=1024)
    nodes[1].ctld.kill()
    fleetctl(etcd, "filter", "add", "web", "pos", 1, "dst", "10.3.0.0/16", "endpoint", 1,
             "queue", 0, "nexthop", "10.1.0.3:7103")
    fleetctl(etcd, "filter", "del", "web", "pos", 0)
    for n in (nodes[0], nodes[2]):
        until(lambda n=n: [p for p, _, _ in filters_on(n, "web")] == [1],
              "the change did not reach a live node")
    nodes[1].ctld.start()
    until(lambda: [p for p, _, _ in (filters_on(nodes[1], "web") or [])] == [1],
          "the restarted slicectld did not catch up")
    until(lambda: "byhand" not in [x["name"] for x in nodes[1].ctld.call("slice.list")],
          "a slice the registry does not place on the node stayed")

    # A node whose slicectld is gone leaves the live set when its lease runs out.
    kill_node(etcd, nodes[2], "n2")
    status = {s["node"]: s for s in fleet_json(etcd, "slice", "status", "web")["nodes"]}
    assert not status["n2"]["live"] and status["n0"]["live"], status

    # Deleted once, gone from every live node; the dead one's when it returns.
    fleetctl(etcd, "slice", "delete", "web")
    for n in (nodes[0], nodes[1]):
        until(lambda n=n: filters_on(n, "web") is None, "the slice stayed on a node")
    nodes[2].ctld.start()
    until(lambda: filters_on(nodes[2], "web") is None, "the returning node kept the slice")
    assert fleet_json(etcd, "slice", "list") == []


def test_a_slice_replaced_off_a_down_node(fleet):
    """A slice on two of three nodes; one node's slicectld dies: the slice stays defined for
    it until the operator moves it (slice replace) onto the third, which applies it; the
    old node, back, deletes its copy; the registry's counts follow."""
    etcd, nodes = fleet
    until(lambda: live(etcd) == ["n0", "n1", "n2"], "the three nodes did not join")
    fleetctl(etcd, "slice", "create", "web", "codeopt", "ipv4", "nodes", "n0,n1")
    make_web(etcd)
    until(lambda: filters_on(nodes[1], "web") is not None, "n1 did not get the slice")
    kill_node(etcd, nodes[1], "n1")
    # Still defined on n1, longer than a policy's delay (2 s in the policy test) would take.
    placed_until(etcd, time.monotonic() + 4, ["n0", "n1"], "with no policy the slice moved")
    out = fleetctl(etcd, "slice", "replace", "web", "n1").stdout
    assert "slice web moved off n1 onto n2: on n0, n2" in out, out
    until(lambda: len(filters_on(nodes[2], "web") or []) == 1, "n2 did not apply the slice")
    inner = inner_udp("10.2.0.9")
    nodes[2].send("web", 5000, inner)
    nodes[2].wait(lambda: nodes[2].ctld.call("stats.get", slice="web")["slice"]["fwd_pkts"]
                  == 1, "n2 did not forward by the slice's filter")
    assert_frames(nodes[2].p1_frames(2, timeout=1), [nodes[2].expected(inner, 5001, NH1)],
                  "n2's p1")
    nodes[1].ctld.start()
    until(lambda: filters_on(nodes[1], "web") is None, "n1 kept the slice it lost")
    used = {n["node"]: n["used_slices"] for n in fleet_json(etcd, "node", "list")}
    assert used == {"n0": 1, "n1": 0, "n2": 1}, used
    bad = fleetctl(etcd, "slice", "replace", "web", "n1", check=False)
    assert bad.returncode == 2 and "slice web is not on node n1" in bad.stderr, bad.stderr


def test_a_slice_deleted_while_its_node_was_down_and_its_status_lost(fleet):
    """A node's slicectld killed -9; its slice deleted from the registry, and the node's
    status for it gone too (as if a crash had lost that write): back, the node reads the
    registry whole and deletes the slice all the same."""
    etcd, nodes = fleet
    until(lambda: live(etcd) == ["n0", "n1", "n2"], "the three nodes did not join")
    fleetctl(etcd, "slice", "create", "web", "codeopt", "ipv4", "nodes", "n0")
    until(lambda: [s["state"] for s in fleet_json(etcd, "slice", "status", "web")["nodes"]]
          == ["in_force"], "the slice is not in force on n0")
    nodes[0].ctld.kill()
    fleetctl(etcd, "slice", "delete", "web")
    status = "/slicepath/status/n0/web"
    assert "in_force" in etcdctl(etcd, "get", status, "--print-value-only")
    etcdctl(etcd, "del", status)
    nodes[0].ctld.start()
    until(lambda: filters_on(nodes[0], "web") is None, "n0 kept a slice the registry dropped")
    assert "web" not in [s["name"] for s in nodes[0].ctld.call("slice.list")]


def test_what_a_node_could_not_apply_is_written_back(fleet):
    """A slice a node refuses (a code option it does not have) is `failed` in slice status
    with the node's reason, on each node; the others' slices are unaffected."""
    etcd, nodes = fleet
    until(lambda: live(etcd) == ["n0", "n1", "n2"], "the three nodes did not join")
    fleetctl(etcd, "slice", "create", "odd", "codeopt", "nosuch", "nodes", 2)
    fleetctl(etcd, "slice", "create", "web", "codeopt", "ipv4", "nodes", 1)

    def states(name):
        return {n["node"]: (n["state"], n.get("reason", ""))
                for n in fleet_json(etcd, "slice", "status", name)["nodes"]}

    until(lambda: all(st == "failed" for st, _ in states("odd").values()),
          "the refusal did not come back")
    assert all("nosuch" in why for _, why in states("odd").values()), states("odd")
    out = fleetctl(etcd, "slice", "status", "odd").stdout
    assert "failed" in out and "nosuch" in out, out
    until(lambda: [st for st, _ in states("web").values()] == ["in_force"],
          "a good slice beside it is not in force")


def test_the_policy_moves_slices_off_a_node_that_stays_down(fleet):
    """With the fleet's policy set (replace-after 2 s), a node down that long loses its
    slices to a live node with room, without an operator; the policy is shown back."""
    etcd, nodes = fleet
    until(lambda: live(etcd) == ["n0", "n1", "n2"], "the three nodes did not join")
    assert "slices stay on a node that is down" in fleetctl(etcd, "policy").stdout
    out = fleetctl(etcd, "policy", "set", "replace-after", 2).stdout
    assert "slices leave a node down for 2 s" in out, out
    fleetctl(etcd, "slice", "create", "web", "codeopt", "ipv4", "nodes", "n0,n1")
    make_web(etcd)
    until(lambda: filters_on(nodes[1], "web") is not None, "n1 did not get the slice")
    down_after = kill_node(etcd, nodes[1], "n1")
    placed_until(etcd, down_after + 2, ["n0", "n1"], "moved before n1 was down 2 s")
    # Then a heartbeat or two (RENEW s each) later.
    until(lambda: fleet_json(etcd, "slice", "list")[0]["nodes"] == ["n0", "n2"],
          "the policy did not move the slice off the node down", timeout=3 * RENEW + 2)
    until(lambda: len(filters_on(nodes[2], "web") or []) == 1, "n2 did not apply the slice")
    logs = [n.ctld.log() for n in nodes]
    moved = [log.count("stayed down: slice web moved to n2") for log in logs]
    assert sorted(moved) == [0, 0, 1], moved  # one node did it; the others found it done
    assert not any("(null)" in log for log in logs), "a node logged a move it did not make"
    bad = fleetctl(etcd, "policy", "set", "replace-after", -1, check=False)
    assert bad.returncode == 1, bad.stderr


def test_concurrent_creates_never_overcommit_a_node(fleet):
    """200 creates from 4 clients at once, each slice a tenth of a node's bandwidth: each
    node takes at most ten, the registry's counts match the slices it holds."""
    etcd, nodes = fleet
    until(lambda: live(etcd) == ["n0", "n1", "n2"], "the three nodes did not join")
    cap = fleet_json(etcd, "node", "list")[0]["bandwidth"]
    assert cap % 10_000 == 0, cap  # a tenth in whole kbit/s: slicectl wants a unit
    results = []

    def client(k):
        for i in range(50):
            r = fleetctl(etcd, "slice", "create", f"s{k}x{i}", "codeopt", "ipv4", "nodes", 1,
                         "bandwidth", f"{cap // 10_000}k", check=False)
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


def test_etcd_member_lost_then_etcd_stopped_while_traffic_flows(tmp_path):
    """Three etcd members: one killed, the fleet goes on (a change reaches every node, none
    lost); then all stopped while frames flow into a node: each is forwarded as before (the
    fast path never waits on etcd), and once etcd is back a change reaches every node."""
    etcd = Etcd(tmp_path, members=3).start()
    nodes = []
    try:
        nodes = fleet_of(tmp_path, etcd)
        until(lambda: live(etcd) == ["n0", "n1", "n2"], "the three nodes did not join")
        fleetctl(etcd, "slice", "create", "web", "codeopt", "ipv4", "nodes", 3)
        make_web(etcd)

        etcd.kill(0)  # the member every client tried first
        fleetctl(etcd, "filter", "add", "web", "pos", 1, "dst", "10.3.0.0/16", "endpoint", 1,
                 "queue", 0, "nexthop", "10.1.0.3:7103")
        for n in nodes:
            until(lambda n=n: [p for p, _, _ in (filters_on(n, "web") or [])] == [0, 1],
                  "a change made with a member lost did not reach a node")
        assert [f["position"] for f in fleet_json(etcd, "filter", "list", "web")] == [0, 1]

        # etcd down entirely while frames flow into n0: every one forwarded.
        sent = []
        stop = threading.Event()

        def traffic():
            while not stop.is_set():
                nodes[0].sock.send(substrate(inner_udp("10.2.0.9", seq=len(sent)), nodes[0].p0,
                                             5000))
                sent.append(1)
                time.sleep(0.002)

        before = nodes[0].rx("web")
        t = threading.Thread(target=traffic)
        t.start()
        try:
            time.sleep(0.5)
            etcd.kill()
            nodes[0].ctld.wait_log("the node keeps its last state")
            time.sleep(1)
            etcd.start()
            time.sleep(0.5)
        finally:
            stop.set()
            t.join()
        until(lambda: nodes[0].rx("web") - before == len(sent),
              f"n0's slice counted {nodes[0].rx('web') - before} of {len(sent)} frames")
        until(lambda: nodes[0].ctld.call("stats.get", slice="web")["slice"]["fwd_pkts"] ==
              len(sent), "n0 did not forward every frame while etcd was down")

        fleetctl(etcd, "filter", "del", "web", "pos", 0)
        for n in nodes:
            until(lambda n=n: [p for p, _, _ in (filters_on(n, "web") or [])] == [1],
                  "a change after etcd's restart did not reach a node", timeout=30)
    finally:
        for n in nodes:
            n.kill()
        etcd.kill()


class ElectingEtcd(ThreadingHTTPServer):
    """A member in an election: answers its first `unavailable` requests (all, if None) as
    etcd does then (HTTP 503, "leader changed"), passes the others to the real member."""

    def __init__(self, member, unavailable):
        self.member, self.unavailable, self.refused = member, unavailable, 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if outer.unavailable is None or outer.refused < outer.unavailable:
                    outer.refused += 1
                    status, answer = 503, json.dumps({"error": "etcdserver: leader changed",
                                                      "code": 14,
                                                      "message": "etcdserver: leader changed"})
                    answer = answer.encode()
                else:
                    req = urllib.request.Request(outer.member + self.path, data=body,
                                                 headers={"Content-Type": "application/json"})
                    with urllib.request.urlopen(req, timeout=5) as r:
                        status, answer = r.status, r.read()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def cluster(self):
        return f"etcd://127.0.0.1:{self.server_address[1]}"


def test_an_election_is_waited_out_and_no_etcd_fails_at_once(tmp_path):
    """etcd answering "unavailable" (an election) for a while: the command waits it out and
    succeeds; answering so for good: it fails with etcd's words after the wait (about 3 s);
    no member reachable at all: it fails at once."""
    etcd = Etcd(tmp_path).start()
    electing = ElectingEtcd(etcd.client[0], unavailable=5)
    try:
        def node_list(cluster):
            started = time.monotonic()
            r = subprocess.run([str(SLICECTL), "--cluster", cluster, "node", "list"],
                               capture_output=True, text=True, timeout=60)
            print(r.stdout + r.stderr, end="")
            return r, time.monotonic() - started

        r, _ = node_list(electing.cluster)
        assert r.returncode == 0, r.stderr
        assert electing.refused == 5, electing.refused

        electing.unavailable = None
        r, took = node_list(electing.cluster)
        assert r.returncode != 0 and "leader changed" in r.stderr, r.stderr
        assert 3 <= took < 15, f"gave up after {took:.1f} s"

        r, took = node_list(f"etcd://127.0.0.1:{free_port('127.0.0.1')}")
        assert r.returncode != 0 and "Couldn't connect" in r.stderr, r.stderr
        assert took < 3, f"an unreachable etcd took {took:.1f} s to fail"
    finally:
        electing.shutdown()
        etcd.kill()


def test_tls_and_etcd_logins(tmp_path):
    """etcd over TLS with authentication on: a node and an operator each log in as their
    own etcd user (a role holding the registry's prefix) and the fleet works; a wrong
    password and an unverified certificate are refused with the reason."""
    ca, cert, key = tmp_path / "ca.pem", tmp_path / "etcd.pem", tmp_path / "etcd.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=test CA", "-keyout", tmp_path / "ca.key", "-out", ca],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=etcd",
                    "-keyout", key, "-out", tmp_path / "etcd.csr"], check=True,
                   capture_output=True)
    (tmp_path / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    subprocess.run(["openssl", "x509", "-req", "-in", tmp_path / "etcd.csr", "-CA", ca,
                    "-CAkey", tmp_path / "ca.key", "-CAcreateserial", "-days", "2",
                    "-extfile", tmp_path / "san.ext", "-out", cert], check=True,
                   capture_output=True)
    etcd = Etcd(tmp_path, tls=(cert, key)).start()
    node = None
    try:
        ca_opt = ("--cacert", str(ca))
        etcdctl(etcd, "user", "add", "root", "--new-user-password", "rootpw", opts=ca_opt)
        etcdctl(etcd, "role", "add", "fleet", opts=ca_opt)
        etcdctl(etcd, "role", "grant-permission", "fleet", "--prefix=true", "readwrite",
                "/slicepath/", opts=ca_opt)
        for user, pw in (("n0", "nodepw"), ("op", "oppw")):
            etcdctl(etcd, "user", "add", user, "--new-user-password", pw, opts=ca_opt)
            etcdctl(etcd, "user", "grant-role", user, "fleet", opts=ca_opt)
        etcdctl(etcd, "auth", "enable", opts=ca_opt)

        d = tmp_path / "n0"
        d.mkdir()
        node = CtlNode(d, "fleettls", "--cluster", etcd.cluster, "--node", "n0", "--ttl",
                       str(TTL), "--cacert", str(ca), "--user", "n0:nodepw")
        node.start()
        op = ("--cacert", str(ca), "--user", "op:oppw")
        until(lambda: [n["node"] for n in json.loads(fleetctl(etcd, "-j", "node", "list",
                                                               opts=op).stdout)
                       if n["live"]] == ["n0"], "the node did not join over TLS")
        fleetctl(etcd, "slice", "create", "web", "codeopt", "ipv4", "nodes", 1, opts=op)
        fleetctl(etcd, "endpoint", "reserve", "web", "port", "p1", "udp", 5001, opts=op)
        fleetctl(etcd, "queue", "bind", "web", 0, "endpoint", 0, opts=op)
        fleetctl(etcd, "filter", "add", "web", "pos", 0, "dst", "10.2.0.0/16", "endpoint", 0,
                 "queue", 0, "nexthop", "10.1.0.2:7001", opts=op)
        until(lambda: len(filters_on(node, "web") or []) == 1, "the filter did not arrive")

        bad = fleetctl(etcd, "slice", "list", check=False,
                       opts=("--cacert", str(ca), "--user", "op:wrong"))
        assert bad.returncode == 3 and "authentication failed" in bad.stderr, bad.stderr
        unverified = fleetctl(etcd, "slice", "list", check=False, opts=("--user", "op:oppw"))
        assert unverified.returncode == 3 and "certificate" in unverified.stderr, \
            unverified.stderr
    finally:
        if node is not None:
            node.kill()
        etcd.kill()
