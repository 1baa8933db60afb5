# SPDX-License-Identifier: BSD-3-Clause
"""slicectld's public socket against bad clients: malformed JSON, wrong types, unknown
methods, huge lines, a client that sends half a line and waits, one that never reads its
answers, thousands of connections. Each gets a clear error or is dropped alone; the others
keep being served and nothing stored changes."""

import json
import resource
import socket
import subprocess
import time

from conftest import needs_root
from sp_rpc import Rpc
from spnode import SLICECTL, strip_counters

pytestmark = needs_root

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
NOT_FOUND, NO_ROOM, TOO_LARGE = 1001, 1003, 1005


def raw(r, line):
    """Send one raw line, return the answer object."""
    r.send_line(line)
    return r.read_reply()


def test_malformed_requests_get_clear_errors(ctl):
    ctl.start()
    ctl.ctld.slicectl("slice", "create", "alpha", "codeopt", "ipv4", "buffers", 1000)
    before = strip_counters(ctl.ctld.call("state.dump"))
    with Rpc(ctl.ctld.socket) as r:
        cases = [
            (b"{not json", PARSE_ERROR, "not JSON"),
            (b'{"jsonrpc":"2.0","id":1,"method":"wh\xffoami"}', PARSE_ERROR, "not JSON"),
            (b'[{"jsonrpc":"2.0","id":1,"method":"whoami"}]', INVALID_REQUEST, "no batches"),
            (b'{"id":1,"method":"whoami"}', INVALID_REQUEST, '"jsonrpc" must be "2.0"'),
            (b'{"jsonrpc":"2.0","id":1,"method":7}', INVALID_REQUEST, "must be a string"),
            (b'{"jsonrpc":"2.0","id":[1],"method":"whoami"}', INVALID_REQUEST, '"id" must be'),
            (b'{"jsonrpc":"2.0","id":1,"method":"whoami","params":[1]}', INVALID_PARAMS,
             '"params" must be an object'),
            (b'{"jsonrpc":"2.0","id":1,"method":"slice.destroy"}', METHOD_NOT_FOUND,
             'no method "slice.destroy"; the methods are whoami, iface.list, slice.create'),
            (b'{"jsonrpc":"2.0","id":1,"method":"slice.create","params":{"name":5,'
             b'"codeopt":"ipv4"}}', INVALID_PARAMS, '"name" must be a string, got an integer'),
            (b'{"jsonrpc":"2.0","id":1,"method":"slice.create","params":{"name":"b",'
             b'"codeopt":"ipv4","filter_quota":-1}}', INVALID_PARAMS,
             '"filter_quota" must be a whole number'),
            (b'{"jsonrpc":"2.0","id":1,"method":"filter.insert","params":{"slice":"alpha",'
             b'"position":"4"}}', INVALID_PARAMS, '"position" must be a whole number'),
            (b'{"jsonrpc":"2.0","id":1,"method":"filter.list","params":{"slice":["alpha"]}}',
             INVALID_PARAMS, '"slice" must be a slice\'s name or id, got an array'),
            (b'{"jsonrpc":"2.0","id":1,"method":"mem.write","params":{"slice":"gamma"}}',
             NOT_FOUND, 'no slice is named "gamma"'),
            (b'{"jsonrpc":"2.0","id":1,"method":"endpoint.reserve","params":{"slice":"alpha",'
             b'"port":"p0","bandwidth":1000000000}}', 1002,
             "may reserve 100M bit/s outbound in all (its \"bandwidth\" quota) and its "
             "endpoints hold 0, so at most 100M is left; 1G asked"),
        ]
        for line, code, text in cases:
            err = raw(r, line)["error"]
            print(line[:60], "->", err)
            assert err["code"] == code and text in err["message"], (line, err)
            assert "\ufffd" not in err["message"]
        # A notification is carried out and not answered; the next request is.
        r.send_line(b'{"jsonrpc":"2.0","method":"whoami"}')
        assert raw(r, b'{"jsonrpc":"2.0","id":"x","method":"whoami"}')["id"] == "x"
    assert strip_counters(ctl.ctld.call("state.dump")) == before
    ctl.stop()


def rpc_line(method, params, rid=1):
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                       "params": params}).encode()


def a_filter(pos, **more):
    f = {"position": pos, "key": "0a000000" + "00" * 10, "mask": "ff" * 4 + "00" * 10,
         "result": {"endpoint": 0, "queue": 0, "next_hop": "10.1.0.2:7001"}}
    f.update(more)
    return f


def test_strict_requests_get_one_answer(ctl):
    """Each request that could be read two ways is refused with -32602 naming the
    parameter: unknown parameters (at any depth), one filter beside a batch, a position twice
    in a batch, an index the server picks, a slice name of digits; integers beyond 64 bits
    likewise, not -32700; blank lines are skipped like empty ones; a slice without memory
    says so. Nothing is changed by any of them."""
    ctl.start()
    sc = ctl.ctld.slicectl
    sc("slice", "create", "alpha", "codeopt", "ipv4", "buffers", 1000)
    sc("endpoint", "reserve", "alpha", "port", "p1")
    sc("queue", "bind", "alpha", 0, "endpoint", 0)
    sc("slice", "create", "nomem", "codeopt", "ipv4", "buffers", 1000, "memory", 0)
    before = strip_counters(ctl.ctld.call("state.dump"))
    huge = 123456789012345678901234567890
    with Rpc(ctl.ctld.socket) as r:
        cases = [
            (rpc_line("slice.create", {"name": "b", "codeopt": "ipv4", "frobnicate": 1}),
             '"frobnicate" is not a parameter of slice.create, which takes name, codeopt, '),
            (rpc_line("whoami", {"verbose": True}),
             '"verbose" is not a parameter of whoami, which takes none'),
            (rpc_line("endpoint.reserve", {"slice": "alpha", "port": "p0", "index": 3}),
             '"index" is not a parameter of endpoint.reserve'),
            (rpc_line("filter.insert", {"slice": "alpha", "filters": [a_filter(1)],
                                        "position": 2}),
             '"position" beside "filters": give one filter'),
            (rpc_line("filter.insert", {"slice": "alpha", "filters": [a_filter(3), a_filter(4),
                                                                     a_filter(3)]}),
             "filters[2].position 3 is also filters[0]'s"),
            (rpc_line("filter.insert", {"slice": "alpha", "filters": [a_filter(1, prio=9)]}),
             '"prio" is not a parameter of filters[0], which takes position, key, mask, result'),
            (rpc_line("filter.insert", dict(a_filter(1, result={
                "endpoint": 0, "queue": 0, "next_hop": "10.1.0.2:7001", "weight": 2}),
                slice="alpha")),
             '"weight" is not a parameter of result, which takes endpoint, queue, next_hop, data'),
            (rpc_line("filter.list", {"slice": "4"}),
             '"slice": "4" is a string of digits, which no slice\'s name is; give a slice id '
             'as a number ("slice": 4)'),
            (rpc_line("slice.create", {"name": "4", "codeopt": "ipv4"}),
             '"name" must not be all digits'),
            (rpc_line("mem.read", {"slice": "nomem", "offset": 0, "length": 1}),
             "slice nomem has no memory: it was created with memory 0"),
            (rpc_line("mem.write", {"slice": "nomem", "offset": 0, "data": "00"}),
             "slice nomem has no memory"),
        ]
        for line, text in cases:
            reply = raw(r, line)
            print(line[:70], "->", reply)
            assert reply["id"] == 1
            assert reply["error"]["code"] == INVALID_PARAMS or "no memory" in text, reply
            assert text in reply["error"]["message"], (text, reply)
        # Valid JSON, beyond 64 bits: -32602 naming the parameter, to the request's id.
        for line, where in [
                (b'{"jsonrpc":"2.0","id":5,"method":"mem.read","params":{"slice":"alpha",'
                 b'"offset":%d,"length":1}}' % huge, '"offset"'),
                (b'{"jsonrpc":"2.0","id":"q","method":"filter.insert","params":{"slice":"alpha",'
                 b'"filters":[{"position":-%d}]}}' % huge, '"filters[0].position"')]:
            reply = raw(r, line)
            assert reply["error"]["code"] == INVALID_PARAMS, reply
            assert f"{where} is beyond the 64-bit integers" in reply["error"]["message"]
            assert reply["id"] == (5 if where == '"offset"' else "q")
        # Blank lines, empty or of spaces and tabs, are skipped alike: the next reply is the
        # next request's.
        for blank in (b"", b"   ", b" \t \r"):
            r.send_line(blank)
        assert raw(r, b'{"jsonrpc":"2.0","id":"after","method":"whoami"}')["id"] == "after"
    assert strip_counters(ctl.ctld.call("state.dump")) == before
    ctl.stop()


def test_huge_and_half_lines_hold_only_their_own_client(ctl):
    ctl.start()
    with Rpc(ctl.ctld.socket) as huge, Rpc(ctl.ctld.socket) as other:
        # 17 MiB without a newline yet: refused once the limit is passed, the rest skipped.
        huge.file.write(b'{"jsonrpc":"2.0","id":1,"method":"whoami","params":{"x":"' +
                        b"a" * (17 << 20))
        huge.file.flush()
        err = huge.read_reply()["error"]
        assert err["code"] == TOO_LARGE and "longer than 16 MiB" in err["message"]
        huge.send_line(b'"}}')
        assert huge.call("whoami")["uid"] == 0       # the same connection goes on

        half = socket.socket(socket.AF_UNIX)
        half.connect(str(ctl.ctld.socket))
        half.sendall(b'{"jsonrpc":"2.0","id":7,"meth')
        assert other.call("whoami")["operator"] is True   # served meanwhile
        half.sendall(b'od":"whoami"}\n')
        reply = json.loads(half.makefile("rb").readline())
        assert reply["id"] == 7 and reply["result"]["uid"] == 0
        half.close()
    ctl.stop()


def test_a_client_that_does_not_read_is_dropped_alone(ctl):
    ctl.start()
    ctl.ctld.slicectl("slice", "create", "alpha", "codeopt", "ipv4", "filters", 2000,
                      "buffers", 1000)
    ctl.ctld.slicectl("endpoint", "reserve", "alpha", "port", "p1")
    ctl.ctld.slicectl("queue", "bind", "alpha", 0, "endpoint", 0)
    filters = [{"position": i, "key": f"0a{i:06x}00000000000000000000", "mask": "ff" * 4 + "00" * 10,
                "result": {"endpoint": 0, "queue": 0, "next_hop": "10.1.0.2:7001"}}
               for i in range(2000)]
    ctl.ctld.call("filter.insert", slice="alpha", filters=filters)
    greedy = socket.socket(socket.AF_UNIX)
    greedy.connect(str(ctl.ctld.socket))
    request = b'{"jsonrpc":"2.0","id":1,"method":"filter.list","params":{"slice":"alpha"}}\n'
    greedy.setblocking(False)
    sent = 0
    deadline = time.monotonic() + 60
    dropped = False
    while not dropped and time.monotonic() < deadline:
        try:
            greedy.send(request * 50)
            sent += 50
        except BlockingIOError:
            time.sleep(0.01)
        except (BrokenPipeError, ConnectionResetError):
            dropped = True
        # The others are served all along.
        assert ctl.ctld.call("whoami")["uid"] == 0
    print(f"{sent} requests sent before the connection was dropped")
    assert dropped, "a client that never reads its answers was kept for 60 s"
    assert len(ctl.ctld.call("filter.list", slice="alpha")) == 2000
    greedy.close()
    ctl.stop()


def test_thousands_of_connections(ctl):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 10000), hard))
    ctl.ctld.args += ["--max-clients", "2500"]
    ctl.start()
    conns, refused = [], 0
    try:
        for _ in range(3000):
            s = socket.socket(socket.AF_UNIX)
            s.connect(str(ctl.ctld.socket))
            conns.append(s)
        # Every connection asks; the 500 beyond the limit are told why and closed.
        for i, s in enumerate(conns):
            try:
                s.sendall(b'{"jsonrpc":"2.0","id":%d,"method":"whoami"}\n' % i)
            except (BrokenPipeError, ConnectionResetError):
                pass  # refused: its error line is waiting to be read
        answered = 0
        for i, s in enumerate(conns):
            s.settimeout(30)
            line = s.makefile("rb").readline()
            reply = json.loads(line)
            if "error" in reply:
                assert reply["error"]["code"] == NO_ROOM
                assert "as many connections as it takes" in reply["error"]["message"]
                refused += 1
            else:
                assert reply["id"] == i
                answered += 1
        print(f"{answered} answered, {refused} refused")
        assert (answered, refused) == (2500, 500)
    finally:
        for s in conns:
            s.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    # All gone: served as before.
    time.sleep(0.2)
    assert ctl.ctld.call("whoami")["uid"] == 0
    ctl.stop()


def test_slicectl_help_and_usage_errors_need_no_daemon(tmp_path):
    """slicectl connects at its first call: help and usage errors answer without slicectld,
    and a call says which socket it could not reach."""
    sock = tmp_path / "nobody.sock"

    def slicectl(*args):
        return subprocess.run([str(SLICECTL), "-s", str(sock), *args], capture_output=True,
                              text=True, timeout=10)

    r = slicectl("slice", "help")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "slicectl slice create NAME codeopt CODEOPT" in r.stdout
    r = slicectl("queue", "frob")
    assert r.returncode == 1 and 'queue has no command "frob"' in r.stderr
    assert "slicectl queue bind" in r.stderr
    r = slicectl("slice", "list")
    assert r.returncode == 3 and f"cannot reach slicectld on {sock}" in r.stderr
