# SPDX-License-Identifier: BSD-3-Clause
"""Every guide works as written: the runnable blocks of README.md and docs/guide-*.md run, in
file order, in one bash process per guide (state carries over; `set -e`), as root, from the
source tree's root, against the demo node that scripts/run.sh starts fresh for each guide,
with the guides' commands on PATH (scripts/link-commands.sh into a temporary directory).

The markers (HTML comments, invisible when rendered): a ```sh block whose preceding line is
`<!-- runnable -->` is run; a ```text block whose preceding line is `<!-- output -->`,
directly after a runnable block (only blank lines between), lists lines that must appear in
that block's stdout+stderr, in order, each a whole line where `...` stands for any text."""

import fcntl
import os
import pwd
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import needs_root
from spnode import DAEMON, REPO

pytestmark = needs_root

BUILD = DAEMON.resolve().parent
RUN_DIR = Path("/run/slicepath")
DAEMON_LOGS = (RUN_DIR / "slicepathd.log", RUN_DIR / "slicectld.log")
READY = "=== slicepathd counters"  # run.sh's first round of counters: both daemons are up
GUIDE_SECONDS = 120
# run.sh runs scripts/setup.sh, which builds: the shared tree builds under this lock only.
BUILD_LOCK = "/tmp/sp-build.lock"
# The demo node's paths (/run/slicepath, its file prefix, its sockets) are fixed: one at a time.
NODE_LOCK = "/tmp/sp-demo-node.lock"


@dataclass
class Block:
    number: int               # the guide's runnable blocks counted from 1
    line: int                 # of the ```sh fence, 1-based
    script: str
    expected: list            # the <!-- output --> block's lines, or []


def fence(line, lang):
    return line.strip() == "```" + lang


def blocks(path):
    """The runnable blocks of a Markdown file, each with its expected output."""
    lines = path.read_text().splitlines()
    found = []

    def body(start):
        """The lines of the fenced block opening at lines[start], and the index after it."""
        indent = len(lines[start]) - len(lines[start].lstrip())
        end = start + 1
        while end < len(lines) and not fence(lines[end], ""):
            end += 1
        assert end < len(lines), f"{path.name}:{start + 1}: the block is never closed"
        return [ln[indent:] for ln in lines[start + 1:end]], end + 1

    i = 0
    while i < len(lines):
        if lines[i].strip() == "<!-- runnable -->" and i + 1 < len(lines) and fence(lines[i + 1], "sh"):
            line = i + 2
            script, i = body(i + 1)
            j = i
            while j < len(lines) and not lines[j].strip():
                j += 1
            expected = []
            if j + 1 < len(lines) and lines[j].strip() == "<!-- output -->" and fence(lines[j + 1], "text"):
                expected, i = body(j + 1)
                expected = [e.rstrip() for e in expected if e.strip()]
            found.append(Block(len(found) + 1, line, "\n".join(script) + "\n", expected))
            continue
        i += 1
    return found


def guides():
    return [p for p in [REPO / "README.md", *sorted((REPO / "docs").glob("guide-*.md"))] if blocks(p)]


def missing(expected, output):
    """The first expected line not found, in order, among the output's lines (None: all were)."""
    out = [ln.rstrip() for ln in output.splitlines()]
    k = 0
    for e in expected:
        pattern = re.compile(".*".join(re.escape(part) for part in e.split("...")))
        while k < len(out) and not pattern.fullmatch(out[k]):
            k += 1
        if k == len(out):
            return e
        k += 1
    return None


class DemoNode:
    """scripts/run.sh in the background until stopped (SLICEPATH_RUN_SECONDS=0)."""

    def __init__(self, tmp, bindir):
        self.out = tmp / "run.sh.out"
        env = {**os.environ, "SLICEPATH_RUN_SECONDS": "0", "SLICEPATH_BUILD_DIR": str(BUILD),
               "SLICEPATH_BIN_DIR": str(bindir), "SLICEPATH_SKIP_APT": "1"}
        with open(BUILD_LOCK, "w") as lock, open(self.out, "w") as out:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.proc = subprocess.Popen(["bash", str(REPO / "scripts" / "run.sh")], env=env,
                                         stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
            # The lock is held while setup.sh builds; run.sh names what it starts after.
            self.wait_for("[run] starting:", 300)
        self.wait_for(READY, 120)

    def wait_for(self, text, seconds):
        deadline = time.monotonic() + seconds
        while text not in self.out.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"the demo node did not start (no {text!r}):\n{self.logs()}")
            time.sleep(0.2)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def logs(self):
        text = f"----- scripts/run.sh -----\n{self.out.read_text()}"
        for log in DAEMON_LOGS:
            if log.exists():
                text += f"----- {log} -----\n{log.read_text(errors='replace')}"
        return text


def script_for(guide_blocks, tmp):
    """One bash script for a guide: each block sourced with its output in a file of its own;
    `set -e` ends it at the first failing command, which the ERR trap names."""
    lines = ["set -eE", f"trap 'echo \"$LINENO: $BASH_COMMAND\" >{tmp}/failed' ERR"]
    for b in guide_blocks:
        path = tmp / f"block{b.number}.sh"
        path.write_text(b.script)
        lines.append(f"echo {b.number} >{tmp}/current")
        lines.append(f". {path} >{tmp}/block{b.number}.out 2>&1 </dev/null")
    return "\n".join(lines) + "\n"


def run_guide(script, env, out):
    """bash running a guide's script, in a session of its own: what its blocks left running
    in the background, or a block that never ends, is killed after. Its exit status, or
    "timed out"."""
    with open(out, "w") as f:
        proc = subprocess.Popen(["bash", "-c", script], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                                stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(GUIDE_SECONDS)
        except subprocess.TimeoutExpired:
            rc = "timed out"
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    return rc


@pytest.mark.parametrize("guide", guides(), ids=lambda p: p.name)
def test_guide_works_as_written(guide, tmp_path):
    guide_blocks = blocks(guide)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    # The guides write `sudo` for a reader who is not root; the test is root already.
    if not any((Path(d) / "sudo").exists() for d in os.environ["PATH"].split(":")):
        (bindir / "sudo").write_text('#!/bin/sh\nexec "$@"\n')
        (bindir / "sudo").chmod(0o755)
    env = {**os.environ, "PATH": f"{bindir}:{os.environ['PATH']}"}
    name = guide.relative_to(REPO)
    users = {u.pw_name for u in pwd.getpwall()}
    with open(NODE_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        node = DemoNode(tmp_path, bindir)
        try:
            # The guides run this tree's commands, not those some other tree linked.
            found = shutil.which("slicectl", path=env["PATH"])
            assert found and Path(found).resolve() == BUILD / "control" / "slicectl" / "slicectl", found
            rc = run_guide(script_for(guide_blocks, tmp_path), env, tmp_path / "bash.out")
            for b in guide_blocks:
                out_file = tmp_path / f"block{b.number}.out"
                if not out_file.exists():
                    break
                output = out_file.read_text(errors="replace")
                last = (tmp_path / "current").read_text().strip() == str(b.number)
                if last and rc != 0:
                    failed = tmp_path / "failed"
                    if rc == "timed out":
                        what = f"still running after {GUIDE_SECONDS} s"
                    elif failed.exists():
                        what = f"its line {failed.read_text().strip()} failed (exit status {rc})"
                    else:
                        what = f"bash exited with status {rc}"
                    pytest.fail(f"{name}, block {b.number} (line {b.line}): {what}; its output:\n"
                                f"{output}\n{(tmp_path / 'bash.out').read_text()}{node.logs()}")
                line = missing(b.expected, output)
                if line is not None:
                    pytest.fail(f"{name}, block {b.number} (line {b.line}): {line!r} is not in its output "
                                f"(in order):\n{b.script}----- output -----\n{output}\n{node.logs()}")
        finally:
            node.stop()
            # The accounts a guide made for its reader's slice owners go with the run.
            for user in {u.pw_name for u in pwd.getpwall()} - users:
                subprocess.run(["userdel", "--remove", user], capture_output=True)
