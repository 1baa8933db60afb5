# SPDX-License-Identifier: BSD-3-Clause
"""ARP resolution of next hops, end to end and in order: a packet to an
unknown next hop waits (held) and the node asks for it; the answer is
learned and the packet goes out with the learned MAC, then the next one;
without an answer the held packet is dropped (no_neighbor) after a second.
The ports are net_tap devices driven from the kernel side with raw sockets,
so the test can answer the request after seeing it. An IPv6 next hop is
solicited the same way, and Linux's own neighbor discovery answers."""

import os
import socket
import subprocess
import time

import pytest

from conftest import needs_root
from scapy.layers.inet6 import ICMPv6ND_NS, ICMPv6NDOptSrcLLAddr, IPv6
from scapy.layers.l2 import Ether

from spnode import (Node, arp_reply, arp_request, inner_udp, neighbor_table, routed_inner,
                    encap6_out, encap_out, substrate)

pytestmark = [needs_root, pytest.mark.skipif(not os.path.exists("/dev/net/tun"),
                                             reason="needs /dev/net/tun for net_tap")]

NH_IP, NH_PORT, NH_MAC = "10.1.0.9", 7009, "02:cc:00:00:00:09"
ETH_P_ALL = 0x0003


class TapEnd:
    """The kernel side of a net_tap port: send frames in, read frames out."""

    def __init__(self, iface, ipv6=None):
        """With ipv6 ("fd00::2/64"), the kernel holds that address on the tap and speaks
        neighbor discovery for it; without, IPv6 is off there: autoconfiguration would
        send its own frames into the port."""
        self.iface = iface
        if ipv6 is not None:
            subprocess.run(["ip", "link", "set", "dev", iface, "up"], check=True)
            subprocess.run(["ip", "-6", "addr", "add", ipv6, "dev", iface, "nodad"], check=True)
        else:
            with open(f"/proc/sys/net/ipv6/conf/{iface}/disable_ipv6", "w") as f:
                f.write("1")
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self.sock.bind((iface, 0))
        self.sock.settimeout(0.1)

    def send(self, frame):
        self.sock.send(bytes(frame))

    def expect(self, want, timeout=5.0):
        """The first frame that equals want (ignoring Ethernet padding), or fail."""
        seen = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                data, addr = self.sock.recvfrom(65535)
            except socket.timeout:
                continue
            # What the daemon writes into the tap arrives at the kernel; what we
            # send leaves it (PACKET_OUTGOING): skip our own frames.
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            if data[:len(want)] == want and not any(data[len(want):]):
                return data
            seen.append(data.hex())
        raise AssertionError(f"{self.iface}: no frame {want.hex()} within {timeout}s; "
                             f"saw {seen[:5]}")

    def close(self):
        self.sock.close()


def wait_for(pred, what, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def routed_node(tmp_path, name, iface, static=None):
    """A node whose slice alpha sends 10.50.0.0/16 from p0 (tap {iface}in) out of p1 (tap
    {iface}out) to NH, not yet resolved; with static=(ip, mac), that neighbor in the
    config and 10.60.0.0/16 sent to it. Returns the node, its two ports and the taps' names."""
    ifaces = (f"{iface}in", f"{iface}out")
    n = Node(tmp_path, name)
    p0 = n.port("p0", "10.0.0.1", "02:00:00:00:00:10", device=f"net_tap0,iface={ifaces[0]}")
    p1 = n.port("p1", "10.1.0.1", "02:00:00:00:01:10", device=f"net_tap1,iface={ifaces[1]}")
    a = n.slice("alpha", 1)
    a.endpoint(p0, 5001)
    out = a.endpoint(p1, 5001)
    a.queue(0, out)
    a.route(0, "10.50.0.0/16", endpoint=out, queue=0, next_hop=f"{NH_IP}:{NH_PORT}")
    if static is not None:
        n.neighbor(p1, *static)
        a.route(1, "10.60.0.0/16", endpoint=out, queue=0, next_hop=f"{static[0]}:{NH_PORT}")
    return n, p0, p1, ifaces


def test_next_hop_is_resolved_by_arp_and_then_used(tmp_path):
    n, p0, p1, ifaces = routed_node(tmp_path, "arp", f"sp{os.getpid() % 10000}")

    n.start()
    ins = outs = None
    try:
        ins, outs = TapEnd(ifaces[0]), TapEnd(ifaces[1])
        first = inner_udp("10.50.1.1", seq=1)
        ins.send(substrate(first, p0, 5001))
        # Held for want of a MAC, and the node asks for one on p1.
        outs.expect(arp_request(p1.mac, p1.ipv4, NH_IP))
        wait_for(lambda: n.cmd("/slicepath/slices")["alpha"]["held_pkts"] == 1, "the held frame")

        # The answer releases it: the first frame arrives, with the learned MAC.
        outs.send(arp_reply(NH_MAC, NH_IP, p1.mac, p1.ipv4))
        outs.expect(encap_out(routed_inner(first), p1, 5001, NH_IP, NH_PORT, NH_MAC))
        assert neighbor_table(n.cmd("/slicepath/neighbors"))[("p1", NH_IP)] == NH_MAC

        second = inner_udp("10.50.1.2", seq=2)
        ins.send(substrate(second, p0, 5001))
        outs.expect(encap_out(routed_inner(second), p1, 5001, NH_IP, NH_PORT, NH_MAC))

        # An unsolicited reply for an address nobody asked about is not learned.
        outs.send(arp_reply("02:dd:00:00:00:01", "10.1.0.77", p1.mac, p1.ipv4))
        time.sleep(0.2)
        assert ("p1", "10.1.0.77") not in neighbor_table(n.cmd("/slicepath/neighbors"))
        slices = n.cmd("/slicepath/slices")["alpha"]
        assert (slices["rx_pkts"], slices["fwd_pkts"], slices["drop_pkts"]) == (2, 2, 0)
        assert (slices["held_pkts"], slices["released_pkts"]) == (1, 1)
        assert n.cmd("/slicepath/drops")["no_neighbor"] == 0
    finally:
        for end in (ins, outs):
            if end is not None:
                end.close()
        n.stop()


def test_unanswered_next_hop_drops_held_frames_after_a_second(tmp_path):
    """Nobody answers: the held frames wait a second, then each is dropped as no_neighbor,
    counted once (held, then the drop; never released, never sent)."""
    n, p0, p1, ifaces = routed_node(tmp_path, "arpwait", f"sw{os.getpid() % 10000}")

    n.start()
    ins = outs = None
    try:
        ins, outs = TapEnd(ifaces[0]), TapEnd(ifaces[1])
        sent = time.monotonic()
        for seq in range(2):
            ins.send(substrate(inner_udp("10.50.1.1", seq=seq), p0, 5001))
        outs.expect(arp_request(p1.mac, p1.ipv4, NH_IP))
        wait_for(lambda: n.cmd("/slicepath/slices")["alpha"]["held_pkts"] == 2, "two held")
        assert n.cmd("/slicepath/drops")["no_neighbor"] == 0
        wait_for(lambda: n.cmd("/slicepath/drops")["no_neighbor"] == 2, "the drops", timeout=5)
        waited = time.monotonic() - sent
        assert 0.9 <= waited < 3, f"dropped after {waited:.2f}s"
        time.sleep(0.3)
        slices = n.cmd("/slicepath/slices")["alpha"]
        assert (slices["rx_pkts"], slices["fwd_pkts"], slices["drop_pkts"]) == (2, 0, 2)
        assert (slices["held_pkts"], slices["released_pkts"]) == (2, 0)
        assert n.cmd("/slicepath/drops")["no_neighbor"] == 2
        assert ("p1", NH_IP) not in neighbor_table(n.cmd("/slicepath/neighbors"))
        # A late answer (the node still asks) releases nothing: they are gone.
        outs.send(arp_reply(NH_MAC, NH_IP, p1.mac, p1.ipv4))
        wait_for(lambda: ("p1", NH_IP) in neighbor_table(n.cmd("/slicepath/neighbors")),
                 "the learned neighbor")
        time.sleep(0.2)
        slices = n.cmd("/slicepath/slices")["alpha"]
        assert (slices["fwd_pkts"], slices["released_pkts"]) == (0, 0)
    finally:
        for end in (ins, outs):
            if end is not None:
                end.close()
        n.stop()


def test_forged_arp_changes_no_neighbor(tmp_path):
    """Any host on a link can send ARP: a static (config) neighbor is never changed by it,
    a learned one only by the answer to a request the node sent, and every ARP frame the
    node does not take is counted (arp_ignored); a learned neighbor's MAC change is counted."""
    static_ip, static_mac = "10.1.0.8", "02:ee:00:00:00:08"
    forged_mac, moved_mac = "02:66:66:66:66:66", "02:cc:00:00:00:99"
    n, p0, p1, ifaces = routed_node(tmp_path, "arpsec", f"sq{os.getpid() % 10000}",
                                    static=(static_ip, static_mac))

    def table():
        return neighbor_table(n.cmd("/slicepath/neighbors"), kinds=True)

    def ignored():
        return n.cmd("/slicepath/drops")["arp_ignored"]

    n.start()
    ins = outs = None
    try:
        ins, outs = TapEnd(ifaces[0]), TapEnd(ifaces[1])
        assert table()[("p1", static_ip)] == f"{static_mac} static"

        # A forged reply and a gratuitous request for the static neighbor: neither is taken.
        outs.send(arp_reply(forged_mac, static_ip, p1.mac, p1.ipv4))
        outs.send(arp_request(forged_mac, static_ip, static_ip))
        wait_for(lambda: ignored() == 2, "two arp_ignored")
        assert table()[("p1", static_ip)] == f"{static_mac} static"
        to_static = inner_udp("10.60.1.1", seq=1)
        ins.send(substrate(to_static, p0, 5001))
        outs.expect(encap_out(routed_inner(to_static), p1, 5001, static_ip, NH_PORT, static_mac))

        # An unsolicited reply about a host the node never asked for: not learned, counted.
        outs.send(arp_reply(forged_mac, NH_IP, p1.mac, p1.ipv4))
        wait_for(lambda: ignored() == 3, "the unsolicited reply counted")
        assert ("p1", NH_IP) not in table()

        # Asked for (a packet to it), answered: learned.
        ins.send(substrate(inner_udp("10.50.1.1", seq=2), p0, 5001))
        outs.expect(arp_request(p1.mac, p1.ipv4, NH_IP))
        outs.send(arp_reply(NH_MAC, NH_IP, p1.mac, p1.ipv4))
        wait_for(lambda: ("p1", NH_IP) in table(), "the learned neighbor")
        assert table()[("p1", NH_IP)] == f"{NH_MAC} learned"
        # A second answer to that one request is not taken.
        outs.send(arp_reply(forged_mac, NH_IP, p1.mac, p1.ipv4))
        # The claim that the neighbor moved makes the node ask it; until answered, nothing moves.
        outs.expect(arp_request(p1.mac, p1.ipv4, NH_IP))
        assert ignored() == 4
        assert table()[("p1", NH_IP)] == f"{NH_MAC} learned"
        assert n.cmd("/slicepath/arp") == {"learned": 1, "changed": 0, "nd_learned": 0, "nd_changed": 0}

        # The answer to that request is taken, and counted as a change.
        outs.send(arp_reply(moved_mac, NH_IP, p1.mac, p1.ipv4))
        wait_for(lambda: table()[("p1", NH_IP)] == f"{moved_mac} learned", "the moved neighbor")
        assert n.cmd("/slicepath/arp") == {"learned": 2, "changed": 1, "nd_learned": 0, "nd_changed": 0}
        after = inner_udp("10.50.1.3", seq=3)
        ins.send(substrate(after, p0, 5001))
        outs.expect(encap_out(routed_inner(after), p1, 5001, NH_IP, NH_PORT, moved_mac))
        stats = n.call("stats.get")
        assert stats["arp"] == {"learned": 2, "changed": 1, "nd_learned": 0, "nd_changed": 0}
        assert stats["drops"]["arp_ignored"] == 4
    finally:
        for end in (ins, outs):
            if end is not None:
                end.close()
        n.stop()


def test_ipv6_next_hop_is_solicited_and_linux_answers(tmp_path):
    """An IPv6 next hop is resolved by neighbor discovery under ARP's rules: the frame to it
    waits, the node solicits the next hop's solicited-node group from p1's IPv6 address
    (bytes checked), Linux on the far side answers with its advertisement, and the frame
    leaves over IPv6 to Linux's MAC; the entry is learned and counted nd_learned."""
    n, p0, p1, ifaces = routed_node(tmp_path, "nd", f"sp{os.getpid() % 10000}v")
    p1.ipv6, nh6 = "fd00:61::1", "fd00:61::2"
    n.slices["alpha"].route(1, "10.70.0.0/16", endpoint=1, queue=0,
                            next_hop=f"[{nh6}]:{NH_PORT}")

    n.start()
    ins = outs = None
    try:
        ins, outs = TapEnd(ifaces[0]), TapEnd(ifaces[1], ipv6=f"{nh6}/64")
        with open(f"/sys/class/net/{ifaces[1]}/address") as f:
            linux_mac = f.read().strip()
        first = inner_udp("10.70.1.1", seq=1)
        ins.send(substrate(first, p0, 5001))
        outs.expect(bytes(Ether(src=p1.mac, dst="33:33:ff:00:00:02")
                          / IPv6(src=p1.ipv6, dst="ff02::1:ff00:2", hlim=255)
                          / ICMPv6ND_NS(tgt=nh6) / ICMPv6NDOptSrcLLAddr(lladdr=p1.mac)))
        outs.expect(encap6_out(routed_inner(first), p1, 5001, nh6, NH_PORT, linux_mac))
        wait_for(lambda: n.cmd("/slicepath/arp")["nd_learned"] == 1, "the advertisement learned")
        table = neighbor_table(n.cmd("/slicepath/neighbors"), kinds=True)
        slices = n.cmd("/slicepath/slices")["alpha"]
    finally:
        for end in (ins, outs):
            if end is not None:
                end.close()
        n.stop()
    assert table[("p1", nh6)] == f"{linux_mac} learned", table
    assert (slices["held_pkts"], slices["released_pkts"], slices["drop_pkts"]) == (1, 1, 0), slices

