#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tools/bench-ctl.sh — filter writes per second end to end through the control plane.
#
# Runs slicepathd (one forwarding lcore: net_pcap0 replaying 70-byte substrate frames to
# slice "bench" forever, into net_null0) and slicectld (a fresh database, its default
# --sync full: every change fsync'd before it is acknowledged), makes slice bench through
# slicectl, then measures, while that traffic keeps flowing:
#   1. sp-bench-ctl (libslicectl): single writes, a load of FILTERS filters in requests of
#      BATCH, and a rewrite of them all: writes/s and the forwarding rate in each phase;
#   2. slicectl filter load: the same number of filters from a JSON Lines file.
#
# usage: tools/bench-ctl.sh [-n FILTERS] [-b BATCH] [-1 SINGLES] [-o DIR] [-y full|normal]
#   environment: SLICEPATH_BUILD_DIR (default build), BENCH_EAL (default "--no-huge -m 2048")
# Needs root and a build (scripts/setup.sh). Artifacts and logs go to DIR
# (default /tmp/slicepath-bench-ctl).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${SLICEPATH_BUILD_DIR:-$ROOT/build}"
FILTERS=131072
BATCH=65536
SINGLES=2000
SYNC=full
WORK=/tmp/slicepath-bench-ctl
PY=/usr/bin/python3
read -r -a EAL_MEM <<<"${BENCH_EAL:---no-huge -m 2048}"

usage() { sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while getopts "n:b:1:o:y:h" opt; do
	case "$opt" in
	n) FILTERS="$OPTARG" ;;
	b) BATCH="$OPTARG" ;;
	1) SINGLES="$OPTARG" ;;
	o) WORK="$OPTARG" ;;
	y) SYNC="$OPTARG" ;;
	h) usage 0 ;;
	*) usage 1 ;;
	esac
done

log() { printf '[bench-ctl] %s\n' "$*" >&2; }
die() { printf '[bench-ctl] ERROR: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (DPDK): sudo $0"
for b in slicepathd control/slicectld/slicectld control/slicectl/slicectl tools/bench-ctl/sp-bench-ctl; do
	[ -x "$BUILD_DIR/$b" ] || die "$BUILD_DIR/$b is missing: run scripts/setup.sh first"
done

rm -rf "$WORK"
mkdir -p "$WORK"
PREFIX="sp-bench-ctl-$$"
MGMT="$WORK/mgmt.sock"
CTL="$WORK/ctl.sock"
SC=("$BUILD_DIR/control/slicectl/slicectl" -s "$CTL")

log "writing the input pcap, the config and $FILTERS filters as JSON Lines in $WORK"
"$PY" - "$WORK" "$FILTERS" "$SINGLES" "$MGMT" "$PREFIX" "${EAL_MEM[@]}" <<'EOF'
import ipaddress, json, sys
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.utils import wrpcap

work, filters, singles, mgmt, prefix, eal = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    sys.argv[4], sys.argv[5], sys.argv[6:]
# 256 flows spread over the loaded filters' destinations (10.0.0.0/8 in /25s).
frames = []
for i in range(256):
    dst = ipaddress.IPv4Address(0x0a000000 + (i * filters // 256 << 7) + 1)
    inner = IP(src=f"172.16.0.{1 + i % 250}", dst=str(dst), ttl=64, id=0) / UDP(sport=1024 + i, dport=53)
    frames.append(Ether(src="02:aa:00:00:00:01", dst="02:00:00:00:00:01")
                  / IP(src="10.0.0.2", dst="10.0.0.1", id=0, flags="DF") / UDP(sport=4000, dport=5001)
                  / inner)
wrpcap(f"{work}/input.pcap", frames, linktype=1)
cfg = {
    "eal": eal + ["--no-pci", "--file-prefix", prefix],
    "mbufs": 16384,
    "ports": [
        {"name": "p0", "device": f"net_pcap0,rx_pcap={work}/input.pcap,infinite_rx=1",
         "ipv4": "10.0.0.1", "mac": "02:00:00:00:00:01"},
        {"name": "p1", "device": "net_null0,no-rx=1", "ipv4": "10.0.1.1",
         "mac": "02:00:00:00:01:01"},
    ],
    "neighbors": [{"port": "p1", "ipv4": "10.0.1.2", "mac": "02:00:00:00:01:02"},
                  {"port": "p1", "ipv4": "10.0.1.3", "mac": "02:00:00:00:01:03"}],
    "lcores": [{"id": 1, "lc": True, "npes": [0]}],
    "npes": [{"filters": filters + singles, "queues": 64}],
    "mgmt_socket": mgmt,
    "channel_dir": f"{work}/slices",
}
json.dump(cfg, open(f"{work}/slicepathd.json", "w"), indent=1)
with open(f"{work}/filters.jsonl", "w") as f:
    for i in range(filters):
        dst = 0x0a000000 + (i << 7)
        f.write(json.dumps({"position": i, "key": f"{dst:08x}" + "00" * 10,
                            "mask": "ffffff80" + "00" * 10,
                            "result": {"endpoint": 1, "queue": 0, "next_hop": "10.0.1.2:6001"}}) + "\n")
EOF

PIDS=()
cleanup() {
	for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
	rm -rf "/var/run/dpdk/$PREFIX"
}
trap cleanup EXIT

wait_for() { # FILE TEXT PID WHAT
	local deadline=$((SECONDS + 60))
	until grep -q "$2" "$1"; do
		kill -0 "$3" 2>/dev/null || { cat "$1" >&2; die "$4 exited"; }
		[ "$SECONDS" -lt "$deadline" ] || { cat "$1" >&2; die "$4 did not start"; }
		sleep 0.2
	done
}

"$BUILD_DIR/slicepathd" -c "$WORK/slicepathd.json" >"$WORK/slicepathd.log" 2>&1 </dev/null &
PIDS+=($!)
wait_for "$WORK/slicepathd.log" "slicepathd: forwarding" "${PIDS[0]}" slicepathd
"$BUILD_DIR/control/slicectld/slicectld" -s "$CTL" -b "$MGMT" -d "$WORK/slicectld.db" \
	--sync "$SYNC" >"$WORK/slicectld.log" 2>&1 </dev/null &
PIDS=("$!" "${PIDS[@]}")
wait_for "$WORK/slicectld.log" "connected to slicepathd" "${PIDS[0]}" slicectld

"${SC[@]}" slice create bench codeopt ipv4 filters $((FILTERS + SINGLES)) queues 1 buffers 4096 \
	bandwidth 10G >&2
"${SC[@]}" endpoint reserve bench port p0 udp 5001 >&2
"${SC[@]}" endpoint reserve bench port p1 bandwidth 9G >&2
"${SC[@]}" queue bind bench 0 endpoint 1 share 9G >&2

echo "== libslicectl (sp-bench-ctl), slicectld --sync $SYNC =="
"$BUILD_DIR/tools/bench-ctl/sp-bench-ctl" -s "$CTL" -n "$FILTERS" -b "$BATCH" -1 "$SINGLES"

echo "== slicectl filter load (the same positions, another next hop) =="
"${SC[@]}" filter load bench "$WORK/filters.jsonl" batch "$BATCH"
"${SC[@]}" stats bench | sed -n '1,4p'
echo "database: $(du -h "$WORK/slicectld.db" | cut -f1) ($WORK/slicectld.db)"
