# SPDX-License-Identifier: BSD-3-Clause
"""systemd's readiness protocol: slicepathd and slicectld send READY=1 to $NOTIFY_SOCKET
once they serve (slicepathd forwarding, slicectld on its socket) and STOPPING=1 when told to
stop; the units (Type=notify) pass systemd-analyze verify where systemd is there."""

import shutil
import signal
import socket
import subprocess

import pytest

from conftest import needs_root
from spnode import BUILD

pytestmark = needs_root


@pytest.fixture
def notify(tmp_path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(str(tmp_path / "notify"))
    s.settimeout(20)
    yield s, str(tmp_path / "notify")
    s.close()


def test_daemons_say_ready_and_stopping(ctl, notify, monkeypatch):
    sock, path = notify
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    ctl.node.start()
    assert sock.recv(256) == b"READY=1\nSTATUS=forwarding; steering: p0 one queue, p1 one queue"
    assert "slicepathd: forwarding" in ctl.node.log()
    ctl.ctld.start()
    assert sock.recv(256) == b"READY=1\nSTATUS=serving"
    ctl.ctld.proc.send_signal(signal.SIGTERM)
    assert sock.recv(256) == b"STOPPING=1"
    ctl.ctld.proc.wait(timeout=10)
    ctl.node.proc.send_signal(signal.SIGTERM)
    assert sock.recv(256) == b"STOPPING=1"
    ctl.node.proc.wait(timeout=15)


def test_units_verify():
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("no systemd-analyze here (no systemd): the units were not checked")
    # As meson configured them for this build's prefix.
    units = [str(BUILD / n) for n in ("slicepathd.service", "slicectld.service")]
    r = subprocess.run([tool, "verify", *units], capture_output=True, text=True, timeout=60)
    # The binaries are where `meson install` puts them, not necessarily here.
    problems = [line for line in (r.stdout + r.stderr).splitlines()
                if line.strip() and "is not executable" not in line
                and "No such file or directory" not in line and "Command " not in line]
    assert not problems, "\n".join(problems)
