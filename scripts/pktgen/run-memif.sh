#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/pktgen/run-memif.sh — pktgen-DPDK against slicepathd on one machine, over memif.
#
#   PKTGEN=/path/to/pktgen scripts/pktgen/run-memif.sh [-s SECONDS] [-r RATE%] [-z PAYLOAD]
#
# Starts slicepathd on config/pktgen-memif.json (p0, p1 memif servers), writes the frames
# pktgen replays (scripts/demo-traffic.py --forward-only), runs pktgen as the memif clients
# with scripts/pktgen/slicepath.lua (PG_* below), prints its CSV and slice alpha's counters,
# then stops slicepathd first (a memif peer leaving under a polling process can crash it on
# DPDK 22.11). pktgen is built by you, not by this repository: docs/testing.md says how.
# Both on hugepages when 5 GB of them are free (slicepathd 1 GB, pktgen 4 GB), else both
# --no-huge, with a warning: figures then not comparable (tools/bench-memory.sh).
# Needs root. Environment: PKTGEN (the binary), SLICEPATH_BUILD_DIR (default build),
# BENCH_EAL (only whether it holds --no-huge counts here).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${SLICEPATH_BUILD_DIR:-$ROOT/build}"
SECONDS_RUN=10 RATE=10 PAYLOAD=18
while getopts "s:r:z:h" opt; do
	case "$opt" in
	s) SECONDS_RUN="$OPTARG" ;;
	r) RATE="$OPTARG" ;;
	z) PAYLOAD="$OPTARG" ;;
	h) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 1 ;;
	esac
done
die() { printf 'run-memif: %s\n' "$*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (DPDK)"
[ -x "${PKTGEN:-}" ] || die "set PKTGEN to a pktgen-DPDK binary (docs/testing.md, pktgen-DPDK)"
command -v script >/dev/null || die "script(1) (Debian package bsdutils) is needed: pktgen wants a terminal"

# shellcheck source=tools/bench-memory.sh
. "$ROOT/tools/bench-memory.sh"
bench_memory 5120
PAGES=(--huge-unlink)
[[ " ${EAL_MEM[*]} " != *" --no-huge "* ]] || PAGES=(--no-huge)
echo "run-memif: ${MEMORY%%;*}"

WORK=/run/slicepath/pktgen
mkdir -p "$WORK"
"$ROOT/scripts/demo-traffic.py" -c "$ROOT/config/pktgen-memif.json" --forward-only \
	--size "$PAYLOAD" -n 64 -o "$WORK/p0.pcap"
"$BUILD_DIR/slicepathd" -c "$ROOT/config/pktgen-memif.json" -- "${PAGES[@]}" -m 1024 \
	-l 0,1 --file-prefix sp-pktgen >"$WORK/slicepathd.log" 2>&1 &
node=$!
trap 'kill -INT $node 2>/dev/null; wait $node 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q "slicepathd: forwarding" "$WORK/slicepathd.log" && break; sleep 0.1; done
grep -q "slicepathd: forwarding" "$WORK/slicepathd.log" || die "slicepathd did not start: $WORK/slicepathd.log"

memif() { echo "net_memif$1,role=client,socket=/run/slicepath/pktgen-p$1.sock,socket-abstract=no"; }
# pktgen's lcores 0 (display) and 1 (both ports' rx and tx) both on CPU 0, slicepathd
# forwarding on CPU 1: on a bigger machine give each its own cores.
rm -f "$WORK/pktgen.csv"
# A script that fails leaves pktgen at its prompt: the timeout ends it.
PG_SECONDS="$SECONDS_RUN" PG_RATE="$RATE" PG_RESULT="$WORK/pktgen.csv" \
	timeout -s INT $((SECONDS_RUN + 60)) script -qfec "$PKTGEN --lcores 0@0,1@0 ${PAGES[*]} -m 4096 --no-pci --file-prefix pg-slicepath \
	--vdev $(memif 0) --vdev $(memif 1) -- -P -m '1.[0-1]' -s 0:$WORK/p0.pcap \
	-f $ROOT/scripts/pktgen/slicepath.lua" "$WORK/pktgen.typescript" >/dev/null
[ -s "$WORK/pktgen.csv" ] || die "pktgen wrote no results; its screen: $WORK/pktgen.typescript"
cat "$WORK/pktgen.csv"
/usr/bin/python3 "$ROOT/tools/sp_rpc.py" -s /run/slicepath/pktgen-mgmt.sock stats.get '{"slice": "alpha"}' 
