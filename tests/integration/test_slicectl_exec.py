# SPDX-License-Identifier: BSD-3-Clause
"""The walk of docs/guide-slice-owner.md on its own config, config/host-slice.json (p0 a tap
the host side gets an address on): `slicectl exec SLICE -- PROGRAM` runs an unmodified
python3 -m http.server in a host slice, with the LD_PRELOAD shim found beside slicectl's
binary, so its bind() reserves the port and a client across the node reaches it; exec's
refusals (a slice that is no host slice, no such slice, no shim, not root) run nothing;
the shim says when it is loaded without a slice or without slicectld."""

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from conftest import needs_root
from spnode import BUILD, SLICECTL, Ctld, Node
from test_ctl_host_slices import PRELOAD, sigint_default, www_with
from test_host_slices import fetch, netns, retried

pytestmark = needs_root

CONFIG = Path(__file__).resolve().parents[2] / "config" / "host-slice.json"
HOST_SIDE = "10.0.0.2/24"  # the guide's `ip addr add` on the tap


def walk_node(tmp_path):
    """slicepathd with config/host-slice.json's ports and lcores (the tap renamed, so
    that tests beside it never share one) and slicectld in front; the tap's name."""
    cfg = json.loads(CONFIG.read_text())
    tap = f"spx{os.getpid() % 100000}"
    n = Node(tmp_path, "exec")
    for p in cfg["ports"]:
        n.port(p["name"], p["ipv4"], p["mac"], rate=p.get("rate"),
               device=p["device"].replace("iface=sp-p0", f"iface={tap}"))
    assert any(tap in p.device for p in n.ports.values()), "config's p0 is no tap sp-p0"
    n.lcores = cfg["lcores"]
    return n, Ctld(n, tmp_path), tap


def tcp_ports(ctld, slice_name, user):
    return [e.get("tcp_port") for e in ctld.json("endpoint", "list", slice_name, user=user)]


def exec_in(ctld, slicectl, *args, **popen):
    """slicectl -s SOCKET exec ARGS (slicectl: the binary to run), as root."""
    return subprocess.Popen([str(slicectl), "-s", str(ctld.socket), "exec", *map(str, args)],
                            text=True, preexec_fn=sigint_default, **popen)


def test_slicectl_exec_serves_from_a_host_slice(tmp_path, users):
    """The guide's walk: the operator makes host slice web; slicectl exec runs python3 -m
    http.server in it as the owner (through setpriv); its bind reserves TCP 8080 (and a
    queue) for web without a word on stderr, a client on the tap's far end fetches a file
    at 10.0.0.1:8080, and Ctrl-C releases the port. slicectl is run through a link, as
    the guides' PATH has it: the shim is found beside the binary the link resolves to."""
    node, ctld, tap = walk_node(tmp_path)
    tag = os.getpid() % 100000
    ns, client = f"spxw{tag}", f"spxc{tag}"
    owner = pwd.getpwnam(users.OWNERS[0])
    www = www_with("served through slicectl exec\n")
    link = tmp_path / "slicectl"
    link.symlink_to(SLICECTL)
    server = None
    subprocess.run(["ip", "netns", "add", client], check=True)
    try:
        node.start()
        ctld.start()
        subprocess.run(["ip", "link", "set", tap, "netns", client], check=True)
        netns(client, "ip", "addr", "add", HOST_SIDE, "dev", tap)
        netns(client, "ip", "link", "set", tap, "up")
        ctld.slicectl("slice", "create", "web", "codeopt", "host", "netns", ns, "owner",
                      owner.pw_name, "buffers", 512)
        server = exec_in(ctld, link, "web", "--", "setpriv", f"--reuid={owner.pw_uid}",
                         f"--regid={owner.pw_gid}", "--init-groups", sys.executable, "-m",
                         "http.server", "8080", cwd=www, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
        r = retried(client, *fetch("http://10.0.0.1:8080/f.txt"))
        assert server.poll() is None, server.communicate()[1]
        assert r.stdout == "served through slicectl exec\n", r.stdout + r.stderr
        assert tcp_ports(ctld, "web", owner.pw_name) == [8080]
        server.send_signal(signal.SIGINT)  # slicectl exec'd: the signal is the server's
        err = server.communicate(timeout=30)[1]
        assert "slicepath:" not in err, err
        assert tcp_ports(ctld, "web", owner.pw_name) == []
    finally:
        if server is not None and server.poll() is None:
            server.kill()
            server.wait()
        ctld.kill()
        node.kill()
        for name in (client, ns):
            subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)
        shutil.rmtree(www)


def installed_shim():
    """Where slicectl looks for an installed shim: the build's prefix and libdir."""
    opts = {o["name"]: o["value"] for o in
            json.loads((BUILD / "meson-info" / "intro-buildoptions.json").read_text())}
    return Path(opts["prefix"]) / opts["libdir"] / "slicepath" / "libslicectl-preload.so"


def test_slicectl_exec_refusals_run_nothing(tmp_path, users):
    """A fast-path slice has no namespace, an unknown slice none either, a slicectl with no
    shim beside it (nor installed) will not run a program without it, and only root may
    enter a namespace: each says why, exits non-zero, and the program never runs."""
    node, ctld, _tap = walk_node(tmp_path)
    ran = tmp_path / "ran"
    prog = ("--", "touch", str(ran))
    lonely = tmp_path / "bin" / "slicectl"  # a copy away from the build tree
    lonely.parent.mkdir()
    shutil.copy(SLICECTL, lonely)
    tag = os.getpid() % 100000
    try:
        node.start()
        ctld.start()
        ctld.slicectl("slice", "create", "fast", "codeopt", "ipv4", "buffers", 512)
        ctld.slicectl("slice", "create", "web", "codeopt", "host", "netns", f"spxr{tag}",
                      "owner", users.OWNERS[0], "buffers", 512)
        cases = [
            (SLICECTL, ("fast", *prog), {}, 2,
             "slicectl: slice fast is no host slice (codeopt ipv4): it has no namespace"),
            (SLICECTL, ("nosuch", *prog), {}, 2, "slicectl: no slice \"nosuch\""),
            (SLICECTL, ("web", "touch", str(ran)), {}, 1,
             "usage: slicectl exec SLICE -- PROGRAM [ARGS...]"),
        ]
        if not installed_shim().exists():
            cases.append((lonely, ("web", *prog), {}, 1,
                          f"slicectl: the LD_PRELOAD shim is missing: no "
                          f"libslicectl-preload.so beside this slicectl (its build tree) "
                          f"nor {installed_shim()} (installed)"))
        owner = pwd.getpwnam(users.OWNERS[0])
        cases.append((SLICECTL, ("web", *prog), {"user": owner.pw_uid}, 1,
                      "slicectl: exec enters the slice's namespace, which needs root"))
        for slicectl, args, as_user, rc, said in cases:
            r = subprocess.run([str(slicectl), "-s", str(ctld.socket), "exec", *args],
                               capture_output=True, text=True, timeout=30, **as_user)
            assert (r.returncode, r.stdout) == (rc, ""), (args, r)
            assert said in r.stderr, (args, r.stderr)
            assert not ran.exists(), args
        # The same through the build tree's slicectl runs it: the refusals were the cases'.
        ok = exec_in(ctld, SLICECTL, "web", *prog, stderr=subprocess.PIPE)
        assert ok.wait(timeout=30) == 0 and ran.exists(), ok.communicate()[1]
    finally:
        ctld.kill()
        node.kill()
        subprocess.run(["ip", "netns", "del", f"spxr{tag}"], check=False, capture_output=True)


def shim_stderr(env):
    """What a program that binds nothing writes on stderr with the shim loaded and env."""
    r = subprocess.run([sys.executable, "-c", "pass"], capture_output=True, text=True,
                       timeout=30, env={"PATH": os.environ["PATH"], "LD_PRELOAD": str(PRELOAD),
                                        **env})
    assert r.returncode == 0, r.stderr
    return r.stderr


def test_the_shim_says_when_it_cannot_work(tmp_path):
    """Loaded without SLICEPATH_SLICE, or with a slicectld it cannot reach, the shim says
    so once on the program's stderr, so that no program runs silently without it."""
    err = shim_stderr({})
    assert err == "slicepath: libslicectl-preload.so is loaded but SLICEPATH_SLICE is not " \
                  "set: bind() reserves nothing (slicectl exec SLICE -- PROGRAM sets it)\n", err
    nowhere = tmp_path / "none.sock"
    err = shim_stderr({"SLICEPATH_SLICE": "web", "SLICECTL_SOCKET": str(nowhere)})
    assert err == f"slicepath: slice web: slicectld cannot be reached on {nowhere} (No such " \
                  "file or directory): bind() of its ports will be refused\n", err
