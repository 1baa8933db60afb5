# SPDX-License-Identifier: BSD-3-Clause
#
# scripts/daemon-log.sh — sourced by scripts/run.sh: start a daemon writing to a log, and
# wait for the log line that says it is up.

# start_logged LOG COMMAND...: runs COMMAND in the background in a session of its own (a
# Ctrl-C on the terminal reaches run.sh only, which then stops it cleanly), stdout and
# stderr appended to LOG, which is emptied here first: the child opens LOG later, and a
# wait could meanwhile find the previous run's line. $! is COMMAND's pid.
start_logged() {
	local log=$1
	shift
	: >"$log"
	setsid "$@" >>"$log" 2>&1 </dev/null &
}

# wait_for_line LOG PATTERN PID SECONDS: returns 0 once LOG holds PATTERN, 1 when PID has
# exited or SECONDS have passed first.
wait_for_line() {
	local deadline=$((SECONDS + $4))
	until grep -q "$2" "$1"; do
		kill -0 "$3" 2>/dev/null || return 1
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}
