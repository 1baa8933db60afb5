# SPDX-License-Identifier: BSD-3-Clause
"""A fresh machine has every program the suite, the scripts and the tools run: each name
they run (found here in their Python and shell code) that is a program outside the tree is
listed in scripts/programs.list with its Debian package, and each listed program resolves
to a file of that package, which scripts/setup.sh installs (itself or as a dependency) or
Debian 12 ships in every install. A development machine with extra packages cannot hide a
missing install step: the package's owner is asked (dpkg -S), not the machine's PATH."""

import ast
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from spnode import DAEMON, REPO

PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
LIST = REPO / "scripts" / "programs.list"
PY = (b"#!/usr/bin/env python", b"#!/usr/bin/python")
SH = (b"#!/bin/sh", b"#!/bin/bash", b"#!/usr/bin/env bash", b"#!/usr/bin/env sh")
# A word that starts a shell command: at a line's start, after ; & | ( ` $( and after the
# words that run the command following them (SH_PREFIX, made a separator first).
SH_COMMAND = re.compile(r"(?:^|[;&|(`!]|\$\()\s*(?:[A-Z_]+=\S*\s+)*([A-Za-z][\w.+-]*)"
                        r"(?![\w=)])(?!\s*=)")
SH_PREFIX = re.compile(r"\b(?:then|do|else|exec|sudo|time|command -v|set --)\s")
# Names the scan finds that are no program run here.
NOT_RUN = {"write": "a word of an awk table heading in tools/bench-lookup.sh"}

pytestmark = pytest.mark.skipif(shutil.which("dpkg") is None, reason="not a Debian system")


def listed():
    progs = {}
    for line in LIST.read_text().splitlines():
        line = line.split("#")[0].split()
        if line:
            assert len(line) == 2, f"{LIST.name}: want 'program package': {line}"
            progs[line[0]] = line[1]
    return progs


def sources():
    for top in ("tests", "scripts", "tools"):
        for p in sorted((REPO / top).rglob("*")):
            if not p.is_file() or "corpus" in p.parts:
                continue
            head = p.read_bytes()[:32]
            if p.suffix == ".py" or head.startswith(PY):
                yield p, py_names
            elif p.suffix == ".sh" or head.startswith(SH):
                yield p, sh_names


def py_names(text):
    """The first string of every list or tuple (an argv), the strings given to which(),
    spawn/exec/run helpers, and absolute paths of programs."""
    def string(n):
        return n.value if isinstance(n, ast.Constant) and isinstance(n.value, str) else None

    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts and string(node.elts[0]):
            yield string(node.elts[0])
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in ("which", "spawn", "run", "Popen", "check_output", "retried") or \
                    "exec" in name:
                yield from (string(a).split()[0] for a in node.args
                            if string(a) and string(a).split())
        elif string(node) and re.fullmatch(r"/(usr/)?s?bin/[\w.+-]+", string(node)):
            yield string(node)


def sh_names(text):
    in_array = False  # the lines of a multi-line array (setup.sh's package names) run nothing
    for line in text.splitlines():
        line = re.sub(r"(^|\s)#.*", "", line)
        if in_array or re.search(r"=\($", line.rstrip()):
            in_array = line.strip() != ")"
            continue
        yield from SH_COMMAND.findall(SH_PREFIX.sub("; ", line))


def owners(exes):
    """{exe: the package holding it, or None}; dpkg knows some files by their /usr-less
    name (usrmerge) or by where a link points. One dpkg -S for all: each call is slow."""
    tries = {exe: (exe, os.path.realpath(exe), re.sub(r"^/usr/", "/", exe)) for exe in exes}
    r = subprocess.run(["dpkg", "-S", *{p for t in tries.values() for p in t}],
                       capture_output=True, text=True)
    holder = {}
    for line in r.stdout.splitlines():
        if not line.startswith("diversion by"):
            pkgs, _, path = line.partition(": ")
            holder[path] = pkgs.split(",")[0].split(":")[0]
    return {exe: next((holder[p] for p in t if p in holder), None) for exe, t in tries.items()}


def field(pkg, name):
    return subprocess.run(["dpkg-query", "-W", "-f=${" + name + "}", pkg],
                          capture_output=True, text=True).stdout


def in_every_install(pkg):
    return field(pkg, "Priority") == "required" or field(pkg, "Essential") == "yes"


def setup_installs():
    """scripts/setup.sh's packages and everything they depend on."""
    text = (REPO / "scripts" / "setup.sh").read_text()
    body = re.search(r"^PACKAGES=\((.*?)^\)", text, re.M | re.S).group(1)
    pkgs = re.sub(r"#.*", "", body).split()
    r = subprocess.run(["apt-cache", "depends", "--recurse", "--no-recommends",
                        "--no-suggests", "--no-conflicts", "--no-breaks", "--no-replaces",
                        "--no-enhances", *pkgs], capture_output=True, text=True, check=True)
    return set(pkgs) | {w.strip("<>") for w in re.findall(r"^\s*(?:\|?\w*Depends: )?(\S+)$",
                                                        r.stdout, re.M)}


def of_the_tree(exe):
    """A link of scripts/link-commands.sh: the tree's own program, on PATH."""
    real = Path(os.path.realpath(exe))
    return any(real.is_relative_to(d) for d in (REPO, DAEMON.parent.resolve()))


def test_every_program_run_is_listed():
    progs = listed()
    runs = {}
    for path, names in sources():
        for name in names(path.read_text(errors="replace")):
            runs.setdefault(os.path.basename(name), set()).add(str(path.relative_to(REPO)))
    # A name that is no program here is a word, or a program of the tree.
    exes = {name: shutil.which(name, path=PATH) for name in runs
            if name not in progs and name not in NOT_RUN}
    exes = {name: exe for name, exe in exes.items()
            if exe and not os.path.isdir(exe) and not of_the_tree(exe)}
    pkg = owners(exes.values())
    unlisted = [f"{name} ({pkg[exe]}; run by {', '.join(sorted(runs[name]))})"
                for name, exe in sorted(exes.items())
                if pkg[exe] is None or not in_every_install(pkg[exe])]
    assert not unlisted, f"run but not in {LIST.name}: " + "; ".join(unlisted)
    unused = sorted(set(progs) - set(runs))
    assert not unused, f"{LIST.name} lists programs nothing runs: {unused}"


def test_every_listed_program_comes_from_setup():
    installs = setup_installs()
    exes = {name: shutil.which(name, path=PATH) for name in listed()}
    holder = owners(exe for exe in exes.values() if exe)
    wrong = []
    for name, pkg in listed().items():
        exe = exes[name]
        if exe is None:
            wrong.append(f"{name}: not installed ({pkg} missing from scripts/setup.sh?)")
        elif holder[exe] != pkg:
            wrong.append(f"{name}: {exe} belongs to {holder[exe]}, not {pkg}")
        elif pkg not in installs and not in_every_install(pkg):
            wrong.append(f"{name}: {pkg} is neither installed by scripts/setup.sh nor in "
                         "every Debian install")
    assert not wrong, "; ".join(wrong)
