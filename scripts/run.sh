#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/run.sh — set up, build and run slicepathd on the demo config with
# generated traffic, printing its counters every 2 seconds.
#
#   1. scripts/setup.sh (packages, hugepages or the --no-huge fallback, build),
#   2. scripts/demo-traffic.py writes /run/slicepath/demo-p0.pcap (what p0 replays),
#   3. build/slicepathd -c config/default.json runs; tools/sp_telemetry.py prints
#      ports, slices, drops and queues every 2 s,
#   4. after SLICEPATH_RUN_SECONDS (default 20; 0 = until Ctrl-C) it prints the
#      final totals and stops the daemon with SIGTERM (a clean shutdown, exit 0).
#
# Environment: SLICEPATH_RUN_SECONDS, SLICEPATH_CONFIG (default config/default.json),
# SLICEPATH_INTERVAL (default 2), and those of scripts/setup.sh (e.g. SLICEPATH_BUILD_DIR).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD_DIR="${SLICEPATH_BUILD_DIR:-$ROOT/build}"
RUN_SECONDS="${SLICEPATH_RUN_SECONDS:-20}"
CONFIG="${SLICEPATH_CONFIG:-$ROOT/config/default.json}"
INTERVAL="${SLICEPATH_INTERVAL:-2}"
RUN_DIR=/run/slicepath
DEMO_PCAP="$RUN_DIR/demo-p0.pcap"
LOG="$RUN_DIR/slicepathd.log"
PY=/usr/bin/python3

log() { printf '[run] %s\n' "$*"; }
die() { printf '[run] ERROR: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "slicepathd needs root (hugepages, /var/run/dpdk): sudo $0"
case "$RUN_SECONDS" in ''|*[!0-9]*) die "SLICEPATH_RUN_SECONDS must be a whole number of seconds, not '$RUN_SECONDS'";; esac
[ -f "$CONFIG" ] || die "no config at $CONFIG"

bash "$ROOT/scripts/setup.sh"
read -r -a EXTRA_EAL <"$BUILD_DIR/eal-extra-args" || EXTRA_EAL=()

mkdir -p "$RUN_DIR"
"$PY" "$ROOT/scripts/demo-traffic.py" -c "$CONFIG" -o "$DEMO_PCAP"

# The telemetry socket lives under the config's --file-prefix (DPDK's default: rte).
PREFIX="$("$PY" -c '
import json, sys
eal = json.load(open(sys.argv[1])).get("eal", [])
p = "rte"
for i, a in enumerate(eal):
    if a == "--file-prefix" and i + 1 < len(eal): p = eal[i + 1]
    elif a.startswith("--file-prefix="): p = a.split("=", 1)[1]
print(p)' "$CONFIG")"

"$BUILD_DIR/slicepathd" -c "$CONFIG" --check-config >/dev/null \
	|| die "$CONFIG is not valid (see above)"

log "starting: ${BUILD_DIR#"$ROOT"/}/slicepathd -c ${CONFIG#"$ROOT"/} -- ${EXTRA_EAL[*]:-}   (log: $LOG)"
# Own session: a Ctrl-C on the terminal reaches this script only, which then
# prints the totals and stops the daemon cleanly.
setsid "$BUILD_DIR/slicepathd" -c "$CONFIG" -- "${EXTRA_EAL[@]}" >"$LOG" 2>&1 </dev/null &
PID=$!

stopped=0
stop_daemon() {
	[ "$stopped" = 0 ] || return 0
	stopped=1
	if kill -0 "$PID" 2>/dev/null; then
		log "stopping slicepathd (SIGTERM)"
		kill -TERM "$PID"
		local rc=0
		wait "$PID" || rc=$?
		if [ "$rc" -ne 0 ]; then
			tail -n 30 "$LOG" >&2
			die "slicepathd exited with status $rc"
		fi
		log "slicepathd stopped cleanly: $(tail -n 1 "$LOG")"
	fi
}
trap 'stop_daemon' EXIT

fail_start() {
	printf '[run] ERROR: %s\n----- %s -----\n' "$1" "$LOG" >&2
	cat "$LOG" >&2
	exit 1
}

deadline=$((SECONDS + 60))
until grep -q 'slicepathd: forwarding' "$LOG"; do
	if ! kill -0 "$PID" 2>/dev/null; then
		rc=0
		wait "$PID" || rc=$?
		stopped=1
		fail_start "slicepathd did not start (exit status $rc)"
	fi
	[ "$SECONDS" -lt "$deadline" ] || fail_start "slicepathd did not start forwarding within 60 s"
	sleep 0.2
done
log "$(grep -m1 'slicepathd: forwarding' "$LOG")"

show() {
	"$PY" "$ROOT/tools/sp_telemetry.py" -p "$PREFIX" summary
}

interrupted=0
trap 'interrupted=1' INT TERM
start=$SECONDS
while [ "$interrupted" = 0 ]; do
	kill -0 "$PID" 2>/dev/null || { stopped=1; fail_start "slicepathd exited unexpectedly"; }
	elapsed=$((SECONDS - start))
	if [ "$RUN_SECONDS" -gt 0 ] && [ "$elapsed" -ge "$RUN_SECONDS" ]; then
		break
	fi
	[ -t 1 ] && printf '\033[H\033[2J'
	if [ "$RUN_SECONDS" -gt 0 ]; then
		printf '=== slicepathd counters, %ss of %ss (prefix %s) ===\n' "$elapsed" "$RUN_SECONDS" "$PREFIX"
	else
		printf '=== slicepathd counters, %ss (Ctrl-C to stop) ===\n' "$elapsed"
	fi
	show || log "telemetry read failed"
	echo
	sleep "$INTERVAL" || true
done

echo "=== final totals ==="
show || log "telemetry read failed"
echo
"$PY" "$ROOT/tools/sp_telemetry.py" -p "$PREFIX" endpoints || true
trap - INT TERM
stop_daemon
