#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/test.sh — the whole test suite:
#
#   1. scripts/setup.sh (packages, build; -Dwerror=true when CI=true),
#   2. the cmocka unit tests: meson test -C build --print-errorlogs,
#   3. the integration tests (the real slicepathd over net_pcap vdevs):
#      /usr/bin/python3 -m pytest -v tests/integration,
#   4. a short run of each libFuzzer target (tests/fuzz/run.sh, clang), each
#      counted as one test: SLICEPATH_FUZZ_SECONDS per target (default 20, 0 skips),
#
# then prints "N passed, N failed" over all and exits non-zero if anything failed.
# Extra arguments go to pytest (e.g. scripts/test.sh -k arp).
# Environment: SLICEPATH_BUILD_DIR and those of scripts/setup.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${SLICEPATH_BUILD_DIR:-$ROOT/build}"
PY=/usr/bin/python3
started=$SECONDS

log() { printf '[test] %s\n' "$*"; }

if [ "$(id -u)" -ne 0 ]; then
	log "warning: not root: the integration tests that start slicepathd will be skipped"
fi

if ! bash "$ROOT/scripts/setup.sh"; then
	log "set-up or build failed (see above): no tests run"
	echo "0 passed, 1 failed"
	exit 1
fi

# ---- unit tests (cmocka, through meson)
log "unit tests: meson test -C $BUILD_DIR --print-errorlogs"
unit_rc=0
meson test -C "$BUILD_DIR" --print-errorlogs || unit_rc=$?

# meson writes one JSON object per test to testlog.json.
read -r unit_pass unit_fail < <("$PY" - "$BUILD_DIR/meson-logs/testlog.json" <<'EOF'
import json, sys
ok = bad = 0
try:
    for line in open(sys.argv[1]):
        if not line.strip():
            continue
        r = json.loads(line).get("result", "")
        if r in ("OK", "EXPECTEDFAIL"):
            ok += 1
        elif r != "SKIP":
            bad += 1
except FileNotFoundError:
    pass
print(ok, bad)
EOF
)
if [ "$unit_rc" -ne 0 ] && [ "$unit_fail" -eq 0 ]; then
	unit_fail=1  # meson itself failed (e.g. a test did not build)
fi

# ---- integration tests (pytest + scapy, the real daemon)
log "integration tests: $PY -m pytest -v tests/integration"
junit="$BUILD_DIR/integration-junit.xml"
rm -f "$junit"
it_rc=0
SLICEPATHD="$BUILD_DIR/slicepathd" PYTHONDONTWRITEBYTECODE=1 \
	"$PY" -m pytest -v -rfEs --junitxml="$junit" tests/integration "$@" \
	|| it_rc=$?

read -r it_pass it_fail < <("$PY" - "$junit" <<'EOF'
import sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except (FileNotFoundError, ET.ParseError):
    print(0, 0)
    sys.exit()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
t = f = e = s = 0
for su in suites:
    t += int(su.get("tests", 0))
    f += int(su.get("failures", 0))
    e += int(su.get("errors", 0))
    s += int(su.get("skipped", 0))
print(t - f - e - s, f + e)
EOF
)
# pytest exit 5 = no tests collected: treat as a failure too
if [ "$it_rc" -ne 0 ] && [ "$it_fail" -eq 0 ]; then
	it_fail=1
fi

# ---- fuzzing (libFuzzer + ASan/UBSan), a short run per parser
fuzz_pass=0 fuzz_fail=0
fuzz_seconds="${SLICEPATH_FUZZ_SECONDS:-20}"
if [ "$fuzz_seconds" -gt 0 ]; then
	for target in config decap arp ipv4 i3 dpi rpc ctld genspec hslice tap preload etcd; do
		log "fuzz: $target for ${fuzz_seconds}s"
		if FUZZ_SECONDS="$fuzz_seconds" FUZZ_BUILD_DIR="$BUILD_DIR/fuzz" \
			sh "$ROOT/tests/fuzz/run.sh" "$target"; then
			fuzz_pass=$((fuzz_pass + 1))
		else
			fuzz_fail=$((fuzz_fail + 1))
		fi
	done
fi

passed=$((unit_pass + it_pass + fuzz_pass))
failed=$((unit_fail + it_fail + fuzz_fail))
log "unit: $unit_pass passed, $unit_fail failed; integration: $it_pass passed, $it_fail failed;" \
	"fuzz: $fuzz_pass passed, $fuzz_fail failed ($((SECONDS - started)) s)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
