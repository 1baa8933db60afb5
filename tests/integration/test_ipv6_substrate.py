# SPDX-License-Identifier: BSD-3-Clause
"""The substrate over IPv6: a slice's endpoints take UDP to their port's IPv6 address as
to its IPv4 one, with IPv6's checks (the UDP checksum it requires, lengths; extension
headers and fragments under reasons of their own); a filter with an IPv6 next hop sends
over IPv6 whatever family the packet came in over (outer Ethernet/IPv6/UDP from the output
port's IPv6 address), one with an IPv4 next hop over IPv4; a port without an IPv6 address
cannot send to one (no_port_ipv6)."""

from scapy.layers.inet import UDP
from scapy.layers.inet6 import IPv6, IPv6ExtHdrFragment, IPv6ExtHdrHopByHop
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from conftest import needs_root
from spnode import PEER_MAC, assert_frames, encap6_out, inner_udp, routed_inner

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


P0_IP6, PEER6 = "2001:db8::1", "2001:db8::9"


def substrate6(inner, port, udp_dport, *, ext=None, cksum=None, dst=None):
    """A frame carrying inner to a node endpoint (port, udp_dport) over IPv6."""
    ip = IPv6(src=PEER6, dst=dst or port.ipv6)
    udp = UDP(sport=4000, dport=udp_dport, **({"chksum": cksum} if cksum is not None else {}))
    return bytes(Ether(src=PEER_MAC, dst=port.mac) / (ip / ext if ext is not None else ip)
                 / udp / Raw(bytes(inner)))


def test_ipv6_in_either_family_out(std):
    """Frames in over IPv6 reach the slice's endpoint of their UDP port on p0 and leave by
    their filters: over IPv6 to an IPv6 next hop, over IPv4 to an IPv4 one, byte for byte;
    a wrong or zero UDP checksum, an extension header, a fragment, a port number without
    an endpoint and another address are each counted under their reason."""
    n, a, p0, p1 = std.node, std.alpha, std.p0, std.p1
    p0.ipv6, p1.ipv6 = P0_IP6, P1_IP6
    n.neighbor(p1, NH6[0], NH6[2])
    a.route(2, "10.60.0.0/16", endpoint=1, queue=0, next_hop=f"[{NH6[0]}]:{NH6[1]}")
    to_v6, to_v4 = inner_udp("10.60.3.3", seq=5), inner_udp("192.168.1.8", seq=6)
    bad = bytearray(substrate6(inner_udp("10.60.0.1"), p0, 5001))
    bad[-1] ^= 0x01
    n.receive(p0, [
        substrate6(to_v6, p0, 5001), substrate6(to_v4, p0, 5001),
        bytes(bad),                                                        # bad_checksum
        substrate6(inner_udp("10.60.0.2"), p0, 5001, cksum=0),             # bad_checksum
        substrate6(inner_udp("10.60.0.3"), p0, 5001, ext=IPv6ExtHdrHopByHop()),  # ipv6_ext
        substrate6(inner_udp("10.60.0.4"), p0, 5001, ext=IPv6ExtHdrFragment()),  # fragment
        substrate6(inner_udp("10.60.0.5"), p0, 5999),                      # no_endpoint
        substrate6(inner_udp("10.60.0.6"), p0, 5001, dst="2001:db8::77"),  # not_local
    ])

    c = n.run()

    assert_frames(n.output(p1), [encap6_out(routed_inner(to_v6), p1, 5001, *NH6),
                                 std.out(a, to_v4, p1, std.NH1)], "p1 output")
    drops = c["drops"]
    assert (drops["bad_checksum"], drops["ipv6_ext"], drops["fragment"], drops["no_endpoint"],
            drops["not_local"]) == (2, 1, 1, 1, 1), drops
    assert (c["slices"]["alpha"]["rx_pkts"], c["slices"]["alpha"]["fwd_pkts"]) == (2, 2)

