# SPDX-License-Identifier: BSD-3-Clause
"""The host path (docs/config.md, ports[].host): on a port DPDK owns, what no slice claims
and is for the node's address (TCP, UDP to ports no endpoint holds, ICMP other than echo
requests) goes to the host's interface, with a copy of each ARP reply to the node, and what
the host sends leaves the port; slices, ARP and echo stay the node's. The port is a tap
here, its kernel side the wire the test writes and reads; the host's interface is a tap
slicepathd creates."""

import contextlib
import os
import select
import socket
import subprocess
import sys
import time

import pytest
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw

from conftest import needs_root
from spnode import PEER_IP, PEER_MAC, Node, inner_udp, substrate
from test_metrics import scrape, value

pytestmark = needs_root

P0_MAC, P0_IP = "02:00:00:00:00:10", "10.0.0.1"
SSHD = "/usr/sbin/sshd"


class Wire:
    """A packet socket on an interface: frames in, frames out, the kernel's own left out."""

    def __init__(self, ifname):
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
        self.sock.bind((ifname, 0))

    def send(self, frame):
        self.sock.send(bytes(frame))

    def frames(self, want, count, timeout=3.0):
        """Frames the interface received (from slicepathd) matching want: count of them,
        then what else comes within 0.2 s, or what came within timeout."""
        got, deadline = [], time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if len(got) >= count:
                left = min(left, 0.2)
                deadline = min(deadline, time.monotonic() + 0.2)
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                return got
            frame, (_, _, pkttype, *_) = self.sock.recvfrom(65536)
            if pkttype != socket.PACKET_OUTGOING and want(Ether(frame)):
                got.append(Ether(frame))

    def close(self):
        self.sock.close()


def host_node(tmp_path, nb_lc=1):
    """p0 a tap (wire spw<pid>) with a host path on sph<pid>, alpha's endpoint on UDP 5001;
    with nb_lc 2, two LC lcores (the host's interface then has a queue pair each)."""
    tag = os.getpid() % 100000
    n = Node(tmp_path, "host")
    p0 = n.port("p0", P0_IP, P0_MAC, device=f"net_tap0,iface=spw{tag}")
    p0.host = f"sph{tag}"
    p1 = n.port("p1", "10.1.0.1", "02:00:00:00:01:10")
    if nb_lc == 2:
        n.lcores = [{"id": 1, "lc": True, "npes": [0]}, {"id": 2, "lc": True}]
        n.eal_extra = ["--lcores", "0@0,1@1,2@0"]
        p1.rx_queues = p1.tx_queues = 2
    s = n.slice("alpha", 1)
    s.endpoint(p0, 5001)
    s.endpoint(p1, 5001)
    return n, p0, f"spw{tag}", f"sph{tag}"


def to_node(l4):
    return Ether(src=PEER_MAC, dst=P0_MAC) / IP(src=PEER_IP, dst=P0_IP) / l4


@pytest.mark.parametrize("nb_lc", [1, 2])
def test_unclaimed_traffic_goes_to_the_host_and_back(tmp_path, nb_lc):
    n, p0, wire_if, host_if = host_node(tmp_path, nb_lc)
    n.start()
    wire, host = Wire(wire_if), Wire(host_if)
    try:
        ssh = to_node(TCP(sport=40000, dport=22, flags="S", seq=7))
        unheld = to_node(UDP(sport=4000, dport=9999) / Raw(b"for the host"))
        unreach = to_node(ICMP(type=3, code=3) / Raw(b"x" * 28))
        for f in (ssh, unheld, unreach):
            wire.send(f)
        wire.send(substrate(inner_udp("192.168.1.5"), p0, 5001))  # alpha's
        wire.send(to_node(ICMP(type=8, id=5, seq=1)))  # the node answers
        wire.send(Ether(src=PEER_MAC, dst="ff:ff:ff:ff:ff:ff")
                  / ARP(op=1, hwsrc=PEER_MAC, psrc=PEER_IP, pdst=P0_IP))
        got = host.frames(lambda e: IP in e or ARP in e, 3)
        # With two LC lcores each hands the host the frames of its own queue: any order.
        assert sorted(bytes(e) for e in got) == sorted(map(bytes, (ssh, unheld, unreach))), \
            [e.summary() for e in got]
        answers = wire.frames(lambda e: (ICMP in e and e[ICMP].type == 0) or
                              (ARP in e and e[ARP].op == 2), 2)
        assert len(answers) == 2, [e.summary() for e in answers]

        # An ARP reply to the node: learned by it, and a copy for the host's own neighbors.
        reply = Ether(src=PEER_MAC, dst=P0_MAC) / ARP(op=2, hwsrc=PEER_MAC, psrc=PEER_IP,
                                                      hwdst=P0_MAC, pdst=P0_IP)
        wire.send(reply)
        copies = host.frames(lambda e: ARP in e, 1)
        assert [bytes(e) for e in copies] == [bytes(reply)], [e.summary() for e in copies]
        # What the host sends leaves p0 as it is.
        out = Ether(src=P0_MAC, dst=PEER_MAC) / IP(src=P0_IP, dst=PEER_IP) / \
            TCP(sport=22, dport=40000, flags="SA", seq=1, ack=8)
        host.send(out)
        back = wire.frames(lambda e: TCP in e, 1)
        assert [bytes(e) for e in back] == [bytes(out)], [e.summary() for e in back]
        ports = n.cmd("/slicepath/ports")["p0"]
        slice_rx = n.cmd("/slicepath/slice,alpha")["rx_pkts"]
    finally:
        wire.close()
        host.close()
        n.stop()
    # The host's own chatter (IPv6 router solicitations...) leaves too.
    assert ports["to_host_pkts"] == 4 and ports["from_host_pkts"] >= 1, ports
    assert slice_rx == 1
    assert f"p0: host path on interface {host_if}" in n.log()


def netns(name, *cmd, check=True, **kw):
    return subprocess.run(["ip", "netns", "exec", name, *cmd], capture_output=True, text=True,
                          timeout=30, check=check, **kw)


@contextlib.contextmanager
def host_and_client(tmp_path):
    """slicepathd in a namespace of its own (the host, its host path's interface there
    with the port's address), the wire's far end moved to another (the client, at
    PEER_IP); yields (node, host namespace, client namespace)."""
    tag = os.getpid() % 100000
    node_ns, cli_ns = f"sphost{tag}", f"spcli{tag}"
    n, _p0, wire_if, host_if = host_node(tmp_path)
    plain = n.command
    n.command = lambda: ["ip", "netns", "exec", node_ns, *plain()]
    for ns in (node_ns, cli_ns):
        subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        n.start()
        subprocess.run(["ip", "-n", node_ns, "link", "set", wire_if, "netns", cli_ns],
                       check=True)
        for ns, ifname, ip in ((node_ns, host_if, P0_IP), (cli_ns, wire_if, PEER_IP)):
            netns(ns, "ip", "addr", "add", f"{ip}/24", "dev", ifname)
            netns(ns, "ip", "link", "set", ifname, "up")
        yield n, node_ns, cli_ns
    finally:
        n.stop()
        for ns in (node_ns, cli_ns):
            subprocess.run(["ip", "netns", "del", ns], check=False)


@contextlib.contextmanager
def running(*cmd, **kw):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    try:
        yield p
    finally:
        p.kill()
        p.wait()


def retried(cli_ns, *cmd):
    """cmd in the client namespace, again every 0.2 s for 10 s until it succeeds."""
    deadline = time.monotonic() + 10
    while True:
        r = netns(cli_ns, *cmd, check=False)
        if r.returncode == 0 or time.monotonic() > deadline:
            return r
        time.sleep(0.2)


def test_a_host_server_answers_through_the_dpdk_port(tmp_path):
    """A TCP server of the host (python3's http.server on the port's address) answers a
    client across the port DPDK owns: the client's SYN reaches the host through the host
    path, the host's ARP for the client goes out and its answer comes back to it as a
    copy, and the reply leaves the port."""
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "hello.txt").write_text("served by the host\n")
    with host_and_client(tmp_path) as (n, node_ns, cli_ns), \
            running("ip", "netns", "exec", node_ns, sys.executable, "-m", "http.server",
                    "--bind", P0_IP, "8080", cwd=tmp_path / "www"):
        r = retried(cli_ns, sys.executable, "-c", "import urllib.request; print(urllib.request"
                    f".urlopen('http://{P0_IP}:8080/hello.txt', timeout=2).read().decode(),"
                    " end='')")
        ports = n.cmd("/slicepath/ports")["p0"]
    assert r.returncode == 0 and r.stdout == "served by the host\n", r.stdout + r.stderr
    assert ports["to_host_pkts"] >= 4 and ports["from_host_pkts"] >= 4, ports


@pytest.mark.skipif(not os.path.exists(SSHD), reason="no sshd (Debian package openssh-server)")
def test_ssh_to_the_host_through_the_dpdk_port(tmp_path):
    """The host's own sshd, reached with ssh across the port DPDK owns."""
    key = tmp_path / "id"
    for k in (key, tmp_path / "host_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(k)], check=True)
    (tmp_path / "authorized_keys").write_text((tmp_path / "id.pub").read_text())
    os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation directory
    sshd = [SSHD, "-D", "-e", "-f", "/dev/null", "-o", f"ListenAddress={P0_IP}:2222",
            "-o", f"HostKey={tmp_path / 'host_key'}", "-o", "PidFile=none", "-o", "UsePAM=no",
            "-o", "PermitRootLogin=prohibit-password", "-o", "StrictModes=no",
            "-o", f"AuthorizedKeysFile={tmp_path / 'authorized_keys'}"]
    with host_and_client(tmp_path) as (_n, node_ns, cli_ns), \
            running("ip", "netns", "exec", node_ns, *sshd):
        r = retried(cli_ns, "ssh", "-i", str(key), "-p", "2222", "-o", "BatchMode=yes",
                    "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                    "-o", "ConnectTimeout=3", f"root@{P0_IP}", "ip -o -4 addr show")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"inet {P0_IP}/24" in r.stdout, r.stdout  # the host namespace answered


def test_host_interface_deleted_under_the_node(tmp_path):
    """The host's interface deleted while the node runs (ip link del): frames for the host
    are counted as host_full, nothing else changes, the slices forward, no crash."""
    n, p0, wire_if, host_if = host_node(tmp_path)
    n.start()
    wire = Wire(wire_if)
    try:
        gone = subprocess.run(["ip", "link", "del", host_if], capture_output=True, text=True)
        for i in range(5):
            wire.send(to_node(TCP(sport=40000 + i, dport=22, flags="S")))
        wire.send(substrate(inner_udp("192.168.1.5"), p0, 5001))
        deadline = time.monotonic() + 3
        while n.cmd("/slicepath/slice,alpha")["rx_pkts"] < 1 or \
                n.cmd("/slicepath/ports")["p0"]["rx_pkts"] < 6:
            assert time.monotonic() < deadline, n.cmd("/slicepath/ports")["p0"]
            time.sleep(0.05)
        drops = n.cmd("/slicepath/drops")
        ports = n.cmd("/slicepath/ports")["p0"]
    finally:
        wire.close()
        n.stop()
    assert gone.returncode == 0, gone.stderr
    assert drops["host_full"] == 5 and ports["to_host_pkts"] == 0, (ports, drops)


def test_host_path_counters_in_slicectl_and_metrics(ctl, users):
    """slicectl stats and the Prometheus metrics show what the host path carried."""
    ctl.p0.host = f"sphc{os.getpid() % 100000}"
    ctl.start()
    for i in range(3):
        ctl.sock.send(bytes(to_node(TCP(sport=41000 + i, dport=22, flags="S"))))
    ctl.wait(lambda: ctl.ctld.call("stats.get")["ports"]["p0"]["to_host_pkts"] == 3,
             "the host path did not count 3 frames")
    out = ctl.ctld.slicectl("stats").stdout.splitlines()
    head = out[0].split()
    row = next(line.split() for line in out if line.startswith("p0 "))
    assert row[head.index("TO_HOST_PKTS")] == "3", out
    got = scrape(ctl.ctld.metrics_url())
    assert value(got, "slicepath_port_packets_total", port="p0", direction="to_host") == 3
