# SPDX-License-Identifier: BSD-3-Clause
"""The example slow path (control/examples/ipv4_slowpath.c), run as its slice's owner
through libslicectl: traceroute through the fast path works. A probe whose TTL expires at
the slice goes up its exception channel, comes back as an ICMP time exceeded from the
slice's router address, and the fast path routes that to the prober like any packet; a
probe with a TTL left goes on to the next hop."""

import subprocess

from scapy.layers.inet import ICMP, IP
from scapy.packet import Raw

from conftest import needs_root
from ctlnode import NH1, NH3
from spnode import SLOWPATH, as_user, assert_frames, inner_udp

pytestmark = needs_root

ROUTER = "10.255.0.1"   # the slice's own address, the source of its ICMP messages
PROBER = "192.0.2.1"


def time_exceeded(probe):
    """What the slow path injects for probe: RFC 792's header and first 8 bytes quoted."""
    quoted = bytes(probe)[:20 + 8]
    return bytes(IP(src=ROUTER, dst=PROBER, ttl=64, id=0, proto=1)
                 / ICMP(type=11, code=0) / Raw(quoted))


def test_traceroute_through_the_fast_path(ctl, users):
    ctl.start()
    owner = users.OWNERS[0]
    sc = ctl.ctld.slicectl
    sc("slice", "create", "alpha", "codeopt", "ipv4", "owner", owner, "filters", 16,
       "buffers", 1000)
    sc("endpoint", "reserve", "alpha", "port", "p0", "udp", 5001, user=owner)
    sc("endpoint", "reserve", "alpha", "port", "p1", "udp", 5001, user=owner)
    sc("queue", "bind", "alpha", 0, "endpoint", 1, user=owner)
    route = ["endpoint", 1, "queue", 0, "nexthop"]
    sc("filter", "add", "alpha", "pos", 0, "dst", "192.168.0.0/16", *route,
       f"{NH1[0]}:{NH1[1]}", user=owner)
    sc("filter", "add", "alpha", "pos", 1, "dst", "192.0.2.0/24", *route, f"{NH3[0]}:{NH3[1]}",
       user=owner)

    slow = subprocess.Popen([str(SLOWPATH), "-s", str(ctl.ctld.socket), "-a", ROUTER, "alpha"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            **as_user(owner))
    try:
        assert "waiting for exceptions" in slow.stdout.readline()
        ctl.wait(lambda: "slice alpha: slow path (pid" in ctl.node.log(),
                 "slicepathd did not accept the slow path")
        probes = [inner_udp("192.168.1.5", src=PROBER, ttl=ttl, sport=40000,
                            dport=33434 + ttl, seq=ttl) for ttl in (1, 2)]
        ctl.send("alpha", 5001, *probes)
        ctl.wait(lambda: ctl.ctld.call("stats.get", slice="alpha")["slice"]["fwd_pkts"] == 2,
                 "the time exceeded message was not forwarded")
    finally:
        slow.terminate()
        out = slow.communicate(timeout=10)[0]
    print(out)
    assert "1 exceptions, 1 answered with time exceeded, 0 left" in out
    st = ctl.ctld.call("stats.get", slice="alpha")["slice"]
    assert (st["exception_pkts"], st["to_slow_path_pkts"], st["injected_pkts"]) == (1, 1, 1)
    assert st["reasons"] == {"ttl_expired": 1}
    ctl.stop()
    assert_frames(ctl.node.output(ctl.p1),
                  [ctl.expected(time_exceeded(probes[0]), 5001, NH3),
                   ctl.expected(probes[1], 5001, NH1)],
                  "p1 output", ordered=False)
