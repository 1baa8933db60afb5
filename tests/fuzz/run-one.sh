#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run one libFuzzer target for a while and say how it went.
#
#   run-one.sh FUZZER SECONDS WORK_DIR SEED_DIR...
#
# New inputs go to WORK_DIR/corpus/<target> (kept between runs, so runs add
# up), crash, leak and timeout reproducers to WORK_DIR/crashes/<target>/, the
# fuzzer's output to WORK_DIR/<target>.log; seed directories are only read.
# Extra libFuzzer flags: FUZZ_FLAGS (e.g. "-jobs=4 -workers=4").
# Exit status: 0 if nothing was found, 1 otherwise.
set -eu

fuzzer=$1
seconds=$2
work=$3
shift 3

name=$(basename "$fuzzer")
here=$(cd "$(dirname "$0")" && pwd)
corpus=$work/corpus/$name
crashes=$work/crashes/$name
log=$work/$name.log
stamp=$work/.$name.start
mkdir -p "$corpus" "$crashes"
touch "$stamp"

set -- -max_total_time="$seconds" -max_len=2048 -timeout=10 -print_final_stats=1 \
	-artifact_prefix="$crashes/" "$corpus" "$@"
if [ -f "$here/$name.dict" ]; then
	set -- -dict="$here/$name.dict" "$@"
fi

rc=0
# shellcheck disable=SC2086 # FUZZ_FLAGS is a list of flags
"$fuzzer" ${FUZZ_FLAGS:-} "$@" >"$log" 2>&1 || rc=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
inputs=$(find "$corpus" -type f | wc -l)
found=$(find "$crashes" -type f -newer "$stamp" | wc -l)
if [ "$rc" -eq 0 ] && [ "$found" -eq 0 ]; then
	echo "$name: ${execs:-?} executions in ${seconds} s (${rate:-?}/s)," \
		"corpus $inputs inputs, nothing found"
	exit 0
fi
echo "$name: FAILED (exit $rc) after ${execs:-?} executions; reproducers in $crashes/, log $log"
grep -E '^(==[0-9]+==ERROR|SUMMARY|==test check failed)|runtime error' "$log" | head -n 5 || true
exit 1
