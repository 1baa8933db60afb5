# SPDX-License-Identifier: BSD-3-Clause
"""A slice's whole life through slicectl and slicectld (docs/api.md, man slicectl): created
by an operator, its endpoints, queue, filters and memory set by its owner, every change
checked on the wire, then taken apart and deleted."""


from conftest import needs_root
from ctlnode import NH1, NH3
from spnode import assert_frames, inner_udp, substrate

pytestmark = needs_root

PORT = 5001


def test_slice_lifecycle_through_slicectl(ctl, users):
    ctl.p1.ipv6 = "2001:db8:1::1"
    ctl.start()
    sc, owner = ctl.ctld.slicectl, users.OWNERS[0]
    want = []

    out = sc("slice", "create", "alpha", "codeopt", "ipv4", "owner", owner, "filters", 64,
             "queues", 4, "bandwidth", "50M", "inbound", "300M")
    assert "slice alpha created: id 1, NPE 0" in out.stdout
    assert "endpoint 0: UDP port 5001 on p0" in sc("endpoint", "reserve", "alpha", "port", "p0",
                                                   "udp", PORT, "inbound", "200M",
                                                   user=owner).stdout
    assert "endpoint 1: UDP port 5001 on p1" in sc("endpoint", "reserve", "alpha", "port", "p1",
                                                   "udp", PORT, "bandwidth", "20M",
                                                   user=owner).stdout
    sc("queue", "bind", "alpha", 0, "endpoint", 1, "share", "10M", user=owner)
    ifaces = {i["name"]: i for i in ctl.ctld.json("iface", user=owner)}
    assert (ifaces["p0"]["ipv6"], ifaces["p1"]["ipv6"]) == ("", "2001:db8:1::1"), ifaces
    rows = {line.split()[0]: line.split() for line in sc("iface", user=owner).stdout.splitlines()}
    assert rows["IFACE"][-1] == "IPV6" and rows["p0"][-1] == "-", rows
    assert rows["p1"][-1] == "2001:db8:1::1", rows
    assert (ifaces["p1"]["reserved"], ifaces["p1"]["available"]) == (20_000_000,
                                                                     10_000_000_000 - 20_000_000)
    assert (ifaces["p0"]["inbound_reserved"], ifaces["p0"]["inbound_available"]) == \
        (200_000_000, 10_000_000_000 - 200_000_000)
    assert ifaces["p1"]["inbound_reserved"] == 0
    quotas = ctl.ctld.json("slice", "list", user=owner)[0]
    assert [quotas[k] for k in ("bandwidth", "reserved", "inbound", "inbound_reserved")] == \
        [50_000_000, 30_000_000, 300_000_000, 200_000_000]
    assert [(e["index"], e["inbound"]) for e in ctl.ctld.json("endpoint", "list", "alpha",
                                                              user=owner)] == \
        [(0, 200_000_000), (1, 0)]

    # No filter: a miss.
    p = [inner_udp("192.168.1.5", dport=3000, seq=i) for i in range(8)]
    ctl.send("alpha", PORT, p[0])
    assert ctl.ctld.json("stats", "alpha", user=owner)["slice"]["reasons"]["miss"] == 1

    route = ["endpoint", 1, "queue", 0]
    sc("filter", "add", "alpha", "pos", 10, "dst", "192.168.0.0/16", *route,
       "nexthop", f"{NH1[0]}:{NH1[1]}", user=owner)
    ctl.send("alpha", PORT, p[1])
    want.append(ctl.expected(p[1], PORT, NH1))

    # A port range before it: the prefixes of 1000-2000, for the same destinations.
    added = sc("filter", "add", "alpha", "pos", 0, "dst", "192.168.1.0/24", "dport",
               "1000-2000", "proto", "udp", *route, "nexthop", f"{NH3[0]}:{NH3[1]}",
               user=owner).stdout
    assert "8 filters written at positions 0 to 7" in added
    in_range = inner_udp("192.168.1.5", dport=1500, seq=100)
    ctl.send("alpha", PORT, in_range, p[2])
    want += [ctl.expected(in_range, PORT, NH3), ctl.expected(p[2], PORT, NH1)]
    hits = {f["position"]: f["hits"] for f in ctl.ctld.json("filter", "list", "alpha",
                                                              user=owner)}
    assert hits[10] == 2 and sum(hits[i] for i in range(8)) == 1

    # The filter at 10 gone: a miss again.
    sc("filter", "del", "alpha", "pos", 10, user=owner)
    ctl.send("alpha", PORT, p[3])
    assert ctl.ctld.json("stats", "alpha", user=owner)["slice"]["reasons"]["miss"] == 2
    # For people, the reasons are a table: a heading, then a row a non-zero reason.
    table = sc("stats", "alpha", user=owner).stdout.splitlines()
    head = next(i for i, line in enumerate(table) if line.split() == ["REASON", "PKTS"])
    assert table[head + 1].split() == ["miss", "2"], table

    # Memory, queue settings.
    sc("mem", "write", "alpha", 100, "0badc0de", user=owner)
    assert "00000060: 00 00 00 00 0b ad c0 de" in sc("mem", "read", "alpha", 96, 8,
                                                     user=owner).stdout
    sc("queue", "set", "alpha", 0, "share", "20M", user=owner)
    assert ctl.ctld.json("queue", "list", "alpha", user=owner)["0"]["share"] == 20_000_000

    # Taken apart in order: what is still in use is refused, then goes.
    refused = sc("endpoint", "release", "alpha", 1, user=owner, check=False)
    assert refused.returncode == 2 and "send from endpoint 1" in refused.stderr
    for pos in range(8):
        sc("filter", "del", "alpha", "pos", pos, user=owner)
    sc("queue", "unbind", "alpha", 0, user=owner)
    sc("endpoint", "release", "alpha", 1, user=owner)
    assert [e["index"] for e in ctl.ctld.json("endpoint", "list", "alpha", user=owner)] == [0]
    sc("slice", "delete", "alpha")
    assert ctl.ctld.json("slice", "list") == []
    drops = ctl.ctld.call("stats.get")["drops"].get("no_endpoint", 0)
    ctl.sock.send(substrate(p[4], ctl.p0, PORT))
    ctl.wait(lambda: ctl.ctld.call("stats.get")["drops"].get("no_endpoint", 0) == drops + 1,
             "a frame to the deleted slice was not dropped as no_endpoint")
    ctl.stop()
    assert_frames(ctl.node.output(ctl.p1), want, "p1 output")


def test_code_options_listed(ctl, users):
    """slicectl codeopt list, for anyone: the code options a slice may name, as
    slicepathd has them (node.info), one a line; -j as JSON."""
    ctl.start()
    out = ctl.ctld.slicectl("codeopt", "list", user=users.OWNERS[0]).stdout.split()
    assert {"ipv4", "i3", "bpf", "dpi", "host"} <= set(out), out
    assert ctl.ctld.json("codeopt", "list")["codeopts"] == \
        ctl.node.call("node.info")["codeopts"] == out


def test_a_mistyped_slice_name_suggests_the_callers_own(ctl, users):
    """An owner's near miss names their slice; another owner's slices are never offered."""
    a, b = users.OWNERS
    ctl.start()
    ctl.ctld.slicectl("slice", "create", "alice1", "codeopt", "ipv4", "owner", a, "buffers", 500)
    ctl.ctld.slicectl("slice", "create", "alice2x", "codeopt", "ipv4", "owner", b,
                      "buffers", 500)
    r = ctl.ctld.slicectl("filter", "list", "alcie1", user=a, check=False)
    assert r.returncode != 0 and 'no slice is named "alcie1"; did you mean "alice1"?' in \
        r.stderr, r.stderr
    r = ctl.ctld.slicectl("filter", "list", "alice2y", user=a, check=False)
    assert 'no slice is named "alice2y"' in r.stderr and "alice2x" not in r.stderr, r.stderr
    r = ctl.ctld.slicectl("filter", "del", "alice2y", "pos", 0, check=False)  # an operator's
    assert 'no slice is named "alice2y" among slicectld\'s slices' in r.stderr and \
        'did you mean "alice2x"?' in r.stderr, r.stderr
