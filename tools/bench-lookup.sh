#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tools/bench-lookup.sh — the lookup engine against rte_acl on ClassBench rule sets
# (sp-bench-lookup; docs/lookup.md, "Benchmark").
#
# Sets: hypersplit acl1, fw1, ipc1 at _1K and _10K with their traces, then
# large/acl1_100k, fw1_100k and ipc1_50k with random keys. Each set is one run of
# sp-bench-lookup (a trace belongs to one rule file); the runs' CSV files are
# joined into all.csv and summarized at the end.
#
# usage: tools/bench-lookup.sh [-q] [-d SECONDS] [-n KEYS] [-S SLICES [-R]] [-b KEYS]
#                              [-e sp|acl|both] [-U] [-w RATE] [-W] [-P] [-6] [-o DIR] [SET...]
#   -q          quick: the 1K sets only
#   -d SECONDS  time per measurement (default 3)
#   -n KEYS     random keys for the sets without a trace (default 100000)
#   -S SLICES   the rules dealt to SLICES tables taking turns, a burst each (default 1);
#               random keys for every set (a trace answers for one table)
#   -R          with -S, a lookup call a round of every slice's burst: sp's one
#               sp_lookup_bulk_deferred() as the NPE calls it, rte_acl's a call a slice
#   -b KEYS     keys a burst (default 32; the NPE's round of 256 over 64 slices: 4)
#   -e ENGINE   sp, acl or both (default)
#   -U          no update measurement (-u of sp-bench-lookup)
#   -w RATE     writes a second at most in the update measurement (default: flat out)
#   -W          write only the widest tenth of the first tenth of the filters (the worst case)
#   -P          profile (docs/lookup.md, "Where a lookup goes"): sp-bench-lookup -P under
#               valgrind's callgrind, which simulates the caches and branches of one pass
#               over every key, an engine at a time, printed a key (no PMU needed); the
#               timed figures of such a run are valgrind's, not the machine's
#   -6          the sets in IPv6 (a.b.c.d/n as 2001:db8:ab:cd::/(32 + n)), 37-byte keys,
#               the engine's 40-byte build; sp only (-e sp is implied)
#   -o DIR      logs and CSV files (default /tmp/slicepath-bench-lookup)
#   SET...      set names (acl1_10K, fw1_100k, ...) instead of the default list
#   environment: SLICEPATH_BUILD_DIR (default build), SLICEPATH_DATA (default
#   ../shared/data/classbench beside the repository), BENCH_EAL (the whole EAL line;
#   default "-m MB --no-pci -l 0,1 --force-max-simd-bitwidth=512" on hugepages when
#   MB of them are free, else with "--no-huge" and a warning: tools/bench-memory.sh)
# Needs a build (scripts/setup.sh or meson) and 2 CPUs for the update measurement.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${SLICEPATH_BUILD_DIR:-$ROOT/build}"
DATA="${SLICEPATH_DATA:-$ROOT/../shared/data/classbench}"
BIN="$BUILD_DIR/tools/bench-lookup/sp-bench-lookup"
EAL_MB=1024 # the largest set's table and rte_acl's build of it, one engine at a time
if [ -n "${BENCH_EAL:-}" ]; then
	read -r -a EAL <<<"$BENCH_EAL"
	MEMORY="EAL ${EAL[*]}"
else
	# shellcheck source=tools/bench-memory.sh
	. "$ROOT/tools/bench-memory.sh"
	bench_memory "$EAL_MB"
	EAL=("${EAL_MEM[@]}" --no-pci -l 0,1 --force-max-simd-bitwidth=512)
	# Unlinked, hugepage files go with the program, even one stopped by a signal.
	[[ " ${EAL_MEM[*]} " == *" --no-huge "* ]] || EAL+=(--huge-unlink)
fi
EAL+=(--file-prefix=sp-bench-lookup --log-level=lib.eal:warning)
SETS_1K="acl1_1K fw1_1K ipc1_1K"
SETS_10K="acl1_10K fw1_10K ipc1_10K"
SETS_LARGE="acl1_100k fw1_100k ipc1_50k"
DURATION=3
KEYS=100000
ENGINE=both
UPDATES=(-u)
WRITE_OPTS=()
WORK=/tmp/slicepath-bench-lookup
QUICK=0
PROFILE=0

SLICES=1
ROUNDS=()
IPV6=()
BURST=32

usage() { sed -n '3,33p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while getopts "qd:n:S:Rb:e:Uw:WP6o:h" opt; do
	case "$opt" in
	q) QUICK=1 ;;
	d) DURATION="$OPTARG" ;;
	n) KEYS="$OPTARG" ;;
	S) SLICES="$OPTARG" ;;
	R) ROUNDS=(-R) ;;
	b) BURST="$OPTARG" ;;
	e) ENGINE="$OPTARG" ;;
	U) UPDATES=() ;;
	w) WRITE_OPTS+=(-w "$OPTARG") ;;
	W) WRITE_OPTS+=(-W) ;;
	P) PROFILE=1 ;;
	6) IPV6=(-6) ENGINE=sp ;;
	o) WORK="$OPTARG" ;;
	h) usage 0 ;;
	*) usage 1 ;;
	esac
done
shift $((OPTIND - 1))

log() { printf '[bench-lookup] %s\n' "$*" >&2; }
die() { printf '[bench-lookup] ERROR: %s\n' "$*" >&2; exit 1; }

[ -x "$BIN" ] || die "$BIN is missing: build first (or set SLICEPATH_BUILD_DIR)"
[ -d "$DATA" ] || die "no ClassBench data at $DATA (set SLICEPATH_DATA)"
log "$MEMORY"
if [ $# -gt 0 ]; then
	SETS="$*"
elif [ "$QUICK" -eq 1 ]; then
	SETS="$SETS_1K"
else
	SETS="$SETS_1K $SETS_10K $SETS_LARGE"
fi

# sp-bench-lookup's set options: the hypersplit rules with their trace (random keys
# with slices), or a large set.
set_args() {
	local s="$1"
	if [ -f "$DATA/hypersplit/rules/$s" ] && [ -f "$DATA/hypersplit/traces/${s}_trace" ]; then
		if [ "$SLICES" -gt 1 ]; then
			echo "-r $DATA/hypersplit/rules/$s -n $KEYS -S $SLICES"
		else
			echo "-r $DATA/hypersplit/rules/$s -t $DATA/hypersplit/traces/${s}_trace"
		fi
	elif [ -f "$DATA/large/$s" ]; then
		echo "-r $DATA/large/$s -n $KEYS -S $SLICES"
	else
		return 1
	fi
}

mkdir -p "$WORK"
rm -f "$WORK"/*.csv
status=0
for s in $SETS; do
	args="$(set_args "$s")" || die "no set $s in $DATA/hypersplit (with a trace) or $DATA/large"
	log "$s"
	run=("$BIN") profile=()
	if [ "$PROFILE" -eq 1 ]; then
		# Instrumented only inside the tool's counted passes (client requests), each its own dump.
		rm -f "$WORK/$s.callgrind" "$WORK/$s.callgrind".*
		# shellcheck disable=SC2207 # one option a word
		run=(valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no $("$ROOT/tools/callgrind.sh" sim-options)
			--callgrind-out-file="$WORK/$s.callgrind" "$BIN")
		profile=(-P)
	fi
	# shellcheck disable=SC2086 # args is a list of options
	if ! "${run[@]}" "${EAL[@]}" -- $args "${ROUNDS[@]}" -b "$BURST" -d "$DURATION" --engine "$ENGINE" "${UPDATES[@]}" "${WRITE_OPTS[@]}" \
		"${IPV6[@]}" "${profile[@]}" --csv "$WORK/$s.csv" 2>&1 | tee "$WORK/$s.log"; then
		log "$s: FAILED (see $WORK/$s.log)"
		status=1
	fi
	# Each counted pass's dump names its set, engine and keys ("fw1_10K sp 93250 keys").
	for dump in "$WORK/$s.callgrind".*; do
		[ "$PROFILE" -eq 1 ] && [ -f "$dump" ] || continue
		read -r _ engine keys _ < <(sed -n 's/^desc: Trigger: Client Request: //p' "$dump")
		"$ROOT/tools/callgrind.sh" per "$dump" "$keys" "$s, $engine: a key" | tee -a "$WORK/$s.log"
	done
done

# All runs in one summary, as sp-bench-lookup prints it for one run.
csvs=()
for s in $SETS; do
	[ -f "$WORK/$s.csv" ] && csvs+=("$WORK/$s.csv")
done
[ ${#csvs[@]} -gt 0 ] || die "no results"
{ head -n 1 "${csvs[0]}"; for f in "${csvs[@]}"; do tail -n +2 "$f"; done; } >"$WORK/all.csv"
awk -F, '
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
	set = $col["set"]; eng = $col["engine"]; bpe = $col["bytes_per_entry"]
	ns = $col["ns_per_lookup"]; w = $col["writes_per_s"]; pct = $col["writing_pct_of_idle"]
	wmax = $col["write_max_us"]; held = $col["held_max_us"]; gap = $col["gap_max_us"]
	rows[++n] = sprintf("| %s | %s | %s | %.1f | %.3g | %s | %.0f | %.4f | %s | %s | %s | %s | %s |",
		set, $col["filters"], eng, ns, $col["mlookups_per_s"], $col["p99_burst_ns"], bpe,
		$col["build_s"], w == "" ? "-" : w, wmax == "" ? "-" : sprintf("%.0f", wmax),
		held == "" ? "-" : sprintf("%.0f", held), gap == "" ? "-" : sprintf("%.0f", gap),
		pct == "" ? "-" : sprintf("%.0f%%", pct))
	if (!(set in seen)) { seen[set] = 1; order[++m] = set }
	if (eng == "sp") { sp_ns[set] = ns; sp_b[set] = bpe }
	if (eng == "acl") { acl_ns[set] = ns; acl_b[set] = bpe }
}
END {
	print "\nSummary (all sets)\n"
	printf "| set | filters | engine | ns/lookup | Mlookups/s | p99 burst ns | B/entry | build s |"
	print " writes/s | write max us | thread held max us | machine gap max us | lookups while writing (% of idle) |"
	print "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for (i = 1; i <= n; i++) print rows[i]
	print "\n| set | sp/acl ns/lookup | sp/acl B/entry |\n| --- | ---: | ---: |"
	for (i = 1; i <= m; i++) {
		s = order[i]
		if ((s in sp_ns) && (s in acl_ns) && acl_ns[s] > 0 && acl_b[s] > 0)
			printf "| %s | %.2f | %.2f |\n", s, sp_ns[s] / acl_ns[s], sp_b[s] / acl_b[s]
	}
}' "$WORK/all.csv" | tee "$WORK/summary.md"
log "logs, CSV (all.csv) and summary.md in $WORK"
exit $status
