# SPDX-License-Identifier: BSD-3-Clause
"""The guides and references stay in step with the tree: every link to a local file
resolves, and every file of the tree a document names in backticks (codeopts/..., tools/...,
config/..., scripts/..., control/..., include/..., tests/..., docs/...) is there."""

import re

import pytest

from spnode import REPO

DOCS = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")])
TOP = ("codeopts/", "tools/", "config/", "scripts/", "control/", "include/", "tests/", "docs/",
       "src/", "debian/")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_links_and_paths_exist(doc):
    text = doc.read_text()
    missing = []
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
        if not (doc.parent / target).exists():
            missing.append(f"link {target}")
    for path in re.findall(r"`([A-Za-z0-9_./-]+)`", text):
        path = path.rstrip("/.")
        if path.startswith(TOP) and "*" not in path and not (REPO / path).exists():
            missing.append(f"path {path}")
    assert not missing, f"{doc.name}: " + ", ".join(missing)
