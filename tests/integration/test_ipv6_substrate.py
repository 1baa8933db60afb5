# SPDX-License-Identifier: BSD-3-Clause
"""The substrate over IPv6: a slice's filter with an IPv6 next hop sends over IPv6
whatever family the packet came in over (outer Ethernet/IPv6/UDP from the output port's
IPv6 address, with the UDP checksum IPv6 requires); a port without an IPv6 address
cannot send to one (no_port_ipv6)."""

from conftest import needs_root
from spnode import (assert_frames, encap6_out, inner_udp, routed_inner)

pytestmark = needs_root

P1_IP6 = "2001:db8:1::1"
NH6 = ("2001:db8:1::2", 7006, "02:bb:00:00:01:62")


def test_ipv4_in_ipv6_out(std):
    """Frames that came in over IPv4 leave over IPv6 when their filter's next hop is IPv6,
    byte for byte; the IPv4 route beside it is untouched; an IPv6 next hop from a port
    without an IPv6 address is counted no_port_ipv6, in the node's drops and the slice's."""
    n, a, p1 = std.node, std.alpha, std.p1
    p1.ipv6 = P1_IP6
    n.neighbor(p1, NH6[0], NH6[2])
    a.route(2, "10.60.0.0/16", endpoint=1, queue=0, next_hop=f"[{NH6[0]}]:{NH6[1]}")
    a.route(3, "10.61.0.0/16", endpoint=2, queue=1, next_hop="[2001:db8:2::2]:7007")
    v6 = [inner_udp("10.60.1.1", seq=1),
          inner_udp("10.60.2.2", seq=2, payload=bytes(range(255)) * 5 + b"odd")]
    v4 = inner_udp("192.168.1.7", seq=3)
    n.receive(std.p0, [std.to_slice(a, i) for i in v6]
              + [std.to_slice(a, v4), std.to_slice(a, inner_udp("10.61.0.1", seq=4))])

    c = n.run()

    assert_frames(n.output(p1), [encap6_out(routed_inner(i), p1, 5001, *NH6) for i in v6]
                  + [std.out(a, v4, p1, std.NH1)], "p1 output")
    assert n.output(std.p2) == []
    assert c["drops"]["no_port_ipv6"] == 1, c["drops"]
    assert c["slice"]["alpha"]["reasons"]["no_port_ipv6"] == 1
    assert c["slices"]["alpha"]["fwd_pkts"] == 3
