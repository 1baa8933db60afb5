# SPDX-License-Identifier: BSD-3-Clause
"""What one tenant cannot take from the others through slicectld: connections (a cap per
user, slots only operators may take, idle connections closed) and inbound bandwidth (a
per-slice quota the operator sets, as for outbound)."""

import json
import subprocess
import sys
import time

from conftest import needs_root
from sp_rpc import Rpc
from spnode import SLICECTL, as_user

pytestmark = needs_root

NO_ROOM, QUOTA, CLOSING = 1003, 1002, 1009
PER_USER, OPERATOR_SLOTS, MAX_CLIENTS, IDLE_S = 20, 10, 60, 2
CTLD_ARGS = ("--max-clients", str(MAX_CLIENTS), "--max-clients-per-user", str(PER_USER),
             "--operator-slots", str(OPERATOR_SLOTS), "-g", "sp-test-ops")

# Run as a user: opens N connections, asks whoami on each, prints what each got as one JSON
# line, then holds them until its stdin closes.
HOLDER = r"""
import json, socket, sys
path, n = sys.argv[1], int(sys.argv[2])
held, got = [], []
for i in range(n):
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    try:
        s.sendall(b'{"jsonrpc":"2.0","id":%d,"method":"whoami"}\n' % i)
    except OSError:
        pass  # refused and closed: its error line is still there to read
    reply = json.loads(s.makefile("rb").readline())
    got.append(reply.get("error", {}).get("message") or "ok")
    held.append(s)
print(json.dumps(got), flush=True)
sys.stdin.read()
"""


class Holder:
    """A process of user holding n connections to slicectld."""

    def __init__(self, ctld, user, n):
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(ctld.socket), str(n)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     **as_user(user))
        self.got = json.loads(self.proc.stdout.readline())

    def release(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def slicectl_ok(ctld, user, *args):
    r = subprocess.run([str(SLICECTL), "-s", str(ctld.socket), *args], capture_output=True,
                       text=True, timeout=30, **as_user(user))
    return r.returncode == 0, r.stderr


def test_one_user_cannot_hold_every_connection(ctl, users):
    ctl.start()
    a, b = users.OWNERS
    holders = []
    try:
        # One user asks for many more than its share: PER_USER are served, the rest told why.
        greedy = Holder(ctl.ctld, a, PER_USER + 15)
        holders.append(greedy)
        assert greedy.got[:PER_USER] == ["ok"] * PER_USER
        assert len(greedy.got) == PER_USER + 15
        for msg in greedy.got[PER_USER:]:
            assert f"holds {PER_USER} connections to slicectld, as many as one user may" in msg
        # Root and another owner are served all the same.
        assert ctl.ctld.call("whoami")["uid"] == 0
        assert slicectl_ok(ctl.ctld, b, "slice", "list") == (True, "")

        # Root fills every slot but the operators' (ctl.ctld.call's connection, r, 28 more).
        with Rpc(ctl.ctld.socket) as r:
            rest = MAX_CLIENTS - OPERATOR_SLOTS - PER_USER - 2
            root = Holder(ctl.ctld, None, rest)
            holders.append(root)
            assert root.got == ["ok"] * rest
            ok, err = slicectl_ok(ctl.ctld, b, "slice", "list")
            assert not ok and f"keeps the last {OPERATOR_SLOTS} for its operators" in err
            # An operator still gets in, up to the last slot.
            assert r.call("whoami")["operator"] is True
            assert slicectl_ok(ctl.ctld, None, "slice", "list") == (True, "")
            assert slicectl_ok(ctl.ctld, users.OPERATOR, "slice", "list") == (True, "")
        for h in holders:
            h.release()
        holders.clear()
        # Once released, the slots are back.
        ctl.wait(lambda: slicectl_ok(ctl.ctld, a, "slice", "list")[0], "slots not released")
    finally:
        for h in holders:
            h.release()
    ctl.stop()


def test_idle_connections_are_closed(ctl, users):
    ctl.ctld.args += ["--idle-timeout", str(IDLE_S)]
    ctl.start()
    a = users.OWNERS[0]
    idle = Holder(ctl.ctld, a, PER_USER)
    try:
        assert idle.got == ["ok"] * PER_USER
        assert not slicectl_ok(ctl.ctld, a, "slice", "list")[0]
        with Rpc(ctl.ctld.socket) as r:
            # Nothing asked for IDLE_S: told why, then closed; a busy one stays.
            time.sleep(IDLE_S / 2)
            assert r.call("whoami")["uid"] == 0
            time.sleep(IDLE_S / 2 + 0.5)
            assert r.call("whoami")["uid"] == 0
            # The idle user's slots came back: it may connect again.
            assert slicectl_ok(ctl.ctld, a, "slice", "list") == (True, "")
            time.sleep(IDLE_S + 1)
            reply = r.read_reply()
            assert reply["id"] is None and reply["error"]["code"] == CLOSING
            assert f"no request for {IDLE_S} s" in reply["error"]["message"]
            assert r.file.read() == b""  # then closed
    finally:
        idle.release()
    ctl.stop()


def test_inbound_bandwidth_is_a_slice_quota(ctl, users):
    ctl.start()
    a, b = users.OWNERS
    sc = ctl.ctld.slicectl
    sc("slice", "create", "greedy", "codeopt", "ipv4", "owner", a, "inbound", "1G", "buffers",
       1000)
    sc("slice", "create", "modest", "codeopt", "ipv4", "owner", b, "buffers", 1000)
    # The operator's quota, not the interface, bounds what one slice reserves inbound.
    refused = sc("endpoint", "reserve", "greedy", "port", "p0", "inbound", "10G", user=a,
                 check=False)
    assert refused.returncode != 0
    # In the units typed (issue 44): "1G" and "10G", not 1000000000 and 10000000000.
    assert ('slice greedy may reserve 1G bit/s inbound in all (its "inbound" quota) '
            'and its endpoints hold 0, so at most 1G is left; 10G asked'
            in refused.stderr)
    sc("endpoint", "reserve", "greedy", "port", "p0", "inbound", "600M", user=a)
    refused = sc("endpoint", "reserve", "greedy", "port", "p0", "inbound", "600M", user=a,
                 check=False)
    assert "and its endpoints hold 600M, so at most 400M is left; 600M asked" in refused.stderr
    sc("endpoint", "reserve", "greedy", "port", "p0", "inbound", "400M", user=a)
    # The others keep what the interface has left; the default quota is 100 Mb/s.
    sc("endpoint", "reserve", "modest", "port", "p0", "inbound", "100M", user=b)
    refused = sc("endpoint", "reserve", "modest", "port", "p0", "inbound", "1k", user=b,
                 check=False)
    assert ('may reserve 100M bit/s inbound in all (its "inbound" quota) and its endpoints '
            'hold 100M, so at most 0 is left; 1k asked' in refused.stderr)
    # Outbound too, fractions exact: modest's endpoint holds the default 10M of its 100M.
    sc("endpoint", "reserve", "modest", "port", "p0", "bandwidth", "37.5M", user=b)
    refused = sc("endpoint", "reserve", "modest", "port", "p0", "bandwidth", "100M", user=b,
                 check=False)
    assert refused.returncode != 0
    assert ('slice modest may reserve 100M bit/s outbound in all (its "bandwidth" quota) and '
            'its endpoints hold 47.5M, so at most 52.5M is left; 100M asked'
            in refused.stderr), refused.stderr
    listed = {s["name"]: s for s in ctl.ctld.call("slice.list")}
    assert (listed["greedy"]["inbound"], listed["greedy"]["inbound_reserved"]) == \
        (1_000_000_000, 1_000_000_000)
    assert (listed["modest"]["inbound"], listed["modest"]["inbound_reserved"]) == \
        (100_000_000, 100_000_000)
    # The quota is stored: after a restart of slicectld it holds the same.
    ctl.ctld.stop()
    ctl.ctld.start()
    refused = sc("endpoint", "reserve", "greedy", "port", "p0", "inbound", "1k", user=a,
                 check=False)
    assert "so at most 0 is left; 1k asked" in refused.stderr
    ctl.stop()


def test_packet_buffers_default_to_what_is_left(ctl):
    # Room for the default quota (4096) and 1100 more: the guides' slices name no buffers.
    ctl.ctld.args += ["--buffers", str(4096 + 1100)]
    ctl.start()
    sc = ctl.ctld.slicectl
    assert "4096 packet buffers" in sc("slice", "create", "first", "codeopt", "ipv4").stdout
    # Less than the default left: the slice gets what is left, and is told so.
    assert "1100 packet buffers" in sc("slice", "create", "cut", "codeopt", "ipv4").stdout
    sc("slice", "delete", "cut")
    sc("slice", "create", "most", "codeopt", "ipv4", "buffers", 900)
    # Under the 256 a default slice gets at least: refused, naming the key to give.
    refused = sc("slice", "create", "small", "codeopt", "ipv4", check=False)
    assert refused.returncode == 2
    assert ('so at most 200 is left; 4096 asked (the default, or what is left if at least 256):'
            ' add "buffers N" / "buffer_quota": N (at most 200 left) (code 1003)'
            in refused.stderr)
    refused = sc("slice", "create", "small", "codeopt", "ipv4", "buffers", 300, check=False)
    assert 'so at most 200 is left; 300 asked: give "buffers N" / "buffer_quota": N (at most ' \
        '200 left)' in refused.stderr
    sc("slice", "create", "small", "codeopt", "ipv4", "buffers", 200)
    listed = {s["name"]: s["buffer_quota"] for s in ctl.ctld.call("slice.list")}
    assert listed == {"first": 4096, "most": 900, "small": 200}
    # None left: a mistake in the request is still named first, before any room.
    refused = sc("slice", "create", "typo", "codeopt", "ipv5", check=False)
    assert refused.returncode == 2
    assert 'unknown code option "ipv5"; the node has ipv4, ' in refused.stderr
    assert refused.stderr.endswith(", host (code -32602)\n")
    assert "no NPE 7: the node has " in sc("slice", "create", "typo", "codeopt", "ipv4", "npe",
                                           7, check=False).stderr
    refused = sc("slice", "create", "none", "codeopt", "ipv4", check=False)
    assert ("so at most 0 is left; 4096 asked (the default, or what is left if at least 256): "
            "delete a slice or give slicectld a larger --buffers" in refused.stderr)
    ctl.stop()
