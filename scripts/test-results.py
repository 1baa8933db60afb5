#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""scripts/test-results.py KIND FILE SKIPS LABEL: one stage's results, for scripts/test.sh.

KIND meson: FILE is meson's testlog.json; junit: pytest's --junitxml file. Prints
"PASSED FAILED SKIPPED" and appends to SKIPS one line per skipped test: LABEL, the test
and why (pytest's skip message; meson has none beyond its SKIP, exit status 77; a case a
passing cmocka executable skipped inside is listed with the line it printed before). A
missing file counts nothing: test.sh then goes by the stage's exit status.
"""

import json
import re
import sys
import xml.etree.ElementTree as ET


# cmocka's line for a test that called skip(); the summary's "[  SKIPPED ] 1 test(s),
# listed below:" goes to stderr.
CMOCKA_SKIP = re.compile(r"^\[  SKIPPED \] (?!\d+ test\(s\))(.+)$")


def cmocka_skips(name, stdout):
    """The cases a passing cmocka executable skipped inside, each with the line it printed
    before (a test says why there: test_classbench's public sets, for one)."""
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        m = CMOCKA_SKIP.match(line)
        if m:
            why = lines[i - 1].strip() if i > 0 and not lines[i - 1].startswith("[") else ""
            yield f"{name}: {m[1]}", why or "cmocka skip()"


def meson(path):
    ok = bad = 0
    skips = []
    for line in open(path):
        if not line.strip():
            continue
        t = json.loads(line)
        r = t.get("result", "")
        if r in ("OK", "EXPECTEDFAIL"):
            ok += 1
            skips += cmocka_skips(t.get("name", "?"), t.get("stdout") or "")
        elif r == "SKIP":
            skips.append((t.get("name", "?"), "meson: SKIP (exit status 77)"))
        else:
            bad += 1
    return ok, bad, skips


def junit(path):
    ok = bad = 0
    skips = []
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        if case.find("failure") is not None or case.find("error") is not None:
            bad += 1
        elif (s := case.find("skipped")) is not None:
            skips.append((name, s.get("message", "").removeprefix("Skipped: ") or "no reason"))
        else:
            ok += 1
    return ok, bad, skips


def main():
    kind, path, skip_file, label = sys.argv[1:5]
    try:
        ok, bad, skips = {"meson": meson, "junit": junit}[kind](path)
    except (FileNotFoundError, ET.ParseError, json.JSONDecodeError):
        ok, bad, skips = 0, 0, []
    with open(skip_file, "a") as f:
        for name, why in skips:
            f.write(f"{label}: {name}: {why}\n")
    print(ok, bad, len(skips))


if __name__ == "__main__":
    main()
