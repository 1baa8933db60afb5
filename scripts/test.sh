#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/test.sh — the whole test suite:
#
#   1. scripts/setup.sh (packages, build; -Dwerror=true when CI=true),
#   2. the cmocka unit tests: meson test -C build --print-errorlogs,
#   3. the integration tests (the real slicepathd over net_pcap vdevs):
#      /usr/bin/python3 -m pytest -v tests/integration,
#   4. the sanitizer stage, scripts/sanitize.sh (build-asan/: unit tests and a subset of
#      the integration tests under ASan and UBSan; SLICEPATH_SANITIZE=0 skips it),
#   5. a short run of each libFuzzer target (tests/fuzz/run.sh, clang), each
#      counted as one test: SLICEPATH_FUZZ_SECONDS per target (default 20, 0 skips),
#
# then lists every skipped test with why, repeats what each fuzz target that found something
# printed, prints one line of counts per stage and,
# alone on the last line, "N passed, N failed, N skipped" over all; exits non-zero if
# anything failed. Extra arguments go to pytest (e.g. scripts/test.sh -k arp), in both
# integration runs.
# Environment: SLICEPATH_BUILD_DIR and those of scripts/setup.sh and scripts/sanitize.sh.
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
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

# Skipped tests, one "stage: test: why" a line, and what the failed fuzz targets printed:
# both listed at the end, where a log cut to its tail still shows them.
skips="$(mktemp)"
fuzz_found="$(mktemp)"
trap 'rm -f "$skips" "$fuzz_found"' EXIT

# count KIND FILE RC LABEL: "PASSED FAILED SKIPPED" of a stage's result file (meson's
# testlog.json or pytest's junit xml), its skips added to the list; a stage that
# failed (RC) with no failed test counted (it did not build, collected nothing) is one.
count() {
	local p f s
	read -r p f s < <("$PY" "$ROOT/scripts/test-results.py" "$1" "$2" "$skips" "$4")
	[ "$3" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	echo "$p $f $s"
}

# ---- unit tests (cmocka, through meson)
log "unit tests: meson test -C $BUILD_DIR --print-errorlogs"
unit_rc=0
meson test -C "$BUILD_DIR" --print-errorlogs || unit_rc=$?

read -r unit_pass unit_fail unit_skip < <(count meson "$BUILD_DIR/meson-logs/testlog.json" "$unit_rc" unit)

# ---- integration tests (pytest + scapy, the real daemon)
log "integration tests: $PY -m pytest -v tests/integration"
junit="$BUILD_DIR/integration-junit.xml"
rm -f "$junit"
it_rc=0
SLICEPATHD="$BUILD_DIR/slicepathd" PYTHONDONTWRITEBYTECODE=1 \
	"$PY" -m pytest -v -rfEs --junitxml="$junit" tests/integration "$@" \
	|| it_rc=$?

read -r it_pass it_fail it_skip < <(count junit "$junit" "$it_rc" integration)

# ---- sanitizer stage (build-asan/: ASan and UBSan)
san_pass=0 san_fail=0 san_skip=0
if [ "${SLICEPATH_SANITIZE:-1}" != 0 ]; then
	san_dir="${SLICEPATH_ASAN_BUILD_DIR:-$ROOT/build-asan}"
	san_started=$SECONDS
	san_rc=0
	SLICEPATH_ASAN_BUILD_DIR="$san_dir" bash "$ROOT/scripts/sanitize.sh" "$@" || san_rc=$?
	read -r p1 f1 s1 < <(count meson "$san_dir/meson-logs/testlog.json" 0 "sanitizer unit")
	read -r p2 f2 s2 < <(count junit "$san_dir/integration-junit.xml" 0 "sanitizer integration")
	deselected=0
	if [ -f "$san_dir/sanitize-deselected" ]; then
		sed 's/^/sanitizer /' "$san_dir/sanitize-deselected" >>"$skips"
		deselected=$(wc -l <"$san_dir/sanitize-deselected")
	fi
	san_pass=$((p1 + p2)) san_fail=$((f1 + f2)) san_skip=$((s1 + s2 + deselected))
	# A build failure or a report no test claimed: one failure.
	[ "$san_rc" -ne 0 ] && [ "$san_fail" -eq 0 ] && san_fail=1
	log "sanitizer stage: $((SECONDS - san_started)) s"
else
	echo "sanitizer stage: SLICEPATH_SANITIZE=0" >>"$skips"
	san_skip=1
fi

# ---- fuzzing (libFuzzer + ASan/UBSan), a short run per parser
fuzz_pass=0 fuzz_fail=0 fuzz_skip=0
fuzz_seconds="${SLICEPATH_FUZZ_SECONDS:-20}"
if [ "$fuzz_seconds" -gt 0 ]; then
	for target in config decap arp ipv4 i3 dpi rpc ctld genspec hslice tap preload etcd; do
		log "fuzz: $target for ${fuzz_seconds}s"
		if FUZZ_SECONDS="$fuzz_seconds" FUZZ_BUILD_DIR="$BUILD_DIR/fuzz" \
			sh "$ROOT/tests/fuzz/run.sh" "$target" 2>&1 | tee -a "$fuzz_found.$target"; then
			fuzz_pass=$((fuzz_pass + 1))
		else
			fuzz_fail=$((fuzz_fail + 1))
			cat "$fuzz_found.$target" >>"$fuzz_found"
		fi
		rm -f "$fuzz_found.$target"
	done
else
	echo "fuzz stage: SLICEPATH_FUZZ_SECONDS=$fuzz_seconds" >>"$skips"
	fuzz_skip=1
fi

passed=$((unit_pass + it_pass + san_pass + fuzz_pass))
failed=$((unit_fail + it_fail + san_fail + fuzz_fail))
skipped=$((unit_skip + it_skip + san_skip + fuzz_skip))
if [ -s "$skips" ]; then
	log "skipped ($skipped):"
	sed 's/^/[test]   /' "$skips"
fi
if [ -s "$fuzz_found" ]; then
	log "fuzz targets that found something ($fuzz_fail):"
	sed 's/^/[test]   /' "$fuzz_found"
fi
log "unit: $unit_pass passed, $unit_fail failed, $unit_skip skipped;" \
	"integration: $it_pass passed, $it_fail failed, $it_skip skipped"
log "sanitizer: $san_pass passed, $san_fail failed, $san_skip skipped;" \
	"fuzz: $fuzz_pass passed, $fuzz_fail failed, $fuzz_skip skipped ($((SECONDS - started)) s)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
