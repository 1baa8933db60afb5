# SPDX-License-Identifier: BSD-3-Clause
"""The dpi code option through the control API: the owner loads patterns with `slicectl
codeopt load`, and filters on the content class (the key's last byte) steer packets to
different next hops, on the wire; a pattern Hyperscan cannot compile is refused with its
message and the line, and the patterns in force stay."""

import pytest
from scapy.layers.inet import UDP
from scapy.layers.l2 import Ether

from conftest import needs_root
from ctlnode import NH1, NH3
from spnode import inner_udp, readable_files, routed_inner

pytestmark = needs_root

PATTERNS = "# steer by content\n1:/attack/i\n2:/^GET \\//\n"
ANY = "0" * 26


@pytest.fixture
def files():
    with readable_files({"good.txt": PATTERNS.encode(), "bad.txt": b"1:/ok/\n2:/a(b/\n",
                         "flag.txt": b"1:/ok/x\n"}) as d:
        yield d


def test_filters_steer_by_content(ctl, users, files):
    owner = users.OWNERS[0]
    ctl.start()
    sc = ctl.ctld.slicectl
    sc("slice", "create", "deep", "codeopt", "dpi", "owner", owner, "filters", 16,
       "buffers", 1000)
    sc("endpoint", "reserve", "deep", "port", "p0", "udp", 5001, user=owner)
    sc("endpoint", "reserve", "deep", "port", "p1", "udp", 5001, user=owner)
    sc("queue", "bind", "deep", 0, "endpoint", 1, user=owner)
    sc("queue", "bind", "deep", 1, "endpoint", 1, user=owner)
    # Class 1 (attacks) to NH3 on queue 1; anything else that matched nothing to NH1.
    for pos, cls, queue, nh in ((0, "01", 1, NH3), (1, "ff", 0, NH1)):
        sc("filter", "add", "deep", "pos", pos, "key", ANY + cls, "mask", ANY + "ff",
           "endpoint", 1, "queue", queue, "nexthop", f"{nh[0]}:{nh[1]}", user=owner)
    sc("codeopt", "load", "deep", files / "good.txt", user=owner)
    attack = inner_udp("192.168.1.1", payload=b"an ATTACK in the payload", seq=1)
    plain = inner_udp("192.168.1.2", payload=b"nothing to see", seq=2)
    get = inner_udp("192.168.1.3", payload=b"GET /index.html", seq=3)
    ctl.send("deep", 5001, attack, plain, get)
    st = ctl.ctld.call("stats.get", slice="deep")
    # GET is class 2, which no filter names: a miss.
    assert st["slice"]["fwd_pkts"] == 2 and st["slice"]["reasons"] == {
        "miss": 1, "no_slow_path": 1}, st["slice"]
    assert {q: st["queues"][q]["sent_pkts"] for q in ("0", "1")} == {"0": 1, "1": 1}

    # Refusals: Hyperscan's message with the line; an unknown flag; the patterns stay.
    r = sc("codeopt", "load", "deep", files / "bad.txt", user=owner, check=False)
    assert r.returncode != 0 and "line 2 (/a(b/): Hyperscan cannot compile it" in r.stderr
    r = sc("codeopt", "load", "deep", files / "flag.txt", user=owner, check=False)
    assert "line 1: unknown flag 'x'" in r.stderr, r.stderr
    ctl.send("deep", 5001, attack)
    ctl.stop()
    got = [(Ether(f)[UDP].dport, bytes(Ether(f)[UDP].payload))
           for f in ctl.node.output(ctl.p1)]
    assert sorted(got) == sorted([(NH3[1], routed_inner(attack)), (NH1[1], routed_inner(plain)),
                                  (NH3[1], routed_inner(attack))])
