# SPDX-License-Identifier: BSD-3-Clause
"""Packaging (debian/): the tree builds into slicepath and slicepath-dev .debs holding the
daemons, tools, units, config, headers, pkg-config file and man pages; they install with
dpkg, the installed daemon accepts the installed config, and where systemd runs the units
start both daemons and slicectl reaches them. Removed again at the end."""

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import needs_root
from spnode import REPO

pytestmark = needs_root

WANT = {
    "slicepath": ["./usr/sbin/slicepathd", "./usr/sbin/slicectld", "./usr/bin/slicectl",
                  "./usr/bin/i3-slowpath", "./usr/bin/slicepath-gen",
                  "./usr/bin/slicepath-plot", "./usr/share/slicepath/tools/benchlib/plot.py",
                  "./lib/systemd/system/slicepathd.service",
                  "./lib/systemd/system/slicectld.service",
                  "./etc/slicepath/slicepathd.json", "./usr/share/man/man1/slicectl.1.gz",
                  "./usr/share/man/man8/slicectld.8.gz",
                  "./usr/share/man/man8/slicepathd.8.gz",
                  "./usr/share/man/man1/i3-slowpath.1.gz", "./usr/share/man/man1/slicepath-gen.1.gz",
                  "./usr/share/man/man1/slicepath-plot.1.gz", "./usr/share/doc/slicepath/running.md"],
    "slicepath-dev": ["./usr/include/slicepath/codeopt.h", "./usr/include/slicepath/bpf.h",
                      "./usr/include/slicepath/ctl.h", "./usr/include/slicepath/methods.h",
                      "./usr/include/slicepath/counters.h",
                      "./usr/lib/x86_64-linux-gnu/pkgconfig/libslicectl.pc",
                      "./usr/lib/x86_64-linux-gnu/pkgconfig/slicepath-codeopt.pc"],
}


def run(*cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    print(f"$ {' '.join(map(str, cmd))}\n{r.stdout[-3000:]}{r.stderr[-3000:]}")
    return r


@pytest.mark.skipif(shutil.which("dpkg-buildpackage") is None, reason="no dpkg-buildpackage")
def test_debs_build_install_and_run(tmp_path):
    src = tmp_path / "slicepath"
    files = run("git", "-C", str(REPO), "ls-files", "-co", "--exclude-standard").stdout.split()
    for f in files:
        if (REPO / f).is_file():
            (src / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / f, src / f)
    r = run("dpkg-buildpackage", "-b", "-us", "-uc", cwd=src)
    assert r.returncode == 0, r.stderr[-2000:]
    debs = {p.name.split("_")[0]: p for p in tmp_path.glob("*.deb")}
    for pkg, paths in WANT.items():
        listing = [line.split(" -> ")[0] for line in
                   run("dpkg-deb", "-c", str(debs[pkg])).stdout.splitlines()]
        for path in paths:
            assert any(line.endswith(f" {path}") for line in listing), f"{pkg} lacks {path}"
    # Removal stops the daemons, an upgrade leaves them running, purge forgets the units
    # (dh_installsystemd's snippets; tests/systemd-vm runs them under systemd).
    control = tmp_path / "control"
    assert run("dpkg-deb", "-e", str(debs["slicepath"]), str(control)).returncode == 0
    prerm = (control / "prerm").read_text()
    assert "deb-systemd-invoke stop 'slicectld.service' 'slicepathd.service'" in prerm
    assert '[ "$1" = remove ]' in prerm, prerm
    assert "restart" not in (control / "postinst").read_text()
    preinst = control / "preinst"
    assert not preinst.exists() or "deb-systemd-invoke stop" not in preinst.read_text()
    assert "deb-systemd-helper purge 'slicectld.service' 'slicepathd.service'" in \
        (control / "postrm").read_text()
    installed = False
    had_group = run("getent", "group", "slicepath").returncode == 0
    try:
        r = run("dpkg", "-i", str(debs["slicepath"]), str(debs["slicepath-dev"]))
        assert r.returncode == 0, r.stderr
        installed = True
        assert run("/usr/sbin/slicepathd", "--version").stdout.startswith("slicepathd 0.1.0")
        r = run("/usr/sbin/slicepathd", "-c", "/etc/slicepath/slicepathd.json",
                "--check-config")
        assert r.returncode == 0 and "is valid" in r.stdout + r.stderr
        assert run("pkg-config", "--modversion", "libslicectl").stdout.strip() == "0.1.0"
        assert run("getent", "group", "slicepath").returncode == 0
        # The installed plot command finds its modules and says which socket it cannot reach.
        r = run("/usr/bin/slicepath-plot", "-s", "/nonexistent.sock", "--seconds", "1")
        assert r.returncode == 1 and "/nonexistent.sock" in r.stderr, r.stderr
        assert "\n.TH SLICEPATHD 8 " in run("zcat", "/usr/share/man/man8/slicepathd.8.gz").stdout
        if not Path("/run/systemd/system").is_dir():
            pytest.skip("packages built and installed; no systemd running here, so the "
                        "units were not started")
        started = run("systemctl", "start", "slicepathd", "slicectld")
        assert started.returncode == 0, run("journalctl", "-u", "slicepathd", "-u",
                                            "slicectld", "-n", "40", "--no-pager").stdout
        assert run("systemctl", "is-active", "slicepathd", "slicectld").stdout.split() == \
            ["active", "active"]
        r = run("/usr/bin/slicectl", "iface")
        assert r.returncode == 0 and "p0" in r.stdout
        r = run("/usr/bin/slicepath-plot", "-o", str(tmp_path / "node.png"), "--seconds", "2")
        assert r.returncode == 0 and (tmp_path / "node.png").stat().st_size > 0, r.stderr
    finally:
        if installed:
            if Path("/run/systemd/system").is_dir():
                run("systemctl", "stop", "slicectld", "slicepathd")
            run("dpkg", "--purge", "slicepath-dev", "slicepath")
            # The group postinst made (one there before the test stays).
            if not had_group:
                run("delgroup", "--system", "slicepath")
