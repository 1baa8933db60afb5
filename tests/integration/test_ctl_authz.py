# SPDX-License-Identifier: BSD-3-Clause
"""Who may do what through slicectld: two unprivileged users each own a slice; every
attempt of one on the other's slice (filters, queues, memory, counters, endpoints, the
exception channel) is refused and changes nothing, while each works on its own; only
operators (root, the operator group) make slices and read the whole node."""

import socket

from conftest import needs_root
import ctlnode
from ctlnode import NH1
from spnode import LocalUsers, strip_counters

pytestmark = needs_root

DENIED = "(code 1006)"


CTLD_ARGS = ("-g", LocalUsers.GROUP)


def own_slice(ctl, name, owner, udp):
    """A slice of owner's with endpoints on p0 and p1, queue 0, one filter and some memory."""
    ctlnode.own_slice(ctl, name, owner, udp, "10.0.0.0/8")
    ctl.ctld.slicectl("mem", "write", name, 0, "cafe", user=owner)


def test_owners_reach_their_own_slices_only(ctl, users):
    ctl.start()
    a, b = users.OWNERS
    own_slice(ctl, "alpha", a, 5001)
    own_slice(ctl, "beta", b, 5002)
    sc = ctl.ctld.slicectl
    before = strip_counters(ctl.ctld.call("state.dump"))
    mem_before = ctl.ctld.call("mem.read", slice="alpha", offset=0, length=16)

    filter_args = ["pos", 1, "dst", "10.1.0.0/16", "endpoint", 1, "queue", 0, "nexthop",
                   f"{NH1[0]}:{NH1[1]}"]
    attempts = [
        ("filter", "add", "alpha", *filter_args),
        ("filter", "del", "alpha", "pos", 0),
        ("filter", "list", "alpha"),
        ("filter", "load", "alpha", "-"),
        ("queue", "bind", "alpha", 1, "endpoint", 1),
        ("queue", "set", "alpha", 0, "share", "2M"),
        ("queue", "unbind", "alpha", 0),
        ("queue", "list", "alpha"),
        ("mem", "read", "alpha", 0, 4),
        ("mem", "write", "alpha", 0, "00000000"),
        ("stats", "alpha"),
        ("endpoint", "reserve", "alpha", "port", "p0"),
        ("endpoint", "release", "alpha", 0),
        ("endpoint", "list", "alpha"),
        ("channel", "alpha"),
        ("filter", "list", "1"),                      # by id too
    ]
    for args in attempts:
        r = sc(*args, user=b, check=False,
               stdin='{"position": 2, "key": "0a000000000000000000000000ff", "mask": '
                     '"ff000000000000000000000000ff", "result": {"endpoint": 1, "queue": 0, '
                     '"next_hop": "10.1.0.2:7001"}}\n')
        assert r.returncode == 2, f"{args}: exit {r.returncode}"
        assert f"slice alpha is not yours: it belongs to uid {users.uid[a]} ({a}) and you " \
               f"are uid {users.uid[b]} ({b}) {DENIED}" in r.stderr, args

    # Operators' business.
    for args in [("slice", "create", "gamma", "codeopt", "ipv4"), ("slice", "delete", "alpha"),
                 ("slice", "delete", "beta"), ("state",), ("stats",),
                 ("sched", "set", 0, "p1", "1G")]:
        r = sc(*args, user=b, check=False)
        assert r.returncode == 2 and DENIED in r.stderr, args
        assert "for the node's operators" in r.stderr or "operators" in r.stderr, args

    assert strip_counters(ctl.ctld.call("state.dump")) == before
    assert ctl.ctld.call("mem.read", slice="alpha", offset=0, length=16) == mem_before

    # Each sees and uses its own.
    assert [s["name"] for s in ctl.ctld.json("slice", "list", user=b)] == ["beta"]
    assert ctl.ctld.json("whoami", user=b) == {"uid": users.uid[b], "operator": False,
                                                "slices": ["beta"]}
    sc("filter", "add", "beta", *filter_args, user=b)
    assert len(ctl.ctld.json("filter", "list", "beta", user=b)) == 2
    assert ctl.ctld.json("mem", "read", "alpha", 0, 2, user=a) == {"data": "cafe"}

    # The exception channel: the file is the owner's, and the daemon checks again.
    path = ctl.ctld.json("channel", "alpha", user=a)["path"]

    def connect_as(user):
        import os
        import pwd
        pid = os.fork()
        if pid == 0:
            code = 2
            try:
                pw = pwd.getpwnam(user)
                os.setgid(pw.pw_gid)
                os.setuid(pw.pw_uid)
                s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                try:
                    s.connect(path)
                    code = 0
                except PermissionError:
                    code = 1
            finally:
                os._exit(code)
        return os.waitpid(pid, 0)[1] >> 8

    assert connect_as(b) == 1, "beta's owner connected to alpha's exception channel"
    assert connect_as(a) == 0, "alpha's owner could not connect to its exception channel"
    ctl.stop()


def test_operators_are_root_and_the_operator_group(ctl, users):
    ctl.start()
    op, a = users.OPERATOR, users.OWNERS[0]
    sc = ctl.ctld.slicectl
    assert ctl.ctld.json("whoami", user=op)["operator"] is True
    sc("slice", "create", "delta", "codeopt", "ipv4", "owner", a, user=op)
    # An operator acts on any slice; its owner sees it as its own.
    sc("endpoint", "reserve", "delta", "port", "p0", user=op)
    assert [s["owner"] for s in ctl.ctld.json("slice", "list", user=a)] == [users.uid[a]]
    # The table names the owner as the machine knows them.
    row = [ln.split() for ln in sc("slice", "list", user=op).stdout.splitlines()
           if ln.startswith("delta ")]
    assert row and row[0][2] == a, row
    assert ctl.ctld.json("stats", user=op)["slices"]["delta"]["rx_pkts"] == 0
    sc("slice", "delete", "delta", user=op)
    r = sc("slice", "create", "eps", "codeopt", "ipv4", user=a, check=False)
    assert r.returncode == 2 and f"uid {users.uid[a]} is neither" in r.stderr
    ctl.stop()
