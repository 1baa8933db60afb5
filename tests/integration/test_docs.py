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


def test_every_page_is_installed():
    """The package installs every page of docs/ (the installed pages link to each other):
    docs/meson.build lists them all, and every page a listed page links to is listed."""
    listed = set(re.findall(r"'([^']+\.md)'", (REPO / "docs" / "meson.build").read_text()))
    pages = {p.name for p in (REPO / "docs").glob("*.md")}
    assert listed == pages, f"not installed: {sorted(pages - listed)}, " \
                            f"listed but absent: {sorted(listed - pages)}"
    for name in listed:
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)",
                                 (REPO / "docs" / name).read_text()):
            linked = (REPO / "docs" / target).resolve()
            if linked.parent == REPO / "docs":
                assert linked.name in listed, f"{name} links to {target}, not installed"
