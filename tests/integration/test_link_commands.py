# SPDX-License-Identifier: BSD-3-Clause
"""The README's set-up leaves the guides' commands on PATH: scripts/link-commands.sh (which
scripts/setup.sh runs) links each bare name to this tree's build, replaces a link into
another tree and keeps a program installed there."""

import os
import shutil
import subprocess

from spnode import DAEMON, REPO

BUILD = DAEMON.parent
COMMANDS = {
    "slicepathd": BUILD / "slicepathd",
    "slicectld": BUILD / "control" / "slicectld" / "slicectld",
    "slicectl": BUILD / "control" / "slicectl" / "slicectl",
    "slicepath-gen": BUILD / "tools" / "gen" / "slicepath-gen",
    "i3-slowpath": BUILD / "codeopts" / "i3" / "slowpath" / "i3-slowpath",
    "slicepath-bench": REPO / "tools" / "slicepath-bench",
    "slicepath-plot": REPO / "tools" / "slicepath-plot",
}


def link(dest):
    return subprocess.run(["bash", str(REPO / "scripts" / "link-commands.sh"), str(dest)],
                          env={**os.environ, "SLICEPATH_BUILD_DIR": str(BUILD)},
                          check=True, capture_output=True, text=True).stdout


def test_bare_names_run_the_trees_builds(tmp_path):
    (tmp_path / "slicectl").symlink_to("/nonexistent/other-tree/slicectl")
    link(tmp_path)
    path = f"{tmp_path}:/usr/bin:/bin"
    for name, built in COMMANDS.items():
        found = shutil.which(name, path=path)
        assert found and os.path.realpath(found) == str(built.resolve()), (name, found)
    # What a guide runs: the bare names, each answering its --help.
    for name in ("slicectl", "slicepath-plot", "slicepath-bench"):
        r = subprocess.run([name, "--help"], env={"PATH": path}, capture_output=True, text=True)
        assert r.returncode == 0 and f"usage: {name}" in r.stdout, (name, r.stdout, r.stderr)


def test_an_installed_program_is_kept(tmp_path):
    installed = tmp_path / "slicectl"
    installed.write_text("#!/bin/sh\necho installed\n")
    out = link(tmp_path)
    assert not installed.is_symlink()
    assert installed.read_text() == "#!/bin/sh\necho installed\n"
    assert f"kept {installed} (not a link: an installed program)" in out
    assert (tmp_path / "slicectld").resolve() == COMMANDS["slicectld"].resolve()
