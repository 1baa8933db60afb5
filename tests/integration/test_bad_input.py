# SPDX-License-Identifier: BSD-3-Clause
"""Bad input: the daemon stays up, forwards the good packets around it and
counts every bad one under its reason."""

from scapy.layers.inet import IP, TCP, UDP, IPOption_NOP, IPOption_RR
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from conftest import needs_root
from spnode import (DROP_REASONS, PEER_IP, PEER_MAC, assert_frames, inner_udp, substrate,
                    with_bad_inner_checksum, with_bad_ip_checksum)

pytestmark = needs_root


def test_bad_substrate_frames_are_counted(std):
    n, p0 = std.node, std.p0
    good = [inner_udp("192.168.1.9", seq=i) for i in range(3)]
    good_frames = [std.to_slice(std.alpha, g) for g in good]
    ok = good_frames[0]

    bad = {
        "no_endpoint": [substrate(inner_udp("192.168.1.9"), p0, 6000),
                        substrate(inner_udp("192.168.1.9"), p0, 5001 + 1000)],
        "not_ipv4": [bytes(Ether(src=PEER_MAC, dst=p0.mac) / IPv6(dst="fd00::1") / UDP(dport=5001)
                           / Raw(b"x" * 20)),
                     bytes(Ether(src=PEER_MAC, dst=p0.mac, type=0x88B5) / Raw(b"y" * 46))],
        "other_mac": [std.to_slice(std.alpha, good[0], dst_mac="02:00:00:00:99:99")],
        "not_local": [std.to_slice(std.alpha, good[0], dst_ip="10.0.0.99"),
                      # another port's address, received on p0
                      std.to_slice(std.alpha, good[0], dst_ip=std.p1.ipv4)],
        "not_udp": [bytes(Ether(src=PEER_MAC, dst=p0.mac) / IP(src=PEER_IP, dst=p0.ipv4)
                          / TCP(sport=1, dport=5001) / Raw(b"z" * 20))],
        "fragment": [bytes(Ether(src=PEER_MAC, dst=p0.mac)
                           / IP(src=PEER_IP, dst=p0.ipv4, flags="MF", id=99)
                           / UDP(sport=4000, dport=5001) / Raw(bytes(good[0])))],
        "bad_ip_header": [with_bad_ip_checksum(ok), with_bad_ip_checksum(good_frames[1])],
        "truncated": [
            ok[:10],                  # not even an Ethernet header
            ok[:20],                  # Ethernet + 6 bytes of IPv4 header
            ok[:-10],                 # IPv4 total length beyond the frame
            ok[:14 + 20 + 4],         # UDP header cut
        ],
    }
    frames = []
    # Good frames first, in the middle and last: bad input must not disturb them.
    frames.append(good_frames[0])
    for reason in bad:
        frames.extend(bad[reason])
        if reason == "not_local":
            frames.append(good_frames[1])
    frames.append(good_frames[2])
    n.receive(p0, frames)

    c = n.run()

    expected = [std.out(std.alpha, g, std.p1, std.NH1) for g in good]
    assert_frames(n.output(std.p1), expected, "p1 output")
    assert n.output(std.p2) == []
    assert n.output(p0) == []

    drops = c["drops"]
    want = {r: len(v) for r, v in bad.items()}
    for reason in DROP_REASONS:
        if reason in ("no_slow_path", "slow_path_full"):
            continue
        assert drops[reason] == want.get(reason, 0), f"{reason}: {drops}"
    assert c["ports"]["p0"]["rx_pkts"] == len(frames)
    assert c["slices"]["alpha"]["rx_pkts"] == 3
    assert c["slices"]["alpha"]["fwd_pkts"] == 3
    assert c["info"]["state"] == "running"


def test_bad_inner_packets_are_counted_per_slice(std):
    n = std.node
    a, b = std.alpha, std.beta
    good = inner_udp("192.168.2.20", seq=1)
    cases = {
        # reason: (slice, inner packets, verdict)
        "bad_checksum": (a, [with_bad_inner_checksum(inner_udp("192.168.1.1", seq=2))], "drop"),
        "ttl_expired": (a, [inner_udp("192.168.1.1", ttl=1, seq=3),
                            inner_udp("192.168.2.1", ttl=1, seq=4),
                            inner_udp("192.168.1.1", ttl=0, seq=5)], "exception"),
        "options": (b, [bytes(IP(src="192.0.2.1", dst="172.16.0.1", ttl=30,
                                 options=[IPOption_RR(routers=["0.0.0.0"] * 2), IPOption_NOP()])
                              / UDP(sport=1, dport=2) / Raw(b"o" * 20))], "exception"),
        "miss": (b, [inner_udp("10.9.9.9", seq=6), inner_udp("192.168.2.1", seq=7)], "exception"),
    }
    frames = [std.to_slice(a, good)]
    for s, inners, _v in cases.values():
        frames.extend(std.to_slice(s, i) for i in inners)
    frames.append(std.to_slice(a, good))
    n.receive(std.p0, frames)

    c = n.run()

    # Only the two good packets come out (exceptions have no slow path yet: dropped).
    assert_frames(n.output(std.p2), [std.out(a, good, std.p2, std.NH2)] * 2, "p2 output")
    assert n.output(std.p1) == []

    for reason, (s, inners, _v) in cases.items():
        assert c["drops"][reason] == len(inners), f"{reason}: {c['drops']}"
        assert c["slice"][s.name]["reasons"][reason] == len(inners), \
            f"slice {s.name} {reason}: {c['slice'][s.name]['reasons']}"
    for s in (a, b):
        mine = [(inners, v) for (t, inners, v) in cases.values() if t is s]
        exc = sum(len(i) for i, v in mine if v == "exception")
        drop = sum(len(i) for i, v in mine if v == "drop")
        fwd = 2 if s is a else 0
        sl = c["slices"][s.name]
        assert (sl["rx_pkts"], sl["fwd_pkts"], sl["exception_pkts"], sl["drop_pkts"]) == \
            (fwd + exc + drop, fwd, exc, drop), f"slice {s.name}: {sl}"
    # The other slice's reasons stay clean: beta saw no bad checksum, alpha no miss.
    assert c["slice"]["beta"]["reasons"]["bad_checksum"] == 0
    assert c["slice"]["alpha"]["reasons"]["miss"] == 0
