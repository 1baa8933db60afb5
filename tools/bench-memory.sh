# SPDX-License-Identifier: BSD-3-Clause
# tools/bench-memory.sh — sourced by the benchmarks that run DPDK programs: which memory
# they run in. A server runs slicepathd on hugepages (scripts/setup.sh reserves them),
# and 4 KB pages cost a TLB miss on nearly every mbuf (baselines halve), so a benchmark
# runs on hugepages whenever enough are free, and says so; otherwise on --no-huge, with
# a warning that its figures are not comparable with those of hugepage runs.
#
#   bench_memory MB      sets EAL_MEM (EAL arguments) and MEMORY (a line for the
#                        summary) for DPDK programs needing MB megabytes at once;
#                        BENCH_EAL, when set, is taken as it is ("-m 900", "--no-huge -m 1024");
#                        BENCH_MEMINFO: another file in /proc/meminfo's form (the tests')

bench_memory() {
	local mb=$1 free_mb
	if [ -n "${BENCH_EAL:-}" ]; then
		read -r -a EAL_MEM <<<"$BENCH_EAL"
	else
		free_mb=$(awk '/^HugePages_Free:/ {f = $2} /^Hugepagesize:/ {s = $2}
			END {print int(f * s / 1024)}' "${BENCH_MEMINFO:-/proc/meminfo}")
		if [ "$free_mb" -ge "$mb" ]; then
			EAL_MEM=(-m "$mb")
		else
			EAL_MEM=(--no-huge -m "$mb")
			printf '[bench] WARNING: %s MB of hugepages free, %s needed: running --no-huge (4 KB pages), figures NOT comparable with hugepage runs (reserve more: scripts/setup.sh, docs/testing.md)\n' \
				"$free_mb" "$mb" >&2
		fi
	fi
	if [[ " ${EAL_MEM[*]} " == *" --no-huge "* ]]; then
		MEMORY="memory: 4 KB pages (--no-huge): not comparable with hugepage figures; EAL ${EAL_MEM[*]}"
	else
		MEMORY="memory: hugepages; EAL ${EAL_MEM[*]}"
	fi
}
