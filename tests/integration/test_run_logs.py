# SPDX-License-Identifier: BSD-3-Clause
"""scripts/run.sh's wait for a daemon's log line (scripts/daemon-log.sh): a second run does
not take the previous run's line for the new daemon's, and a daemon that exits is not
waited for."""

import subprocess
import time

from spnode import REPO

LINE = "slicectld: connected to slicepathd"


def run(log, command, seconds=10):
    """start_logged LOG COMMAND, then wait_for_line for LINE: (status, seconds taken)."""
    script = (f'. "{REPO}/scripts/daemon-log.sh"\n'
              f'start_logged "$1" {command}\n'
              'pid=$!\n'
              f'wait_for_line "$1" "connected to slicepathd" "$pid" {seconds}\n'
              'rc=$?\n'
              'kill "$pid" 2>/dev/null\n'
              'exit $rc\n')
    start = time.monotonic()
    r = subprocess.run(["bash", "-c", script, "wait", str(log)], timeout=seconds + 10)
    return r.returncode, time.monotonic() - start


def test_the_previous_runs_line_is_not_taken(tmp_path):
    log = tmp_path / "slicectld.log"
    log.write_text(f"{LINE}\nslicectld: stopped\n")
    rc, _ = run(log, "sleep 30", seconds=1)
    assert rc == 1
    assert log.read_text() == ""


def test_the_new_daemons_line_is_found(tmp_path):
    log = tmp_path / "slicectld.log"
    log.write_text(f"{LINE}\n")
    rc, _ = run(log, f"sh -c 'sleep 0.5; echo \"{LINE} (new)\"; exec sleep 30'")
    assert rc == 0
    assert log.read_text() == f"{LINE} (new)\n"


def test_a_daemon_that_exits_is_not_waited_for(tmp_path):
    log = tmp_path / "slicectld.log"
    rc, took = run(log, "sh -c 'echo cannot bind >&2; exit 1'", seconds=30)
    assert rc == 1
    assert took < 10
    assert log.read_text() == "cannot bind\n"
