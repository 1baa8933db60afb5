# SPDX-License-Identifier: BSD-3-Clause
"""A slice's last missed keys (issue 44; docs/api.md `stats.missed`, telemetry
/slicepath/missed, `slicectl stats missed`): frames no filter matches, with known keys,
show up as the keys the lookup used, newest first, at most 8 (those its slow path injected
said so); hits never; another slice's
misses are its own; a slice's owner and operators may read them, another owner may not;
and a key shown, pasted into `slicectl filter add`, matches that frame."""

import socket
import struct

from conftest import needs_root
from ctlnode import NH1, own_slice
from spnode import LocalUsers, inner_udp, ipv4_key

pytestmark = needs_root

CTLD_ARGS = ("-g", LocalUsers.GROUP)
KEEP = 8
DENIED = "(code 1006)"
EXC_HDR = struct.Struct("=BBHI")  # struct sp_exc_hdr: version, reason, endpoint, reserved


def missing(i, net="10.9.0"):
    """The i-th frame no filter matches, and its key as the ipv4 code option makes it."""
    dst, sport, dport = f"{net}.{i}", 1000 + i, 3000 + i
    return (inner_udp(dst, sport=sport, dport=dport, seq=i),
            ipv4_key(dst=dst, src="192.0.2.1", sport=sport, dport=dport, proto=17)[0])


def test_last_missed_keys(ctl, users):
    ctl.start()
    a, b = users.OWNERS
    own_slice(ctl, "alpha", a, 5001, "192.168.0.0/16")
    own_slice(ctl, "beta", b, 5002, "192.168.0.0/16")

    # Nothing missed yet: an empty list, and the text says so.
    r = ctl.ctld.json("stats", "missed", "alpha", user=a)
    assert (r["slice"], r["codeopt"], r["keep"], r["misses"], r["missed"]) == \
        ("alpha", "ipv4", KEEP, 0, [])
    assert "slice alpha: 0 misses in all; the last 0 kept (at most 8)" in \
        ctl.ctld.slicectl("stats", "missed", "alpha", user=a).stdout

    # A hit keeps nothing; 11 misses, one frame at a time (so in this order), keep the last 8.
    ctl.send("alpha", 5001, inner_udp("192.168.1.1", seq=100))
    frames = [missing(i) for i in range(11)]
    for frame, _ in frames:
        ctl.send("alpha", 5001, frame)
    want = [key for _, key in reversed(frames)][:KEEP]
    r = ctl.ctld.json("stats", "missed", "alpha", user=a)
    assert r["misses"] == 11
    assert [m["key"] for m in r["missed"]] == want
    assert all((m["endpoint"], m["port"], m["injected"]) == (0, "p0", False)
               for m in r["missed"]), r["missed"]
    ages = [m["age_ms"] for m in r["missed"]]
    assert ages == sorted(ages) and ages[-1] < 60_000, ages

    # Beta's misses are beta's: alpha's list is unchanged, beta's holds its two alone.
    beta_frames = [missing(i, "10.77.0") for i in range(2)]
    for frame, _ in beta_frames:
        ctl.send("beta", 5002, frame)
    assert [m["key"] for m in ctl.ctld.json("stats", "missed", "alpha", user=a)["missed"]] \
        == want
    r = ctl.ctld.json("stats", "missed", "beta", user=b)
    assert (r["misses"], [m["key"] for m in r["missed"]]) == \
        (2, [key for _, key in reversed(beta_frames)])

    # Telemetry shows the same, "0" the newest.
    tel = ctl.node.cmd("/slicepath/missed,alpha")
    assert [tel[str(i)]["key"] for i in range(len(tel))] == want
    assert (tel["0"]["endpoint"], tel["0"]["port"], tel["0"]["injected"]) == (0, "p0", 0)

    # Its owner's and operators' to read, as its counters; not another owner's.
    for user in (None, users.OPERATOR):
        assert [m["key"] for m in ctl.ctld.json("stats", "missed", "alpha",
                                                 user=user)["missed"]] == want
    for ref in ("alpha", "1"):
        r = ctl.ctld.slicectl("stats", "missed", ref, user=b, check=False)
        assert r.returncode == 2 and r.stdout == "", r
        assert f"slice alpha is not yours: it belongs to uid {users.uid[a]} ({a})" in r.stderr
        assert DENIED in r.stderr

    # For people: the newest first, as filter add takes it.
    lines = ctl.ctld.slicectl("stats", "missed", "alpha", user=a).stdout.splitlines()
    assert lines[0] == "slice alpha: 11 misses in all; the last 8 kept (at most 8), newest first"
    assert lines[1].split() == ["AGE", "ENDPOINT", "PORT", "FROM", "KEY", "MATCH"]
    rows = [line.split(None, 5) for line in lines[2:]]
    assert [row[4] for row in rows] == want
    assert all(row[1:4] == ["0", "p0", "wire"] for row in rows), rows
    newest = rows[0][5]
    assert newest == "dst 10.9.0.10 src 192.0.2.1 sport 1010 dport 3010 proto udp", newest

    # Pasted into a filter, that key matches its frame: forwarded, no miss more.
    ctl.ctld.slicectl("filter", "add", "alpha", "pos", 1, *newest.split(), "endpoint", 1,
                      "queue", 0, "nexthop", f"{NH1[0]}:{NH1[1]}", user=a)
    before = ctl.ctld.call("stats.get", slice="alpha")["slice"]
    ctl.send("alpha", 5001, frames[-1][0])
    after = ctl.ctld.call("stats.get", slice="alpha")["slice"]
    assert after["fwd_pkts"] == before["fwd_pkts"] + 1
    assert after["reasons"]["miss"] == before["reasons"]["miss"] == 11
    assert [m["key"] for m in ctl.ctld.json("stats", "missed", "alpha", user=a)["missed"]] \
        == want
    # The hex form pastes too (key HEX mask HEX): the filter of the next oldest.
    ctl.ctld.slicectl("filter", "add", "alpha", "pos", 2, "key", want[1], "mask", "ff" * 14,
                      "endpoint", 1, "queue", 0, "nexthop", f"{NH1[0]}:{NH1[1]}", user=a)
    ctl.send("alpha", 5001, frames[-2][0])
    assert ctl.ctld.call("stats.get", slice="alpha")["slice"]["fwd_pkts"] == \
        after["fwd_pkts"] + 1

    # A key its slow path injected (root connects to its channel) shows as such.
    sp = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sp.settimeout(5)
    sp.connect(ctl.ctld.call("exception.channel", slice="alpha")["path"])
    ctl.wait(lambda: ctl.node.log().count(": slow path (pid") >= 1, "no slow path accepted")
    frame, key = missing(50)
    sp.send(EXC_HDR.pack(1, 0, 0, 0) + frame)  # version 1, endpoint 0
    sp.recv(70000)  # it comes back up as the exception it is
    sp.close()
    r = ctl.ctld.json("stats", "missed", "alpha", user=a)
    assert r["misses"] == 12
    assert r["missed"][0] == {"key": key, "endpoint": 0, "port": "p0", "injected": True,
                              "age_ms": r["missed"][0]["age_ms"]}
    assert [m["key"] for m in r["missed"][1:]] == want[:KEEP - 1]
    assert ctl.ctld.slicectl("stats", "missed", "alpha", user=a).stdout.splitlines()[2] \
        .split()[1:5] == ["0", "p0", "slow_path", key]

    # A slice that is not there, and a mistyped command.
    r = ctl.ctld.slicectl("stats", "missed", "gamma", check=False)
    assert r.returncode == 2 and 'no slice is named "gamma"' in r.stderr, r
    r = ctl.ctld.slicectl("stats", "mised", "alpha", check=False)
    assert r.returncode == 1 and 'did you mean "missed"?' in r.stderr, r
