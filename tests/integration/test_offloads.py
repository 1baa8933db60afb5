# SPDX-License-Identifier: BSD-3-Clause
"""Checksum offloads (docs/config.md, "ports"): where a port's device has them, the node has
it check the outer IPv4 checksum of what arrives (decap takes its verdict from the mbuf) and
write that of what leaves (encap leaves the field zero). net_tap emulates both, so the ports
here are taps, their kernel sides the wire the test writes and reads; the frames out must be
byte for byte those the software path writes (test_forwarding's, on net_pcap)."""

import os

from scapy.layers.inet import UDP

from conftest import needs_root
from spnode import Standard, inner_udp
from test_host_path import Wire

pytestmark = needs_root


def test_tap_ports_check_and_write_outer_checksums(tmp_path):
    tag = os.getpid() % 100000
    std = Standard(tmp_path, "offload")
    n, a = std.node, std.alpha
    std.p0.device = f"net_tap{std.p0.index},iface=spi{tag}"
    std.p1.device = f"net_tap{std.p1.index},iface=spo{tag}"
    inners = [inner_udp("192.168.1.5", seq=i, payload=bytes([i]) * (i * 40)) for i in range(8)]
    bad = bytearray(bytes(std.to_slice(a, inner_udp("192.168.1.9"))))
    bad[24] ^= 0x01  # the outer header's checksum
    n.start()
    wire_in, wire_out = Wire(f"spi{tag}"), Wire(f"spo{tag}")
    try:
        for i in inners:
            wire_in.send(std.to_slice(a, i))
        wire_in.send(bytes(bad))
        got = wire_out.frames(lambda e: UDP in e and e[UDP].dport == std.NH1[1], len(inners))
        drops = n.call("stats.get")["drops"]
        fwd = n.call("stats.get", slice="alpha")["slice"]["fwd_pkts"]
    finally:
        wire_in.close()
        wire_out.close()
        n.stop()
    assert [bytes(e) for e in got] == [bytes(std.out(a, i, std.p1, std.NH1)) for i in inners], \
        [e.summary() for e in got]
    assert fwd == len(inners)
    assert drops.get("bad_ip_header") == 1, drops
    log = n.log()
    for port, dev in (("p0", "net_tap0"), ("p1", "net_tap1")):
        line = next(x for x in log.splitlines() if f"{port}: device {dev}" in x)
        assert "IPv4 checksums by the device on rx, by the device on tx" in line, line
    line = next(x for x in log.splitlines() if "p2: device net_pcap2" in x)
    assert "IPv4 checksums in software on rx, in software on tx" in line, line
