# SPDX-License-Identifier: BSD-3-Clause
"""The benchmarks run as a server runs slicepathd: on hugepages when enough are free, else on
4 KB pages with a warning that the figures are not comparable (tools/bench-memory.sh for the
shell benchmarks, benchlib.dut.eal_memory for slicepath-bench); BENCH_EAL overrides both.
/proc/meminfo is stood in for by BENCH_MEMINFO."""

import os
import subprocess
import sys

import pytest

from spnode import REPO


def meminfo(tmp_path, free_pages):
    path = tmp_path / "meminfo"
    path.write_text(f"MemTotal:       24000000 kB\nHugePages_Total:    2048\n"
                    f"HugePages_Free:    {free_pages:5}\nHugepagesize:       2048 kB\n")
    return path


def shell(tmp_path, free_pages, mb, **env):
    script = f'. tools/bench-memory.sh; bench_memory {mb}; echo "${{EAL_MEM[*]}}"; echo "$MEMORY"'
    r = subprocess.run(["bash", "-c", script], cwd=REPO, capture_output=True, text=True,
                       env={**os.environ, "BENCH_MEMINFO": str(meminfo(tmp_path, free_pages)), **env})
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines(), r.stderr


def python(tmp_path, free_pages, **env):
    script = "import benchlib.dut as d; print(' '.join(d.EAL)); print(d.MEMORY)"
    r = subprocess.run([sys.executable, "-c", script], cwd=REPO / "tools", capture_output=True,
                       text=True,
                       env={**os.environ, "BENCH_MEMINFO": str(meminfo(tmp_path, free_pages)), **env})
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


@pytest.fixture(autouse=True)
def no_override(monkeypatch):
    monkeypatch.delenv("BENCH_EAL", raising=False)


def test_shell_benchmarks_take_hugepages_when_enough_are_free(tmp_path):
    (eal, memory), err = shell(tmp_path, 450, 900)
    assert eal == "-m 900" and memory == "memory: hugepages; EAL -m 900" and err == ""


def test_shell_benchmarks_say_4k_pages_are_not_comparable(tmp_path):
    (eal, memory), err = shell(tmp_path, 449, 900)
    assert eal == "--no-huge -m 900"
    assert memory.startswith("memory: 4 KB pages (--no-huge): not comparable"), memory
    assert "898 MB of hugepages free, 900 needed: running --no-huge" in err
    assert "NOT comparable with hugepage runs" in err


def test_shell_benchmarks_take_bench_eal_as_it_is(tmp_path):
    (eal, memory), err = shell(tmp_path, 0, 900, BENCH_EAL="-m 700 --socket-mem 700")
    assert eal == "-m 700 --socket-mem 700" and memory.startswith("memory: hugepages") and err == ""


def test_slicepath_bench_takes_hugepages_for_the_node_and_the_generator_at_once(tmp_path):
    eal, memory = python(tmp_path, 512)
    assert eal == "-m 512 --huge-unlink --no-pci" and memory == "memory: hugepages"
    eal, memory = python(tmp_path, 511)
    assert eal == "--no-huge -m 512 --no-pci"
    assert memory.startswith("memory: 4 KB pages (--no-huge): figures NOT comparable"), memory
    eal, memory = python(tmp_path, 0, BENCH_EAL="--no-huge -m 1024")
    assert eal == "--no-huge -m 1024 --no-pci" and "4 KB pages" in memory
