# SPDX-License-Identifier: BSD-3-Clause
"""The node's own addresses: ARP replies, echo replies, and ARP requests for
next hops it cannot resolve."""

import time

from scapy.layers.inet import ICMP, IP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from conftest import needs_root
from spnode import (PEER_IP, PEER_MAC, arp_reply, arp_request, assert_frames, echo_reply_for,
                    echo_request, inner_udp, neighbor_table)

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
