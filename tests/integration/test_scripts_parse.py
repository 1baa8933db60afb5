# SPDX-License-Identifier: BSD-3-Clause
"""Every shell script of the tree parses: a benchmark or a set-up step that runs for minutes
before its shell reaches a broken line (bash reads a script as it goes) fails here at once.
Each is read by the shell its first line names (`bash -n`, `sh -n`: dash)."""

import subprocess

import pytest

from spnode import REPO

SHELLS = {"#!/bin/sh": "sh", "#!/usr/bin/env sh": "sh", "#!/bin/bash": "bash",
          "#!/usr/bin/env bash": "bash"}


def scripts():
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True,
                             check=True).stdout.split()
    found = []
    for name in tracked:
        path = REPO / name
        if not path.is_file():
            continue
        with open(path, "rb") as f:
            first = f.readline().decode(errors="replace").strip()
        if first in SHELLS:
            found.append((name, SHELLS[first]))
        elif name.endswith(".sh") and not first.startswith("#!"):
            found.append((name, "bash"))  # sourced by bash scripts (tools/bench-memory.sh)
    return found


def test_the_tree_has_shell_scripts():
    names = [name for name, _ in scripts()]
    assert "tools/bench-pipeline.sh" in names and "scripts/setup.sh" in names, names
    assert "tools/bench-memory.sh" in names, names


@pytest.mark.parametrize("name,shell", scripts())
def test_parses(name, shell):
    r = subprocess.run([shell, "-n", str(REPO / name)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
