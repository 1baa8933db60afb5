#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Build the libFuzzer targets with clang and run each for FUZZ_SECONDS (default 30).
# Fails if any target finds a crash, leak, timeout or broken invariant.
#
#   tests/fuzz/run.sh [TARGET...]        targets: config decap arp ipv4 i3 dpi rpc ctld genspec hslice tap preload etcd (default: all)
#
# Environment: FUZZ_SECONDS, FUZZ_BUILD_DIR (default build/fuzz in the source
# tree), FUZZ_FLAGS (extra libFuzzer flags). See tests/fuzz/README.md.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=${FUZZ_BUILD_DIR:-$src/build/fuzz}
seconds=${FUZZ_SECONDS:-30}
targets=${*:-config decap arp ipv4 i3 dpi rpc ctld genspec hslice tap preload etcd}

if [ -f "$build/build.ninja" ]; then
	# Reconfigured, not just configured: meson compile finds targets added since.
	meson setup --reconfigure "$build" "$src" -Dfuzz=true >/dev/null
else
	CC=clang meson setup "$build" "$src" -Dfuzz=true -Dtests=false >/dev/null
fi
names=
for t in $targets; do
	names="$names fuzz_$t"
done
# shellcheck disable=SC2086 # one word per target
if ! out=$(meson compile -C "$build" $names 2>&1); then
	printf '%s\n' "$out" | grep -E 'error|FAILED' | head -n 20
	echo "fuzz targets did not build:$names"
	exit 1
fi

status=0
for t in $targets; do
	seeds=$here/corpus/$t
	if [ "$t" = config ]; then
		"$here/run-one.sh" "$build/tests/fuzz/fuzz_$t" "$seconds" "$build/fuzz-out" \
			"$seeds" "$src/config" || status=1
	else
		"$here/run-one.sh" "$build/tests/fuzz/fuzz_$t" "$seconds" "$build/fuzz-out" \
			"$seeds" || status=1
	fi
done
exit $status
