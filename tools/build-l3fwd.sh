#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tools/build-l3fwd.sh DIR — DPDK's l3fwd example, the baseline of the benchmarks, built
# from Debian's dpdk-doc sources in DIR/examples (once; later calls reuse it). Prints the
# binary's path. Virtual devices offer no rx checksum offload, so the copy's
# port_conf does not ask for it; nothing else changes.
set -euo pipefail

DIR="$1"
SRC=/usr/share/dpdk/examples
L3FWD_DIR="$DIR/examples/l3fwd"
BIN="$L3FWD_DIR/build/l3fwd"
die() { printf 'build-l3fwd: %s\n' "$*" >&2; exit 1; }

[ -d "$SRC/l3fwd" ] || die "DPDK example sources are missing (Debian package dpdk-doc): run scripts/setup.sh"
if [ ! -x "$BIN" ]; then
	printf 'build-l3fwd: building l3fwd from %s in %s/examples\n' "$SRC" "$DIR" >&2
	rm -rf "$DIR/examples"
	mkdir -p "$DIR/examples"
	cp -r "$SRC/l3fwd" "$SRC/common" "$DIR/examples/"
	sed -i 's/^\(\s*\)\.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,/\1.offloads = 0,/' "$L3FWD_DIR/main.c"
	grep -q 'RTE_ETH_RX_OFFLOAD_CHECKSUM,' "$L3FWD_DIR/main.c" \
		&& die "could not clear RTE_ETH_RX_OFFLOAD_CHECKSUM in l3fwd's port_conf"
	make -C "$L3FWD_DIR" -j"$(nproc)" >"$DIR/l3fwd-build.log" 2>&1 \
		|| { tail -n 30 "$DIR/l3fwd-build.log" >&2; die "l3fwd did not build (log: $DIR/l3fwd-build.log)"; }
fi
echo "$BIN"
