# SPDX-License-Identifier: BSD-3-Clause
"""The node's own addresses: ARP replies, echo replies, and ARP requests for
next hops it cannot resolve; on a port with an IPv6 address, neighbor advertisements
and echo replies."""

import os
import socket
import subprocess
import time
from socket import AF_INET6, inet_ntop, inet_pton

from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import (ICMPv6EchoReply, ICMPv6EchoRequest, ICMPv6ND_NA, ICMPv6ND_NS,
                                ICMPv6ND_RA, ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr, IPv6)
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils6 import in6_getnsma, in6_getnsmac

from conftest import needs_root
from spnode import (PEER_IP, PEER_MAC, REPO, Standard, arp_reply, arp_request, assert_frames,
                    echo_reply_for, echo_request, inner_udp, neighbor_table)

pytestmark = needs_root


def test_arp_request_for_node_is_answered(std):
    n, p0 = std.node, std.p0
    n.receive(p0, [
        arp_request(PEER_MAC, PEER_IP, p0.ipv4),                       # ours: answered
        arp_request(PEER_MAC, PEER_IP, "10.0.0.77"),                   # someone else's
        arp_request(PEER_MAC, PEER_IP, std.p1.ipv4),                   # another port's address
        arp_request(PEER_MAC, PEER_IP, p0.ipv4, dst_mac=p0.mac),       # unicast request: answered
    ])
    c = n.run()
    expected = arp_reply(p0.mac, p0.ipv4, PEER_MAC, PEER_IP)
    assert_frames(n.output(p0), [expected, expected], "p0 output")
    assert n.output(std.p1) == [] and n.output(std.p2) == []
    assert c["drops"]["arp_ignored"] == 2, c["drops"]
    assert c["ports"]["p0"]["tx_pkts"] == 2


def test_ping_of_node_is_answered(std):
    n, p0 = std.node, std.p0
    req1 = echo_request(p0, ident=0x1234, seq=1)
    req2 = echo_request(p0, ident=0x4321, seq=77, payload=bytes(range(256)) * 4, ip_id=4242)
    not_echo = bytes(Ether(src=PEER_MAC, dst=p0.mac) / IP(src=PEER_IP, dst=p0.ipv4)
                     / ICMP(type=13, id=1, seq=1) / Raw(b"\0" * 12))     # timestamp request
    other_port = echo_request(std.p1, src_mac=PEER_MAC)
    other_port = bytes(Ether(src=PEER_MAC, dst=p0.mac) / Ether(other_port).payload)
    n.receive(p0, [req1, not_echo, req2, other_port])

    c = n.run()

    assert_frames(n.output(p0), [echo_reply_for(req1, p0), echo_reply_for(req2, p0)], "p0 output")
    assert c["drops"]["icmp_ignored"] == 1, c["drops"]
    assert c["drops"]["not_local"] == 1, c["drops"]


def test_ping_with_bad_checksum_is_counted_not_answered(std):
    """An echo request whose ICMP checksum is wrong gets no reply (it would carry the wrong
    checksum back) and is counted under bad_checksum, beside a good one that is answered."""
    n, p0 = std.node, std.p0
    good = echo_request(p0, seq=1)
    bad = bytearray(echo_request(p0, seq=2))
    bad[-1] ^= 0x01  # the last payload byte: IPv4 header intact, ICMP sum wrong
    n.receive(p0, [bad, good])

    c = n.run()

    assert_frames(n.output(p0), [echo_reply_for(good, p0)], "p0 output")
    assert c["drops"]["bad_checksum"] == 1, c["drops"]
    assert c["ports"]["p0"]["rx_pkts"] == 2 and c["ports"]["p0"]["tx_pkts"] == 1


def test_unresolved_next_hop_sends_arp_request(std):
    n, a = std.node, std.alpha
    nh_ip = "10.1.0.9"
    a.route(2, "10.50.0.0/16", endpoint=1, queue=0, next_hop=f"{nh_ip}:7009")
    inners = [inner_udp("10.50.1.1", seq=i) for i in range(3)]
    resolved = inner_udp("192.168.1.1", seq=9)
    n.receive(std.p0, [std.to_slice(a, i) for i in inners] + [std.to_slice(a, resolved)])

    n.start()
    try:
        n.wait_rx()
        # The ARP request comes from the management thread: give it a moment. Nobody
        # answers: the frames to the unresolved next hop wait a second, then are dropped.
        deadline = time.monotonic() + 5
        while ((n.cmd("/slicepath/ports")["p1"]["tx_pkts"] < 2
                or n.cmd("/slicepath/drops")["no_neighbor"] < 3) and time.monotonic() < deadline):
            time.sleep(0.05)
        c = n.counters()
    finally:
        n.stop()
        n.show_log()

    assert c["drops"]["no_neighbor"] == 3, c["drops"]
    assert c["slice"]["alpha"]["reasons"]["no_neighbor"] == 3
    # Held first (none released), then dropped: one drop each.
    assert (c["slices"]["alpha"]["held_pkts"], c["slices"]["alpha"]["released_pkts"]) == (3, 0)
    assert c["slices"]["alpha"]["drop_pkts"] == 3
    assert ("p1", nh_ip) not in neighbor_table(c["neighbors"])
    out = n.output(std.p1)
    forwarded = std.out(a, resolved, std.p1, std.NH1)
    request = arp_request(std.p1.mac, std.p1.ipv4, nh_ip)
    assert forwarded in out, "the packet to a resolved next hop is missing from p1"
    arps = [f for f in out if f != forwarded]
    assert len(arps) >= 1, "no ARP request for the unresolved next hop on p1"
    assert_frames(arps, [request] * len(arps), "ARP requests on p1")
    assert n.output(std.p2) == []


# ------------------------------------------------------------------ the node's own IPv6

NODE6 = "2001:db8:1::1"
PEER6 = "2001:db8:1::9"
ALL_NODES_MAC = "33:33:00:00:00:01"


def solicited_node(ip6):
    """The address's solicited-node group and that group's MAC."""
    group = inet_ntop(AF_INET6, in6_getnsma(inet_pton(AF_INET6, ip6)))
    return group, in6_getnsmac(inet_pton(AF_INET6, group))


def ns(dst_mac, dst, target=NODE6, src=PEER6, hlim=255, lladdr=True):
    """A neighbor solicitation from the peer."""
    f = (Ether(src=PEER_MAC, dst=dst_mac) / IPv6(src=src, dst=dst, hlim=hlim)
         / ICMPv6ND_NS(tgt=target))
    return bytes(f / ICMPv6NDOptSrcLLAddr(lladdr=PEER_MAC) if lladdr else f)


def na(p, dst_mac, dst, solicited):
    """The node's advertisement of its address on port p."""
    return bytes(Ether(src=p.mac, dst=dst_mac) / IPv6(src=NODE6, dst=dst, hlim=255)
                 / ICMPv6ND_NA(R=0, S=int(solicited), O=1, tgt=NODE6)
                 / ICMPv6NDOptDstLLAddr(lladdr=p.mac))


def test_neighbor_solicitation_for_node_ipv6_is_answered(std):
    """A port's "ipv6" address is advertised to whoever solicits it: to the solicited-node
    group or to the address, and to all nodes for a sender without an address yet
    (duplicate address detection); the rest of neighbor discovery is counted, not taken."""
    n, p0 = std.node, std.p0
    p0.ipv6 = NODE6
    group, group_mac = solicited_node(NODE6)
    bad_sum = bytearray(ns(group_mac, group))
    bad_sum[-1] ^= 0x01  # the option's last byte: the ICMPv6 sum wrong
    n.receive(p0, [
        ns(group_mac, group),                                   # answered
        ns(p0.mac, NODE6, lladdr=False),                        # unicast: answered
        ns(group_mac, group, src="::", lladdr=False),           # duplicate address detection
        ns(group_mac, group, target="2001:db8:1::2"),           # another address: nd_ignored
        ns(group_mac, group, hlim=64),                          # passed on by a router: nd_ignored
        bytes(bad_sum),                                         # bad_checksum
        bytes(Ether(src=PEER_MAC, dst=ALL_NODES_MAC) / IPv6(src="fe80::9", dst="ff02::1", hlim=255)
              / ICMPv6ND_RA()),                                 # ra_ignored
        bytes(Ether(src=PEER_MAC, dst=p0.mac) / IPv6(src=PEER6, dst=NODE6, hlim=255)
              / ICMPv6ND_NA(tgt=PEER6)),                        # nd_ignored
        ns("33:33:ff:00:00:02", "ff02::1:ff00:2", target="2001:db8:1::2"),  # other_mac
    ])

    c = n.run()

    assert_frames(n.output(p0), [na(p0, PEER_MAC, PEER6, True), na(p0, PEER_MAC, PEER6, True),
                                 na(p0, ALL_NODES_MAC, "ff02::1", False)], "p0 output")
    drops = c["drops"]
    assert (drops["nd_ignored"], drops["ra_ignored"], drops["bad_checksum"],
            drops["other_mac"]) == (3, 1, 1, 1), drops
    assert c["ports"]["p0"]["rx_pkts"] == 9 and c["ports"]["p0"]["tx_pkts"] == 3


def test_static_ipv6_neighbor_not_overwritten(std):
    """A static IPv6 neighbor from the config is listed as such, and no advertisement from
    the wire changes it: neither one claiming to answer the node (it asked for nothing) nor
    one to all nodes saying the neighbor moved; an advertisement of a neighbor the node
    never asked for is not learned either. Each is counted nd_ignored, none learned."""
    n, p0 = std.node, std.p0
    p0.ipv6 = NODE6
    static_mac = "02:00:00:00:aa:09"
    n.neighbor(p0, PEER6, static_mac)

    def advert(dst, dst_mac, target, solicited):
        return bytes(Ether(src=PEER_MAC, dst=dst_mac) / IPv6(src=target, dst=dst, hlim=255)
                     / ICMPv6ND_NA(R=0, S=int(solicited), O=1, tgt=target)
                     / ICMPv6NDOptDstLLAddr(lladdr=PEER_MAC))

    n.receive(p0, [advert(NODE6, p0.mac, PEER6, True),
                   advert("ff02::1", ALL_NODES_MAC, PEER6, False),
                   advert(NODE6, p0.mac, "2001:db8:1::7", True)])
    n.start()
    try:
        n.wait_rx()
        # The management thread judges them: wait until it has counted all three.
        deadline = time.monotonic() + 5
        while n.cmd("/slicepath/drops")["nd_ignored"] < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        c = n.counters()
        arp = n.cmd("/slicepath/arp")
        shown = subprocess.run(["/usr/bin/python3", str(REPO / "tools" / "sp_telemetry.py"),
                                "-p", n.prefix, "neighbors"], capture_output=True, text=True,
                               timeout=30)
    finally:
        n.stop()
        n.show_log()

    assert c["drops"]["nd_ignored"] == 3, c["drops"]
    assert (arp["nd_learned"], arp["nd_changed"], arp["learned"]) == (0, 0, 0), arp
    table = neighbor_table(c["neighbors"], kinds=True)
    assert table[("p0", PEER6)] == f"{static_mac} static", table
    assert ("p0", "2001:db8:1::7") not in table, table
    assert n.output(p0) == []
    # What an operator reads: the same entry, the address as written.
    rows = [line.lower().split() for line in shown.stdout.splitlines()]
    assert rows[0] == ["port", "address", "mac", "kind"], shown.stdout + shown.stderr
    assert ["p0", PEER6, static_mac, "static"] in rows, shown.stdout


def test_ping6_of_node_is_answered(std):
    """An echo request to a port's IPv6 address is answered byte for byte; one with a wrong
    ICMPv6 checksum, to another address, to all nodes, or a datagram to a UDP port without
    an endpoint, is counted; a port without an IPv6 address counts IPv6 as
    not_ipv4."""
    n, p0, p1 = std.node, std.p0, std.p1
    p0.ipv6 = NODE6

    def request(dst=NODE6, dst_mac=p0.mac, seq=1, data=b"ping6"):
        return bytes(Ether(src=PEER_MAC, dst=dst_mac) / IPv6(src=PEER6, dst=dst)
                     / ICMPv6EchoRequest(id=0x1234, seq=seq, data=data))

    req1, req2 = request(), request(seq=2, data=bytes(range(256)) * 4)
    bad = bytearray(request(seq=3))
    bad[-1] ^= 0x01
    n.receive(p0, [
        req1, bytes(bad), req2,
        request(dst="2001:db8:1::2"),                           # not_local
        request(dst="ff02::1", dst_mac=ALL_NODES_MAC),          # icmp_ignored
        bytes(Ether(src=PEER_MAC, dst=p0.mac) / IPv6(src=PEER6, dst=NODE6)
              / UDP(sport=4000, dport=5999) / Raw(b"x" * 20)),  # no_endpoint
        bytes(Ether(src=PEER_MAC, dst=p0.mac) / IPv6(src=PEER6, dst=NODE6)
              / TCP(sport=4000, dport=22)),                     # not_udp
    ])
    n.receive(p1, [request(dst_mac=p1.mac)])                     # not_ipv4

    c = n.run()

    def reply(req):
        r = IPv6(bytes(Ether(req).payload))
        return bytes(Ether(src=p0.mac, dst=PEER_MAC) / IPv6(src=NODE6, dst=PEER6, hlim=64)
                     / ICMPv6EchoReply(id=r[ICMPv6EchoRequest].id, seq=r[ICMPv6EchoRequest].seq,
                                       data=r[ICMPv6EchoRequest].data))

    assert_frames(n.output(p0), [reply(req1), reply(req2)], "p0 output")
    assert n.output(p1) == []
    drops = c["drops"]
    assert (drops["bad_checksum"], drops["not_local"], drops["icmp_ignored"],
            drops["no_endpoint"], drops["not_udp"], drops["not_ipv4"]) == (1, 1, 1, 1, 1, 1), drops


def test_linux_resolves_and_pings_the_node_ipv6(tmp_path):
    """The kernel on the far side of a tap port finds the node's IPv6 address by its own
    neighbor discovery (the solicitation to the solicited-node group, the advertisement
    back) and gets echo replies from it: the node speaks the real stack's dialect."""
    tag = os.getpid() % 100000
    ifname = f"sp6{tag}"
    std = Standard(tmp_path, "nd6")
    n, p0 = std.node, std.p0
    p0.device = f"net_tap{p0.index},iface={ifname}"
    p0.ipv6 = "fd00:6::1"
    n.start()
    try:
        subprocess.run(["ip", "link", "set", "dev", ifname, "up"], check=True)
        subprocess.run(["ip", "-6", "addr", "add", "fd00:6::2/64", "dev", ifname, "nodad"],
                       check=True)
        replies = []
        with socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6) as s:
            s.settimeout(3)
            for seq in range(3):
                # The kernel writes the checksum of what a raw ICMPv6 socket sends.
                s.sendto(bytes(ICMPv6EchoRequest(id=0x6006, seq=seq, data=b"linux", cksum=0)),
                         ("fd00:6::1", 0))
                while True:  # the kernel hands a raw socket every ICMPv6 message
                    data, addr = s.recvfrom(2048)
                    if data[0] == 129:
                        replies.append((addr[0], ICMPv6EchoReply(data).seq))
                        break
        neigh = subprocess.run(["ip", "-6", "neigh", "show", "fd00:6::1", "dev", ifname],
                               capture_output=True, text=True, check=True).stdout
        drops = n.call("stats.get")["drops"]
    finally:
        n.stop()
    assert replies == [("fd00:6::1", 0), ("fd00:6::1", 1), ("fd00:6::1", 2)], replies
    assert f"lladdr {p0.mac}" in neigh, neigh
    assert drops.get("bad_checksum", 0) == 0 and drops.get("icmp_ignored", 0) == 0, drops
