#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tools/bench-pipeline.sh — single-lcore pipeline benchmark (docs/testing.md, "Pipeline
# benchmark").
#
# One forwarding lcore reads minimum-size substrate frames from
#   net_pcap0,rx_pcap=FILE,infinite_rx=1       (replayed from memory, forever)
# and sends to
#   net_null0,no-rx=1                          (swallows everything)
# for DURATION seconds each, for:
#   slicepathd            the ipv4 code option, 2 slices (run to completion on lcore 1)
#   dpdk-testpmd          --forward-mode=io (the ceiling: no packet work at all)
#   l3fwd                 DPDK's example (LPM), built from Debian's dpdk-doc sources
# The forwarding rate is read for every program the same way: DPDK telemetry
# /ethdev/stats,<net_null0's port> opackets, before and after the measured period.
#
# The frames are 70 bytes (74 on the wire; -6 below: 90): 64-byte frames cannot hold a substrate
# header (42 bytes) plus an inner IPv4/UDP header (28 bytes); all three programs
# get the same file, FLOWS frames (1 to 100000, default 64), each program's mbuf
# pool sized to hold them (infinite_rx keeps them all).
#
# With -F RULES, slice alpha holds the filters of a ClassBench rule file instead of
# one (expanded by sp-cb-expand, the first whole rules that fit in 131072 filters,
# one NPE's table), and its flows are packets inside random ones of them (rules that
# allow UDP); beta keeps its one filter.
#
# With -S SLICES (more than 2), slices s1..sN share the NPE instead, the flows spread
# over them; with -F their filters are the rule file's, dealt out round robin (128K in
# all), each slice's flows inside its own. -Q QUEUES binds that many queues in all
# (QUEUES/SLICES a slice), the filters' results spread over them. -2 splits the LC
# (lcore 1) from the NPE (lcore 2, on CPU 0 beside the main lcore: there are 2 CPUs);
# -N makes two NPEs instead, the slices alternating between them: NPE 0 on the LC's
# lcore 1, NPE 1 on lcore 2.
# The issue 7 target run: -S 64 -Q 4096 -F RULES (a 128K rule file), with and without -2.
#
# -6 runs the substrate over IPv6: the frames come to p0's IPv6 address (2001:200::1)
# and the filters' next hop is IPv6 (out from p1's 2001:200:1::1 with the UDP checksum
# IPv6 requires), the inner packets and the code option (ipv4) as without it; the
# frames are 90 bytes (94 on the wire), and l3fwd, given the same file, routes them by
# its IPv6 table (R2001:200::/48): its IPv6 mode.
#
# -r ROUNDS runs the programs that many times in turn (slicepathd, testpmd, l3fwd, then
# again), prints each round and the medians, the ratio as the median of the rounds'
# ratios: figures from one round move by a few percent (the VMs are shared). With -I
# the callgrind files left are the last round's.
#
# -I counts instructions instead of time, free of the machines' noise: slicepathd and
# l3fwd each run under valgrind's callgrind (some minutes), which counts what the
# forwarding lcore executes (sp_lcore_main, lpm_main_loop) in the measured period
# (callgrind_control zeroes the counts at its start and dumps them at its end);
# divided by the frames sent meanwhile, that is instructions a packet, harness
# (net_pcap's copy, net_null's free) included. testpmd is left out (Debian strips it).
#
# -P profiles each program's forwarding lcore over the measured period (perf, root):
# its time a packet split by stage (cpu-clock samples: rx+decap+demux, parse, lookup,
# format, encap, queue manager, tx, the harness; tools/bench-profile.py) and, where the
# machine has a PMU, cycles, instructions, L1/LLC/dTLB and branch misses a packet (perf
# stat). With -I as well, callgrind simulates the caches and branches instead (no PMU in
# a VM): D1, LL and I1 misses and mispredicted branches a packet beside the instructions.
#
# usage: tools/bench-pipeline.sh [-d SECONDS] [-w WARMUP] [-o DIR] [-f FLOWS] [-F RULES]
#                                [-S SLICES] [-Q QUEUES] [-2 | -N] [-6] [-r ROUNDS] [-I] [-P]
#   environment: SLICEPATH_BUILD_DIR (default build), BENCH_EAL (default "-m 900" on
#   hugepages when 900 MB of them are free, else "--no-huge -m 900" with a warning:
#   tools/bench-memory.sh, docs/testing.md)
# Needs root and a build (scripts/setup.sh). Artifacts go to DIR (default /tmp/slicepath-bench).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="${SLICEPATH_BUILD_DIR:-$ROOT/build}"
DURATION=10
WARMUP=2
WORK=/tmp/slicepath-bench
FLOWS=64
RULES=""
NSLICES=2
NQUEUES=0
SPLIT=0
SUBSTRATE6=0
PY=/usr/bin/python3
# shellcheck source=tools/bench-memory.sh
. "$ROOT/tools/bench-memory.sh"
# One program at a time: 900 MB leave room beside them in the 1 GB setup.sh reserves.
bench_memory 900

COUNT=0
ROUNDS=1
usage() { sed -n '3,67p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
PROFILE=0
while getopts "d:w:o:f:F:S:Q:2N6r:IPh" opt; do
	case "$opt" in
	d) DURATION="$OPTARG" ;;
	w) WARMUP="$OPTARG" ;;
	o) WORK="$OPTARG" ;;
	f) FLOWS="$OPTARG" ;;
	F) RULES="$OPTARG" ;;
	S) NSLICES="$OPTARG" ;;
	Q) NQUEUES="$OPTARG" ;;
	2) SPLIT=1 ;;
	N) SPLIT=2 ;;
	6) SUBSTRATE6=1 ;;
	r) ROUNDS="$OPTARG" ;;
	I) COUNT=1 ;;
	P) PROFILE=1 ;;
	h) usage 0 ;;
	*) usage 1 ;;
	esac
done

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] ERROR: %s\n' "$*" >&2; exit 1; }

[[ "$ROUNDS" =~ ^[1-9][0-9]?$ ]] || die "-r $ROUNDS: give a number of rounds from 1 to 99"
[ "$(id -u)" -eq 0 ] || die "needs root (DPDK): sudo $0"
[ "$PROFILE" -eq 0 ] || [ "$COUNT" -eq 1 ] || command -v perf >/dev/null ||
	die "-P needs perf (Debian package linux-perf): run scripts/setup.sh"
[ -x "$BUILD_DIR/slicepathd" ] || die "$BUILD_DIR/slicepathd is missing: run scripts/setup.sh first"
command -v dpdk-testpmd >/dev/null || die "dpdk-testpmd is missing (Debian package dpdk-dev): run scripts/setup.sh"
[ -d /usr/share/dpdk/examples/l3fwd ] || die "DPDK example sources are missing (Debian package dpdk-doc): run scripts/setup.sh"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (lcore 0: main, lcore 1: forwarding)"
[ "$COUNT" -eq 0 ] || command -v valgrind >/dev/null || die "-I needs valgrind: apt-get install valgrind"

mkdir -p "$WORK"
PCAP="$WORK/substrate.pcap"
CONF="$WORK/slicepathd-bench.json"
FILTERS="$WORK/alpha-filters.txt"
rm -f "$FILTERS"
if [ -n "$RULES" ]; then
	[ -r "$RULES" ] || die "-F $RULES: no such rule file"
	log "expanding $RULES into $FILTERS"
	"$BUILD_DIR/tools/sp-cb-expand" -f -m 131072 "$RULES" >"$FILTERS" \
		|| die "sp-cb-expand could not expand $RULES"
fi

# ---------------------------------------------------------------- input and config
[[ "$NSLICES" =~ ^[0-9]+$ ]] && [ "$NSLICES" -ge 2 ] && [ "$NSLICES" -le 250 ] \
	|| die "-S takes 2 to 250 slices"
[[ "$NQUEUES" =~ ^[0-9]+$ ]] || die "-Q takes a number of queues"
# Every frame of the file stays in an mbuf of each program's pool (net_pcap's infinite_rx).
[[ "$FLOWS" =~ ^[0-9]+$ ]] && [ "$FLOWS" -ge 1 ] && [ "$FLOWS" -le 100000 ] \
	|| die "-f takes 1 to 100000 flows"
log "writing $PCAP ($FLOWS flows, $NSLICES slices) and $CONF"
"$PY" - "$PCAP" "$CONF" "$FLOWS" "$FILTERS" "$NSLICES" "$NQUEUES" "$SPLIT" "$SUBSTRATE6" <<'EOF'
import json, os, random, socket, sys
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether
from scapy.utils import wrpcap

pcap, conf, flows, filters_file = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
# split: 0 one lcore, 1 LC and NPE on lcores of their own, 2 two NPEs
nslices, nqueues, split = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
v6 = sys.argv[8] == "1"  # the substrate over IPv6
# alpha's filters from sp-cb-expand -f: (key, mask) bytes in the ipv4 key layout
big = []
if os.path.exists(filters_file):
    for line in open(filters_file):
        _, key, mask = line.split()
        big.append((bytes.fromhex(key), bytes.fromhex(mask)))
rnd = random.Random(1)

def inside(key, mask):
    """A key of the filter's box: its bits where the mask says, random elsewhere."""
    return bytes(k | (rnd.randrange(256) & ~m & 0xff) for k, m in zip(key, mask))

P0_IP, P0_MAC, P1_IP, P1_MAC = "10.0.0.1", "02:00:00:00:00:01", "10.0.1.1", "02:00:00:00:01:01"
NH_IP, NH_MAC = "10.0.1.2", "02:00:00:00:01:02"
# -6: the ports' IPv6 addresses, the next hop's; l3fwd's IPv6 table routes 2001:200::/48
P0_IP6, P1_IP6, NH_IP6 = "2001:200::1", "2001:200:1::1", "2001:200:1::2"
# Two slices: alpha (the rule file's filters, if any) and beta. More: s1..sN, the rule
# file's filters dealt out round robin.
if nslices == 2:
    slices = [("alpha", 1, 5001, "192.168.1.0"), ("beta", 2, 5002, "192.168.2.0")]
    rules = {"alpha": big}
else:
    slices = [(f"s{k + 1}", k + 1, 5001 + k, f"192.168.{k + 1}.0") for k in range(nslices)]
    rules = {f"s{k + 1}": big[k::nslices] for k in range(nslices)} if big else {}
queues = max(1, nqueues // nslices)
udp_ok = {n: [f for f in r if f[1][12] == 0 or f[0][12] == 17] for n, r in rules.items()}
frames = []
for i in range(flows):
    name, sid, udp, net = slices[i % nslices]
    dst = net.rsplit(".", 1)[0] + f".{1 + i // nslices % 250}"
    src, sport, dport = f"172.16.{i // 250 % 250}.{1 + i % 250}", 1024 + i % 60000, 53
    if udp_ok.get(name):
        k = inside(*rnd.choice(udp_ok[name]))
        dst, src = socket.inet_ntoa(k[0:4]), socket.inet_ntoa(k[4:8])
        sport, dport = int.from_bytes(k[8:10], "big"), int.from_bytes(k[10:12], "big")
    inner = IP(src=src, dst=dst, ttl=64, id=0) / UDP(sport=sport, dport=dport)
    outer = IPv6(src="2001:200::2", dst=P0_IP6) if v6 else \
        IP(src="10.0.0.2", dst=P0_IP, id=0, flags="DF")
    f = Ether(src="02:aa:00:00:00:01", dst=P0_MAC) / outer / UDP(sport=4000, dport=udp) / inner
    assert len(f) == (90 if v6 else 70), len(f)
    frames.append(f)
wrpcap(pcap, frames, linktype=1)

def ipv4_filter(pos, key, mask):
    return {"position": pos, "key": key.hex(), "mask": mask.hex(),
            "result": {"endpoint": 1, "queue": pos % queues,
                       "next_hop": f"[{NH_IP6}]:6000" if v6 else f"{NH_IP}:6000"}}

def filters(name, net):
    if rules.get(name):
        return [ipv4_filter(i, k, m) for i, (k, m) in enumerate(rules[name])]
    return [ipv4_filter(0, bytes(int(x) for x in net.split(".")) + bytes(10),
                        b"\xff\xff\xff\x00" + bytes(10))]

table = {name: filters(name, net) for name, _, _, net in slices}
quota = {name: max(64, len(f)) for name, f in table.items()}
nnpes = 2 if split == 2 else 1
cfg = {
    "eal": [],
    # its own sockets: a node in service may be running beside the benchmark
    "mgmt_socket": os.path.join(os.path.dirname(conf), "slicepathd.sock"),
    "channel_dir": os.path.join(os.path.dirname(conf), "channels"),
    "ports": [
        {"name": "p0", "device": f"net_pcap0,rx_pcap={pcap},infinite_rx=1", "ipv4": P0_IP, "mac": P0_MAC,
         "rate": "10T", **({"ipv6": P0_IP6} if v6 else {})},
        # the output's rate must not be what limits the figure: 10 Tbit/s
        {"name": "p1", "device": "net_null0,no-rx=1", "ipv4": P1_IP, "mac": P1_MAC, "rate": "10T",
         **({"ipv6": P1_IP6} if v6 else {})},
    ],
    "neighbors": [{"port": "p1", "ipv4": NH_IP, "mac": NH_MAC}]
                 + ([{"port": "p1", "ipv6": NH_IP6, "mac": NH_MAC}] if v6 else []),
    # one NPE (two with -N, the slices alternating), its tables big enough for its slices
    "npes": [{"filters": sum(quota[n] for n, *_ in slices[e::nnpes]),
              "queues": max(256, queues * len(slices[e::nnpes]))} for e in range(nnpes)],
    # net_pcap's infinite_rx holds a copy of every frame of the file in mbufs of the pool
    "mbufs": max(32768, flows + 16384),
    "lcores": {0: [{"id": 1, "lc": True, "npes": [0]}],
               1: [{"id": 1, "lc": True, "npes": []}, {"id": 2, "npes": [0]}],
               2: [{"id": 1, "lc": True, "npes": [0]}, {"id": 2, "npes": [1]}]}[split],
    "slices": [
        {"name": name, "id": sid, "codeopt": "ipv4", "npe": (sid - 1) % nnpes,
         "endpoints": [{"port": "p0", "udp_port": udp},
                       {"port": "p1", "udp_port": udp, "bandwidth": "10G"}],
         "queues": [{"id": q, "endpoint": 1} for q in range(queues)],
         "queue_quota": queues,
         "filter_quota": quota[name],
         "filters": table[name]}
        for name, sid, udp, net in slices
    ],
}
json.dump(cfg, open(conf, "w"), indent=2)
EOF

# ---------------------------------------------------------------- l3fwd from dpdk-doc
L3FWD="$("$ROOT/tools/build-l3fwd.sh" "$WORK")" || die "l3fwd is needed as the baseline"
printf 'R10.0.0.0/24 1\n' >"$WORK/l3fwd-v4.cfg"
printf 'R2001:200::/48 1\n' >"$WORK/l3fwd-v6.cfg"

# ---------------------------------------------------------------- measuring
PID=""
cleanup() {
	if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
		kill -INT "$PID" 2>/dev/null || true
		sleep 1
		kill -KILL "$PID" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# measure NAME PREFIX LOG LOOP -- CMD...: start CMD, wait for its telemetry, measure, stop it.
# Sets RESULT to the rate in Mpps (with -I: instructions a packet in LOOP, the
# forwarding lcore's function, and all it calls), or "-" when the program failed.
measure() {
	local name="$1" prefix="$2" logf="$3" loop="$4" startup=60 stop=100
	local cg="$WORK/$name.callgrind"
	shift 5
	rm -f "$WORK/$name.profile" "$WORK/$name.data" "$WORK/$name.stat"
	if [ "$COUNT" -eq 1 ]; then
		# Under callgrind start-up is some 50 times slower, and so is the dump at exit.
		set -- valgrind --tool=callgrind --fair-sched=yes --collect-atstart=no \
			--toggle-collect="$loop" --callgrind-out-file="$cg" \
			$([ "$PROFILE" -eq 1 ] && "$ROOT/tools/callgrind.sh" sim-options) "$@"
		startup=900 stop=1200
		rm -f "$cg" "$cg".*
	fi
	log "$name: $*"
	setsid "$@" >"$logf" 2>&1 </dev/null &
	PID=$!
	local out rc=0
	local how=()
	[ "$COUNT" -eq 0 ] || how=(--callgrind)
	[ "$COUNT" -eq 1 ] || [ "$PROFILE" -eq 0 ] || how=(--perf "$WORK/$name")
	out="$("$PY" "$ROOT/tools/sp_null_rate.py" "$prefix" "$PID" "$WARMUP" "$DURATION" "$startup" \
		"${how[@]}")" || rc=$?
	kill -INT "$PID" 2>/dev/null || true
	local waited=0
	while kill -0 "$PID" 2>/dev/null && [ "$waited" -lt "$stop" ]; do sleep 0.1; waited=$((waited + 1)); done
	kill -KILL "$PID" 2>/dev/null || true
	wait "$PID" 2>/dev/null || true
	PID=""
	rm -rf "/var/run/dpdk/$prefix"
	if [ "$rc" -ne 0 ] || [ -z "$out" ]; then
		log "$name failed; its log ($logf):"
		tail -n 25 "$logf" >&2
		RESULT="-"
		return 0
	fi
	RESULT="${out% *}"
	if [ "$COUNT" -eq 1 ]; then
		local ir
		# The measured period's counts: callgrind's first dump (the rest is in $cg).
		ir="$(callgrind_annotate "$cg.1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')"
		[ -n "$ir" ] || { log "$name: no instruction count in $cg.1"; RESULT="-"; return 0; }
		RESULT="$((ir / ${out#* }))"
		log "$name: $ir instructions in $loop for ${out#* } frames ($cg.1)"
		[ "$PROFILE" -eq 0 ] || "$ROOT/tools/callgrind.sh" per "$cg.1" "${out#* }" "a packet" >"$WORK/$name.profile"
	elif [ "$PROFILE" -eq 1 ]; then
		"$PY" "$ROOT/tools/bench-profile.py" "$WORK/$name" $out >"$WORK/$name.profile" ||
			log "$name: no profile ($WORK/$name.data)"
	fi
	log "$name: $RESULT $([ "$COUNT" -eq 1 ] && echo "instructions a packet" || echo Mpps)"
}

# l3fwd sizes its pool from the rx queue size (two ports): room for the file's frames too.
L3FWD_RXD=$(((FLOWS + 2048) / 2 > 1024 ? (FLOWS + 2048) / 2 : 1024))
VDEVS=(--vdev "net_pcap0,rx_pcap=$PCAP,infinite_rx=1" --vdev "net_null0,no-rx=1")
# lcore 0: main (slicepathd's management thread, testpmd's prompt), lcore 1: forwarding.
# l3fwd makes a tx queue per lcore and the pcap vdev has one: it runs on lcore 1 alone.
COMMON_EAL=("${EAL_MEM[@]}" --no-pci)
# On hugepages: l3fwd leaves its hugepage files behind when stopped (a
# gigabyte here), which the next program then lacks; unlinked, they go with it.
[[ " ${EAL_MEM[*]} " == *" --no-huge "* ]] || COMMON_EAL+=(--huge-unlink)

# DPDK's file prefixes of this run's programs: another benchmark running beside it
# (an -I run takes minutes) would otherwise lock this one out of its EAL.
RUN="sp-bench-$$"
SP_LCORES=(-l 0,1)
# -2: the NPE's lcore 2 runs on CPU 0 with the main lcore (management, mostly asleep).
# -N: NPE 1's lcore 2 likewise.
[ "$SPLIT" -eq 0 ] || SP_LCORES=(--lcores "0@0,1@1,2@0")
SP=() TP=() L3=()
for ((round = 1; round <= ROUNDS; round++)); do
	[ "$ROUNDS" -eq 1 ] || log "round $round of $ROUNDS"
	measure slicepathd "$RUN"-slicepathd "$WORK/slicepathd.log" sp_lcore_main -- \
		"$BUILD_DIR/slicepathd" -c "$CONF" -- "${COMMON_EAL[@]}" "${SP_LCORES[@]}" \
		--file-prefix "$RUN"-slicepathd
	SP+=("$RESULT")
	RESULT="-"
	[ "$COUNT" -eq 1 ] || measure testpmd "$RUN"-testpmd "$WORK/testpmd.log" - -- \
		dpdk-testpmd "${COMMON_EAL[@]}" -l 0,1 --file-prefix "$RUN"-testpmd "${VDEVS[@]}" -- \
		--forward-mode=io --auto-start --stats-period 3600 --total-num-mbufs "$((FLOWS + 16384))"
	TP+=("$RESULT")
	measure l3fwd "$RUN"-l3fwd "$WORK/l3fwd.log" lpm_main_loop -- \
		"$L3FWD" "${COMMON_EAL[@]}" -l 1 --file-prefix "$RUN"-l3fwd "${VDEVS[@]}" -- \
		-p 0x3 -P --parse-ptype --config "(0,0,1),(1,0,1)" \
		--rule_ipv4 "$WORK/l3fwd-v4.cfg" --rule_ipv6 "$WORK/l3fwd-v6.cfg" --rx-queue-size "$L3FWD_RXD"
	L3+=("$RESULT")
done

ratio() {
	if [ "$1" = - ] || [ "$2" = - ]; then echo "-"; else "$PY" -c "print(f'{$1 / $2:.2f}')"; fi
}
# The median of the figures given (as they are written: Mpps with two decimals,
# instructions whole), "-" if one is (a program that failed in any round).
median() {
	"$PY" -c 'import statistics, sys
v = sys.argv[1:]
m = None if "-" in v else statistics.median(map(float, v))
print("-" if m is None else f"{m:.2f}" if any("." in x for x in v) else round(m))' "$@"
}
# The median of the rounds' ratios of the programs in arrays $1 and $2.
median_ratio() {
	local -n a="$1" b="$2"
	local r=() i
	for i in "${!a[@]}"; do r+=("$(ratio "${a[$i]}" "${b[$i]}")"); done
	median "${r[@]}"
}

# With -P: each program's profile (the last round's).
profiles() {
	local name
	[ "$PROFILE" -eq 1 ] || return 0
	for name in slicepathd testpmd l3fwd; do
		[ -s "$WORK/$name.profile" ] || continue
		echo "$name, a packet on its forwarding lcore:"
		cat "$WORK/$name.profile"
	done
}

echo
echo "pipeline benchmark: $([ "$SUBSTRATE6" -eq 1 ] && echo "90-byte IPv6" || echo "70-byte IPv4") substrate frames, $FLOWS flows, $NSLICES slices, $NQUEUES queues,"
echo "slicepathd on $(case "$SPLIT" in 1) echo "two lcores (LC, NPE)" ;; 2) echo "two lcores (LC + NPE 0, NPE 1)" ;; *) echo "one lcore" ;; esac)"
[ -z "$RULES" ] || echo "filters: the $(wc -l <"$FILTERS") of $RULES (sp-cb-expand -f -m 131072)"
echo "net_pcap (infinite_rx) -> net_null, ${DURATION}s each after ${WARMUP}s warm-up"
echo "$MEMORY"
if [ "$ROUNDS" -gt 1 ]; then
	# Rates: slicepathd's share of l3fwd's; instructions: l3fwd's share of slicepathd's.
	if [ "$COUNT" -eq 1 ]; then heading="l3fwd/slicepathd"; else heading="slicepathd/l3fwd"; fi
	printf '%-6s %10s %10s %10s %18s\n' "round" "slicepathd" "testpmd" "l3fwd" "$heading"
	for i in "${!SP[@]}"; do
		r="$(ratio "${SP[$i]}" "${L3[$i]}")"
		[ "$COUNT" -eq 0 ] || r="$(ratio "${L3[$i]}" "${SP[$i]}")"
		printf '%-6s %10s %10s %10s %18s\n' "$((i + 1))" "${SP[$i]}" "${TP[$i]}" "${L3[$i]}" "$r"
	done
	echo "medians of $ROUNDS rounds (ratios: of the rounds' ratios):"
fi
sp="$(median "${SP[@]}")" tp="$(median "${TP[@]}")" l3="$(median "${L3[@]}")"
if [ "$COUNT" -eq 1 ]; then
	printf '%-34s %8s\n' "program" "instructions a packet (callgrind)"
	printf '%-34s %8s\n' "slicepathd (ipv4 code option)" "$sp"
	printf '%-34s %8s\n' "l3fwd (LPM, dpdk-doc example)" "$l3"
	printf '%-34s %8s\n' "l3fwd / slicepathd" "$(median_ratio L3 SP)"
	profiles
	echo "logs, inputs and callgrind files (callgrind_annotate FILE): $WORK"
	[ "$sp" != - ] && [ "$l3" != - ]
	exit
fi
printf '%-34s %8s\n' "program" "Mpps"
printf '%-34s %8s\n' "slicepathd (ipv4 code option)" "$sp"
printf '%-34s %8s\n' "dpdk-testpmd --forward-mode=io" "$tp"
printf '%-34s %8s\n' "l3fwd (LPM, dpdk-doc example)" "$l3"
printf '%-34s %8s\n' "slicepathd / testpmd" "$(median_ratio SP TP)"
printf '%-34s %8s\n' "slicepathd / l3fwd" "$(median_ratio SP L3)"
profiles
echo "logs and inputs: $WORK"
[ "$sp" != - ] && [ "$tp" != - ] && [ "$l3" != - ]
