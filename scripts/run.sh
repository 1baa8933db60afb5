#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/run.sh — set up, build and run both daemons on the demo config with
# generated traffic, printing the counters every 2 seconds.
#
#   1. scripts/setup.sh (packages, hugepages or the --no-huge fallback, build),
#   2. scripts/demo-traffic.py writes /run/slicepath/demo-p0.pcap (what p0 replays)
#      for the slices of config/default.json and config/demo-slices.json,
#   3. build/slicepathd -c config/default.json runs (with the config's own slices
#      alpha and beta), then slicectld (a fresh database, /run/slicepath/demo-slicectld.db),
#      and scripts/demo-slices.py creates slice gamma through slicectl;
#      tools/sp_telemetry.py prints ports, slices, drops and queues every 2 s,
#   4. after SLICEPATH_RUN_SECONDS (default 20; 0 = until Ctrl-C, SIGINT or SIGTERM,
#      in the background too) it prints the final totals and stops both daemons with
#      SIGTERM (a clean shutdown, exit 0).
#
# Environment: SLICEPATH_RUN_SECONDS, SLICEPATH_CONFIG (default config/default.json),
# SLICEPATH_DEMO_SLICES (default config/demo-slices.json), SLICEPATH_INTERVAL (default 2),
# and those of scripts/setup.sh (e.g. SLICEPATH_BUILD_DIR).
set -euo pipefail

# Started in the background by a shell without job control (a script, CI, nohup), run.sh
# inherits SIGINT ignored, which bash can neither trap nor reset: start again with it at
# its default, so that SIGINT stops a run as Ctrl-C does.
if [ "$(trap -p INT)" = "trap -- '' SIGINT" ]; then
	exec env --default-signal=INT bash "${BASH_SOURCE[0]}" "$@"
fi
# Untrapped, a SIGINT sent to bash alone (kill -INT) is dropped when the command it waits
# for does not die of it too: trapped, it ends the run (the main loop's trap, below,
# prints the totals first).
trap 'exit 130' INT

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

BUILD_DIR="${SLICEPATH_BUILD_DIR:-$ROOT/build}"
RUN_SECONDS="${SLICEPATH_RUN_SECONDS:-20}"
CONFIG="${SLICEPATH_CONFIG:-$ROOT/config/default.json}"
SLICES="${SLICEPATH_DEMO_SLICES:-$ROOT/config/demo-slices.json}"
INTERVAL="${SLICEPATH_INTERVAL:-2}"
RUN_DIR=/run/slicepath
DEMO_PCAP="$RUN_DIR/demo-p0.pcap"
LOG="$RUN_DIR/slicepathd.log"
CTLD_LOG="$RUN_DIR/slicectld.log"
CTLD_DB="$RUN_DIR/demo-slicectld.db"
SLICECTL="$BUILD_DIR/control/slicectl/slicectl"
PY=/usr/bin/python3

log() { printf '[run] %s\n' "$*"; }
. "$ROOT/scripts/daemon-log.sh"
die() { printf '[run] ERROR: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "slicepathd needs root (hugepages, /var/run/dpdk): sudo $0"
case "$RUN_SECONDS" in ''|*[!0-9]*) die "SLICEPATH_RUN_SECONDS must be a whole number of seconds, not '$RUN_SECONDS'";; esac
[ -f "$CONFIG" ] || die "no config at $CONFIG"

bash "$ROOT/scripts/setup.sh"
read -r -a EXTRA_EAL <"$BUILD_DIR/eal-extra-args" || EXTRA_EAL=()

mkdir -p "$RUN_DIR"
"$PY" "$ROOT/scripts/demo-traffic.py" -c "$CONFIG" -s "$SLICES" -o "$DEMO_PCAP"

# The telemetry socket lives under the config's --file-prefix (DPDK's default: rte);
# slicectld talks to the config's management socket.
read -r PREFIX MGMT_SOCKET < <("$PY" -c '
import json, sys
cfg = json.load(open(sys.argv[1]))
eal = cfg.get("eal", [])
p = "rte"
for i, a in enumerate(eal):
    if a == "--file-prefix" and i + 1 < len(eal): p = eal[i + 1]
    elif a.startswith("--file-prefix="): p = a.split("=", 1)[1]
print(p, cfg.get("mgmt_socket", "/run/slicepath/slicepathd.sock"))' "$CONFIG")

"$BUILD_DIR/slicepathd" -c "$CONFIG" --check-config >/dev/null \
	|| die "$CONFIG is not valid (see above)"

log "starting: ${BUILD_DIR#"$ROOT"/}/slicepathd -c ${CONFIG#"$ROOT"/} -- ${EXTRA_EAL[*]:-}   (log: $LOG)"
start_logged "$LOG" "$BUILD_DIR/slicepathd" -c "$CONFIG" -- "${EXTRA_EAL[@]}"
PID=$!

CTLD_PID=
stopped=0
stop_daemon() {
	[ "$stopped" = 0 ] || return 0
	stopped=1
	if [ -n "$CTLD_PID" ] && kill -0 "$CTLD_PID" 2>/dev/null; then
		log "stopping slicectld (SIGTERM)"
		kill -TERM "$CTLD_PID"
		wait "$CTLD_PID" || log "slicectld exited with status $? (log: $CTLD_LOG)"
	fi
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

if ! wait_for_line "$LOG" 'slicepathd: forwarding' "$PID" 60; then
	if ! kill -0 "$PID" 2>/dev/null; then
		rc=0
		wait "$PID" || rc=$?
		stopped=1
		fail_start "slicepathd did not start (exit status $rc)"
	fi
	fail_start "slicepathd did not start forwarding within 60 s"
fi
log "$(grep -m1 'slicepathd: forwarding' "$LOG")"

# The control daemon, on a database of the demo's own (a fresh one each run).
rm -f "$CTLD_DB" "$CTLD_DB-wal" "$CTLD_DB-shm"
log "starting: ${BUILD_DIR#"$ROOT"/}/control/slicectld/slicectld -b $MGMT_SOCKET -d $CTLD_DB   (log: $CTLD_LOG)"
start_logged "$CTLD_LOG" "$BUILD_DIR/control/slicectld/slicectld" -b "$MGMT_SOCKET" -d "$CTLD_DB"
CTLD_PID=$!
if ! wait_for_line "$CTLD_LOG" 'connected to slicepathd' "$CTLD_PID" 30; then
	cat "$CTLD_LOG" >&2
	kill -0 "$CTLD_PID" 2>/dev/null || die "slicectld did not start"
	die "slicectld did not reach slicepathd within 30 s"
fi
log "$(grep -m1 'connected to slicepathd' "$CTLD_LOG")"
"$PY" "$ROOT/scripts/demo-slices.py" --slicectl "$SLICECTL" "$SLICES" \
	|| die "could not create the demo slices of $SLICES (see above; log: $CTLD_LOG)"
"$SLICECTL" slice list

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
echo
echo "=== slicectl slice list; slicectl stats gamma ==="
"$SLICECTL" slice list || true
"$SLICECTL" stats gamma || true
trap - INT TERM
stop_daemon
