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


def test_the_map_names_every_source_file():
    """docs/architecture.md's "Where things are" has a row for each folder of src/, which
    names each of the folder's .c files (a row that sends the reader to another page: that
    page names them), and names no file the folder lacks."""
    text = (REPO / "docs" / "architecture.md").read_text()
    table = text[text.index("## Where things are"):text.index("## One packet")]
    rows = dict(re.findall(r"^\| `(src/[a-z]+)/` \| [^|]* \| (.*) \|$", table, re.M))
    wrong = []
    for folder in sorted(p for p in (REPO / "src").iterdir() if p.is_dir()):
        row = rows.get(f"src/{folder.name}")
        if row is None:
            wrong.append(f"no row for src/{folder.name}/")
            continue
        in_row = set(re.findall(r"`([A-Za-z0-9_]+\.[ch])`", row))
        named = set(in_row)
        for page in re.findall(r"docs/([a-z]+\.md)", row):
            named |= set(re.findall(r"`([A-Za-z0-9_]+\.[ch])`",
                                    (REPO / "docs" / page).read_text()))
        wrong += [f"src/{folder.name}/{f.name} not named" for f in sorted(folder.glob("*.c"))
                  if f.name not in named]
        wrong += [f"src/{folder.name}/{n} named, absent" for n in sorted(in_row)
                  if not (folder / n).exists()]
    assert not wrong, ", ".join(wrong)


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
