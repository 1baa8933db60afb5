# SPDX-License-Identifier: BSD-3-Clause
"""pytest fixtures for the slicepathd integration tests (helpers live in spnode.py)."""

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import spnode  # noqa: E402

# DPDK needs root here (its runtime directory, /var/run/dpdk, and the vdevs).
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (DPDK runtime directory)")


@pytest.fixture
def node(tmp_path):
    """An empty Node in the test's own directory; the daemon is killed if a test leaves it up."""
    n = spnode.Node(tmp_path)
    yield n
    n.kill()


@pytest.fixture
def std(tmp_path):
    """The standard node (ports p0/p1/p2, slices alpha and beta: see spnode.Standard)."""
    s = spnode.Standard(tmp_path)
    yield s
    s.node.kill()


@pytest.fixture
def ctl(tmp_path, request):
    """slicepathd with slicectld in front (ctlnode.CtlNode), named after the test module,
    killed after the test; a module's CTLD_ARGS are slicectld's extra arguments."""
    import ctlnode  # noqa: E402 (after the path is set)

    tag = request.module.__name__.removeprefix("test_")[:10]
    c = ctlnode.CtlNode(tmp_path, tag, *getattr(request.module, "CTLD_ARGS", ()))
    yield c
    c.kill()


@pytest.fixture(scope="session")
def users():
    """Two slice owners and an operator-group member (spnode.LocalUsers), for the session."""
    if os.geteuid() != 0:
        pytest.skip("needs root to add test users")
    u = spnode.LocalUsers()
    yield u
    u.remove()


# A sanitizer's report: UBSan's "file:line:col: runtime error: ...", ASan's and LSan's
# "==PID==ERROR: AddressSanitizer: ..." (or LeakSanitizer).
SANITIZER_REPORT = re.compile(r"^\S+: runtime error: |^==\d+==ERROR: \w+Sanitizer", re.M)


@pytest.fixture(autouse=True)
def sanitizer_reports(tmp_path):
    """Under scripts/sanitize.sh ($SLICEPATH_SANITIZER_LOGS set) a sanitizer's report is
    an error of the test that ran the process, whether or not the test reads its log or
    sees it exit (a daemon stopped by SIGTERM or killed in a teardown): ASan writes its
    reports to files in that directory (log_path), each then marked .reported; UBSan
    (GCC's ignores log_path) to stderr, which the daemons' logs (*.log under tmp_path) hold."""
    logs = os.environ.get("SLICEPATH_SANITIZER_LOGS")
    yield
    if not logs:
        return
    found = []
    for f in sorted(tmp_path.rglob("*.log")):
        text = f.read_text(errors="replace")
        if SANITIZER_REPORT.search(text):
            found.append((f, text))
    for f in sorted(Path(logs).iterdir()):
        if f.suffix != ".reported":
            found.append((f, f.read_text(errors="replace")))
            f.rename(f.with_name(f.name + ".reported"))
    for f, text in found:
        print(f"----- sanitizer report in {f}:\n{text}")
    if found:
        pytest.fail(f"sanitizer reports in {', '.join(str(f) for f, _ in found)}", pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def session_leftovers():
    """DPDK processes leave /var/run/dpdk/<file-prefix> behind, and on hugepages their
    <file-prefix>map_N files too (which keep the pages taken); a killed slicectld leaves
    its socket in /tmp, as does a memif server. The session removes those of its own
    prefixes (spnode.unique_prefix) at the end, whatever stopped them."""
    yield
    own = f"sp-test-{os.getpid()}-*"
    for d in Path("/var/run/dpdk").glob(own):
        shutil.rmtree(d, ignore_errors=True)
    for f in Path("/tmp").glob(own):
        if f.is_socket():
            f.unlink(missing_ok=True)
    with open("/proc/mounts") as mounts:
        huge_dirs = [line.split()[1] for line in mounts if line.split()[2] == "hugetlbfs"]
    for d in huge_dirs:
        for f in Path(d).glob(own):
            f.unlink(missing_ok=True)
