# SPDX-License-Identifier: BSD-3-Clause
"""Host slices through slicectld and slicectl (docs/guide-slice-owner.md): an operator makes
one with its namespace, its owner reserves a TCP port, an unmodified python3 -m http.server
in the namespace answers a client across the node; the slice is stored (its namespace, NAT
size, TCP endpoint) and put back after slicepathd restarts; deleting it removes the
namespace slicectld made."""

import contextlib
import os
import pwd
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from conftest import needs_root
from spnode import BUILD, PEER_IP
from test_host_slices import fetch, netns, retried, running

pytestmark = needs_root

P0_IP = "10.0.0.1"
PRELOAD = BUILD / "control" / "libslicectl" / "libslicectl-preload.so"


def wire_to(ctl, client):
    """p0's tap (made again by each slicepathd start) into the client namespace at PEER_IP."""
    subprocess.run(["ip", "link", "set", ctl.iface, "netns", client], check=True)
    netns(client, "ip", "addr", "add", f"{PEER_IP}/24", "dev", ctl.iface)
    netns(client, "ip", "link", "set", ctl.iface, "up")


def test_a_host_slice_made_with_slicectl_serves_and_survives_a_restart(ctl, users, tmp_path):
    tag = os.getpid() % 100000
    ns, client = f"spcw{tag}", f"spcc{tag}"
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "index.txt").write_text("host slice via slicectl\n")
    subprocess.run(["ip", "netns", "add", client], check=True)
    try:
        ctl.start()
        wire_to(ctl, client)
        sc = ctl.ctld.slicectl
        out = sc("slice", "create", "web", "codeopt", "host", "netns", ns, "nat", 16,
                 "owner", users.OWNERS[0]).stdout
        assert "slice web created" in out, out
        assert os.path.exists(f"/run/netns/{ns}")  # made by slicectld: it was missing
        assert "endpoint 0: TCP port 8080 on p0" in sc("endpoint", "reserve", "web", "port",
                                                        "p0", "tcp", 8080,
                                                        user=users.OWNERS[0]).stdout
        sc("queue", "bind", "web", 0, "endpoint", 0, "share", "10M", user=users.OWNERS[0])
        listed = sc("endpoint", "list", "web", user=users.OWNERS[0]).stdout
        assert "8080/tcp" in listed, listed
        nat = sc("nat", "web", user=users.OWNERS[0]).stdout
        assert nat.startswith("NAT ports 61000-61015: in use tcp 0"), nat
        with running(ns, sys.executable, "-m", "http.server", "8080", cwd=tmp_path / "www"):
            r = retried(client, *fetch(f"http://{P0_IP}:8080/index.txt"))
            assert r.stdout == "host slice via slicectl\n", r.stdout + r.stderr
            # slicepathd restarts: slicectld puts the host slice back, same namespace.
            ctl.node.stop()
            ctl.start_node()
            ctl.ctld.wait_log("slice web (id 1) restored")
            wire_to(ctl, client)
            host = next(s for s in ctl.node.call("slice.list") if s["name"] == "web")["host"]
            assert (host["netns"], host["nat_ports"], host["state"]) == (ns, 16, "up"), host
            # The interface is new; the server listening on 0.0.0.0:8080 keeps serving.
            r = retried(client, *fetch(f"http://{P0_IP}:8080/index.txt"))
            assert r.stdout == "host slice via slicectl\n", r.stdout + r.stderr
        sc("slice", "delete", "web")
        assert not os.path.exists(f"/run/netns/{ns}")
    finally:
        for name in (client, ns):
            subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)


def test_host_slice_requests_refused_by_slicectld(ctl):
    """Bad host slice requests get clear errors and leave nothing behind."""
    ctl.start()
    call = ctl.ctld.slicectl
    bad = call("slice", "create", "x", "codeopt", "host", check=False)
    assert bad.returncode != 0 and "a host slice needs \"netns\"" in bad.stderr, bad.stderr
    bad = call("slice", "create", "x", "codeopt", "host", "netns", "a/b", check=False)
    assert bad.returncode != 0 and "may hold only letters" in bad.stderr, bad.stderr
    bad = call("slice", "create", "x", "codeopt", "ipv4", "netns", "n", check=False)
    assert bad.returncode != 0 and "are for host slices" in bad.stderr, bad.stderr
    call("slice", "create", "fast", "codeopt", "ipv4")
    bad = call("endpoint", "reserve", "fast", "port", "p0", "tcp", 80, check=False)
    assert bad.returncode != 0 and "TCP endpoints are for host slices" in bad.stderr, bad.stderr
    bad = call("nat", "fast", check=False)
    assert bad.returncode != 0 and "slice fast has no NAT" in bad.stderr, bad.stderr
    assert [s["name"] for s in ctl.ctld.json("slice", "list")] == ["fast"]


def sigint_default():
    """Popen's preexec_fn for a child the test stops with SIGINT: a job a shell puts in the
    background (nohup scripts/test.sh &) runs with SIGINT ignored, and python3's http.server
    would inherit that and never stop."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def under_shim(ctl, ns, slice_name, user, *argv, **popen):
    """argv in namespace ns as user, its bind() reserving through the shim (LD_PRELOAD
    libslicectl-preload.so) for slice_name; popen: subprocess.Popen's arguments."""
    env = {"LD_PRELOAD": str(PRELOAD), "SLICEPATH_SLICE": slice_name,
           "SLICECTL_SOCKET": str(ctl.ctld.socket), "PATH": os.environ["PATH"]}
    # setpriv execs (runuser would fork and keep the signals the test sends).
    pw = pwd.getpwnam(user)
    return subprocess.Popen(["ip", "netns", "exec", ns, "setpriv", f"--reuid={pw.pw_uid}",
                             f"--regid={pw.pw_gid}", "--init-groups", "env", "-i",
                             *(f"{k}={v}" for k, v in env.items()), *argv], text=True,
                            preexec_fn=sigint_default, **popen)


def serve_in_slice(ctl, ns, slice_name, user, www):
    """An unmodified python3 -m http.server 8080 under the shim; stderr kept."""
    return under_shim(ctl, ns, slice_name, user, sys.executable, "-m", "http.server", "8080",
                      cwd=www, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def www_with(text):
    """A directory the slice owner's server reads (so not under tmp_path) with f.txt."""
    www = Path(tempfile.mkdtemp(prefix="spwww"))
    www.chmod(0o755)
    (www / "f.txt").write_text(text)
    return www


def two_host_slices(ctl, client, owner, ns1, ns2):
    """The node started, p0 wired into the client namespace, host slices one (in ns1)
    and two (in ns2) of owner."""
    ctl.start()
    wire_to(ctl, client)
    for name, ns in (("one", ns1), ("two", ns2)):
        ctl.ctld.slicectl("slice", "create", name, "codeopt", "host", "netns", ns, "owner",
                          owner, "buffers", 1024)


def test_bind_in_an_unmodified_program_reserves_through_the_shim(ctl, users):
    """bind() of python3 -m http.server, unmodified, reserves TCP 8080 for its host slice
    (and a queue), so a client across the node reaches it; the same program in a second
    host slice gets EADDRINUSE with slicectld's reason on stderr; when the first server
    exits its socket's close releases the port, and the second one then gets it."""
    tag = os.getpid() % 100000
    ns1, ns2, client = f"spsa{tag}", f"spsb{tag}", f"spsc{tag}"
    owner = users.OWNERS[0]
    www = www_with("through the shim\n")
    subprocess.run(["ip", "netns", "add", client], check=True)
    first = second = None
    try:
        two_host_slices(ctl, client, owner, ns1, ns2)
        first = serve_in_slice(ctl, ns1, "one", owner, www)
        r = retried(client, *fetch(f"http://{P0_IP}:8080/f.txt"))
        assert first.poll() is None, first.communicate()[1]
        assert r.stdout == "through the shim\n", r.stdout + r.stderr
        eps = ctl.ctld.json("endpoint", "list", "one", user=owner)
        assert [(e["port"], e.get("tcp_port")) for e in eps] == [("p0", 8080)], eps
        queues = ctl.ctld.json("queue", "list", "one", user=owner)
        assert [q["endpoint"] for q in queues.values()] == [0], queues

        second = serve_in_slice(ctl, ns2, "two", owner, www)
        err = second.communicate(timeout=30)[1]
        assert second.returncode != 0 and "[Errno 98] Address already in use" in err, err
        assert "slicepath: bind to TCP port 8080 of slice two refused: TCP port 8080 on p0 " \
               "is taken" in err, err
        assert ctl.ctld.json("endpoint", "list", "two", user=owner) == []

        first.send_signal(signal.SIGINT)  # http.server closes its socket and exits
        first.wait(timeout=30)
        assert ctl.ctld.json("endpoint", "list", "one", user=owner) == []
        assert ctl.ctld.json("queue", "list", "one", user=owner) == {}
        second = serve_in_slice(ctl, ns2, "two", owner, www)
        r = retried(client, *fetch(f"http://{P0_IP}:8080/f.txt"))
        assert r.stdout == "through the shim\n", r.stdout + r.stderr
        assert [e.get("tcp_port") for e in
                ctl.ctld.json("endpoint", "list", "two", user=owner)] == [8080]
    finally:
        for p in (first, second):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
        for name in (client, ns1, ns2):
            subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)
        shutil.rmtree(www)


def endpoints_of(ctl, slice_name, user):
    return [e.get("tcp_port") for e in ctl.ctld.json("endpoint", "list", slice_name, user=user)]


def released_in_time(ctl, slice_name, user, seconds=10, left=()):
    """Whether the slice's endpoints are down to the TCP ports left within seconds
    (slicectld looks once a second for endpoints whose holding process has gone)."""
    for _ in range(seconds * 10):
        if endpoints_of(ctl, slice_name, user) == list(left):
            return True
        time.sleep(0.1)
    return False


def test_a_shim_reservation_goes_with_its_process_however_it_ends(ctl, users):
    """A program killed -9 releases nothing itself: slicectld notices its process is gone
    and releases the endpoint and its queue, whether it was running then (the port then
    serves another slice's program) or was restarted meanwhile (the reservation was stored
    with its holder, and the new slicectld finds the holder gone)."""
    tag = os.getpid() % 100000
    ns1, ns2, client = f"spka{tag}", f"spkb{tag}", f"spkc{tag}"
    owner = users.OWNERS[0]
    www = www_with("after a kill\n")
    subprocess.run(["ip", "netns", "add", client], check=True)
    servers = []
    try:
        two_host_slices(ctl, client, owner, ns1, ns2)
        servers.append(serve_in_slice(ctl, ns1, "one", owner, www))
        r = retried(client, *fetch(f"http://{P0_IP}:8080/f.txt"))
        assert r.stdout == "after a kill\n", r.stdout + r.stderr
        assert endpoints_of(ctl, "one", owner) == [8080]

        servers[-1].kill()  # SIGKILL while slicectld runs
        servers[-1].wait()
        assert released_in_time(ctl, "one", owner)
        assert ctl.ctld.json("queue", "list", "one", user=owner) == {}
        ctl.ctld.wait_log("endpoint 0 of slice one (TCP port 8080) is gone: released")
        servers.append(serve_in_slice(ctl, ns2, "two", owner, www))
        r = retried(client, *fetch(f"http://{P0_IP}:8080/f.txt"))
        assert r.stdout == "after a kill\n", r.stdout + r.stderr
        assert endpoints_of(ctl, "two", owner) == [8080]

        ctl.ctld.stop()  # SIGKILL while slicectld is down: found at its start
        servers[-1].kill()
        servers[-1].wait()
        ctl.ctld.start()
        assert released_in_time(ctl, "two", owner)
        assert ctl.ctld.json("queue", "list", "two", user=owner) == {}
    finally:
        for p in servers:
            if p.poll() is None:
                p.kill()
                p.wait()
        for name in (client, ns1, ns2):
            subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)
        shutil.rmtree(www)


# Under the shim: binds TCP 8080 and forks; the child, as a forking server does, closes
# its copy of the socket and binds TCP 8081. Each says "PORT PID" once bound and answers
# every HTTP request with its pid. A line on stdin makes the parent close its socket
# ("closed") and wait for the end of stdin.
FORKING = """
import os, select, signal, socket, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the child reaped when it ends

def bound(port):
    srv = socket.create_server(('', port))
    print(port, os.getpid(), flush=True)
    return srv

def answer(srv):
    c, _ = srv.accept()
    c.recv(1000)
    c.sendall(b'HTTP/1.0 200 OK\\r\\n\\r\\n%d' % os.getpid())
    c.close()

srv = bound(8080)
if os.fork() == 0:
    srv.close()
    child = bound(8081)
    while True:
        answer(child)
while sys.stdin not in select.select([srv, sys.stdin], [], [])[0]:
    answer(srv)
sys.stdin.readline()
srv.close()
print('closed', flush=True)
sys.stdin.read()
"""


def said(p, lines, err):
    """The next lines (words split) that p writes on its stdout pipe, within 30 s; err: the
    file its stderr goes to, for the message."""
    out, deadline = b"", time.monotonic() + 30
    while out.count(b"\n") < lines:
        left = deadline - time.monotonic()
        ready = left > 0 and select.select([p.stdout], [], [], left)[0]
        chunk = os.read(p.stdout.fileno(), 1000) if ready else b""
        assert chunk, (out, err.read_text())
        out += chunk
    return [line.split() for line in out.decode().splitlines()]


def test_a_forked_child_reserves_on_its_own(ctl, users, tmp_path):
    """A child forked by a program under the shim connects to slicectld on its own: its
    bind reserves for the program's slice, a client reaches the child's server, and when
    the child is killed -9 slicectld releases its endpoint (it was tied to the child, not
    the parent). The parent's reservation is untouched throughout, its server answers,
    and its own close still releases it through its own connection."""
    tag = os.getpid() % 100000
    ns1, ns2, client = f"spfa{tag}", f"spfb{tag}", f"spfc{tag}"
    owner = users.OWNERS[0]
    err = tmp_path / "forking.err"
    subprocess.run(["ip", "netns", "add", client], check=True)
    prog, child = None, None
    try:
        two_host_slices(ctl, client, owner, ns1, ns2)
        with err.open("w") as stderr:
            prog = under_shim(ctl, ns1, "one", owner, sys.executable, "-c", FORKING,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        (port, parent), (cport, child) = sorted(said(prog, 2, err))
        assert (port, cport) == ("8080", "8081") and parent != child, (parent, child)
        assert endpoints_of(ctl, "one", owner) == [8080, 8081]
        queues = ctl.ctld.json("queue", "list", "one", user=owner)
        assert sorted(q["endpoint"] for q in queues.values()) == [0, 1], queues
        assert endpoints_of(ctl, "two", owner) == []
        for port, pid in ((8081, child), (8080, parent)):
            r = retried(client, *fetch(f"http://{P0_IP}:{port}/"))
            assert r.stdout == pid, (port, r.stdout + r.stderr)

        os.kill(int(child), signal.SIGKILL)
        killed, child = child, None
        assert released_in_time(ctl, "one", owner, left=[8080]), endpoints_of(ctl, "one", owner)
        ctl.ctld.wait_log(f"process {killed} holding endpoint 1 of slice one (TCP port 8081) "
                          "is gone: released")
        queues = ctl.ctld.json("queue", "list", "one", user=owner)
        assert [q["endpoint"] for q in queues.values()] == [0], queues
        r = retried(client, *fetch(f"http://{P0_IP}:8080/"))
        assert r.stdout == parent, r.stdout + r.stderr

        prog.stdin.write("close\n")
        prog.stdin.flush()
        assert said(prog, 1, err) == [["closed"]]
        assert prog.poll() is None
        assert endpoints_of(ctl, "one", owner) == []
        assert ctl.ctld.json("queue", "list", "one", user=owner) == {}
    finally:
        if child is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(child), signal.SIGKILL)
        if prog is not None:
            prog.kill()
            prog.wait()
        for name in (client, ns1, ns2):
            subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)
