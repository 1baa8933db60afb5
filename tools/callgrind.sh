#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tools/callgrind.sh — what the benchmarks' profiles share of valgrind's callgrind
# (bench-pipeline.sh -I -P, bench-lookup.sh -P):
#
#   tools/callgrind.sh sim-options        the options that simulate the caches and branches,
#                                         the last level as this machine's (one instance of it,
#                                         from lscpu: valgrind's own guess takes a VM's whole
#                                         host L3 as one direct-mapped cache)
#   tools/callgrind.sh per FILE COUNT UNIT  a dump's totals divided by COUNT (the packets or
#                                         keys it covers), one line: "  UNIT (callgrind
#                                         simulated, D1 .. KB, LL .. KB): instructions ..."
set -euo pipefail

case "${1:-}" in
sim-options)
	[ $# -eq 1 ] || { echo "usage: $0 sim-options" >&2; exit 2; }
	echo --cache-sim=yes --branch-sim=yes
	lscpu -C=LEVEL,ONE-SIZE,WAYS -B 2>/dev/null | awk '
		$1 ~ /^[0-9]+$/ && $1 >= level && $2 > 0 && $3 > 0 { level = $1; ll = "--LL=" $2 "," $3 ",64" }
		END { if (ll != "") print ll }'
	;;
per)
	[ $# -eq 4 ] || { echo "usage: $0 per FILE COUNT UNIT" >&2; exit 2; }
	# The dump's own "totals:" line: its "summary:" (which callgrind_annotate reads) goes
	# wrong in dumps after the first when instrumentation was stopped between them.
	awk -v n="$3" -v unit="$4" '
		/^events:/ { for (i = 2; i <= NF; i++) ev[i - 1] = $i }
		/^desc: (D1|LL) cache:/ { kb[$2] = $4 / 1024 }
		/^totals:/ { for (i = 2; i <= NF; i++) c[ev[i - 1]] = $i }
		END { printf "  %s (callgrind simulated, D1 %d KB, LL %d KB): instructions %.1f, D1 misses %.2f, LL misses %.2f, I1 misses %.2f, mispredicted branches %.2f\n",
			unit, kb["D1"], kb["LL"], c["Ir"] / n, (c["D1mr"] + c["D1mw"]) / n,
			(c["DLmr"] + c["DLmw"] + c["ILmr"]) / n, c["I1mr"] / n, (c["Bcm"] + c["Bim"]) / n }' "$2"
	;;
*)
	echo "usage: $0 sim-options | per FILE COUNT UNIT" >&2
	exit 2
	;;
esac
