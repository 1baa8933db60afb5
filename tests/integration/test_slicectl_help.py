# SPDX-License-Identifier: BSD-3-Clause
"""slicectl's help where a person looks for it: `help`, `--help` and `-h` in place of an
object, a command or top's and stats' arguments print the usage on stdout and exit 0,
with no daemon to ask; and `q` quits `slicectl top` on a terminal (tmux)."""

import shutil
import subprocess
import time

import pytest

from conftest import needs_root
from spnode import SLICECTL

NO_DAEMON = "/nonexistent/slicectl.sock"  # help must not need one


def helped(*args):
    r = subprocess.run([str(SLICECTL), "-s", NO_DAEMON, *args], capture_output=True, text=True,
                       timeout=10)
    assert (r.returncode, r.stderr) == (0, ""), (args, r)
    return r.stdout


@pytest.mark.parametrize("asked", ["help", "--help", "-h"])
def test_slicectl_help_lists_objects_and_watch_options(asked):
    out = helped(asked)
    assert out.startswith("usage: slicectl ")
    assert "stats [SLICE] [--interval SECONDS] [--count N]" in out
    assert "top [--interval SECONDS] [SLICE...]" in out


@pytest.mark.parametrize("asked", ["help", "--help", "-h"])
def test_object_help_lists_commands_and_their_keys(asked):
    out = helped("slice", asked)
    create = next(line for line in out.splitlines() if "slicectl slice create" in line)
    for key in ("codeopt", "buffers", "bandwidth", "inbound", "netns NS", "nat PORTS"):
        assert key in create, (key, create)
    assert "slicectl endpoint reserve SLICE port PORT" in helped("endpoint", asked)


@pytest.mark.parametrize("asked", ["help", "--help"])
def test_stats_and_top_help(asked):
    assert helped("stats", asked).startswith(
        "usage: slicectl stats [SLICE] [--interval SECONDS] [--count N]")
    top = helped("top", asked)
    assert top.startswith("usage: slicectl top [--interval SECONDS] [SLICE...]")
    assert "q or Ctrl-C quits" in top


@needs_root
@pytest.mark.skipif(shutil.which("tmux") is None, reason="no tmux here")
def test_q_quits_top(ctl, tmp_path):
    ctl.start()
    session, done = f"sphelp{ctl.node.prefix[-8:]}", tmp_path / "top.rc"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "40",
                    f"{SLICECTL} -s {ctl.ctld.socket} top --interval 0.5; echo $? > {done}; "
                    "sleep 30"], check=True)
    try:
        deadline = time.monotonic() + 10
        while "slicectl top" not in subprocess.run(
                ["tmux", "capture-pane", "-p", "-t", session], capture_output=True,
                text=True).stdout:
            assert time.monotonic() < deadline, "top did not draw its screen"
            time.sleep(0.1)
        time.sleep(1)  # a refresh or two: it keeps running until told
        assert not done.exists()
        subprocess.run(["tmux", "send-keys", "-t", session, "q"], check=True)
        deadline = time.monotonic() + 3
        while not done.exists() or done.read_text() == "":
            assert time.monotonic() < deadline, "q did not quit top"
            time.sleep(0.1)
        assert done.read_text().strip() == "0"
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session])
    ctl.stop()
