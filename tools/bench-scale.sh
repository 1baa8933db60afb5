#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# tools/bench-scale.sh — forwarding rate against the number of forwarding lcores,
# 1 to MAXN, for slicepathd (N LC lcores) and DPDK's l3fwd (N lcores), in one run
# (docs/testing.md, "Scaling benchmark").
#
# At N lcores both programs read 70-byte substrate frames (the pipeline benchmark's)
# from N rx queues of
#   net_pcap0,rx_pcap=Q0,...,rx_pcap=Q(N-1),infinite_rx=1   (one queue a file, replayed
#                                                            forever; N dropping tx queues)
# and send to
#   net_null0,no-rx=1                                       (swallows everything)
# slicepathd: lcores[] = [{"id": k, "lc": true, "npes": [k-1]}] for k = 1..N: LC lcore
#   k-1 polls rx queue k-1 of each port and runs NPE k-1; SLICES slices a NPE (ipv4
#   code option, one filter each), dealt round robin (slice i on NPE i mod N).
#   -m steered: queue k holds only the frames of NPE k's slices (what rte_flow rules
#               per endpoint would deliver on a NIC): no frame changes lcore;
#   -m mixed:   the same frames, every queue carrying every slice's (RSS-like; each
#               slice in each queue where FLOWS >= N x SLICES): (N-1)/N of them cross
#               to another lcore's NPE through its rx ring;
#   -m both:    both (l3fwd runs once: its LPM sees only the outer header).
# l3fwd: the same lcores on the same CPUs, lcore k polling queue k-1 of both ports
#   (--config '(0,0,1),(0,1,2),...,(1,0,1),(1,1,2),...'), the steered files.
# Each queue holds FLOWS frames (flows), so every lcore has the same work at every N.
#
# CPUs: the main lcore (slicepathd's lcore 0: management, mostly asleep; l3fwd has none,
# its lcore 1 is its main) on the first CPU of CPULIST, forwarding lcore k on CPU
# CPULIST[k]; with fewer than N+1 CPUs listed the surplus lcores wrap (lcore k on
# CPULIST[k mod len]), sharing CPUs, and figures on shared CPUs understate scaling (on a
# 2-CPU VM, N=2 is --lcores 0@0,1@1,2@0, lcore 2 beside the main lcore).
#
# The rate is read for every program the same way: DPDK telemetry /ethdev/stats of
# net_null0's port, opackets before and after DURATION seconds that follow WARMUP
# seconds of flowing packets. Each round runs, for each N, slicepathd (each mode), then
# l3fwd; odd rounds go N = 1..MAXN, even rounds MAXN..1 (drift spread over N). Printed
# per round and as medians: Mpps, factor (rate at N / rate at 1, of the same round),
# and the ratio of factors (slicepathd's / l3fwd's), the medians' factors and ratios the
# medians of the rounds' own (of those that have them: a failed run's figure is "-");
# then the targets (ratio >= 0.90 at N=2, >= 0.85 at every
# N). DIR/scale.csv has every round's row and the medians (round "median").
#
# usage: tools/bench-scale.sh [-n MAXN] [-c CPULIST] [-d SECONDS] [-w WARMUP] [-r ROUNDS]
#                             [-S SLICES] [-f FLOWS] [-m steered|mixed|both] [-o DIR]
#   -n MAXN      most forwarding lcores, 1 to 16 (default: CPUs in CPULIST, at most 16)
#   -c CPULIST   CPUs to use, in order, e.g. 2-15 or 0,2,4,6 (default: all this process
#                may run on); the first is the main lcore's
#   -d SECONDS   measured period (default 5);  -w WARMUP  warm-up before it (default 3)
#   -r ROUNDS    rounds, 1 to 99 (default 3)
#   -S SLICES    slices a NPE (default 2: 2N slices at N lcores)
#   -f FLOWS     frames (flows) a queue (default 64; FLOWS x MAXN at most 100000)
#   -m MODE      steered (default), mixed or both
#   -o DIR       work directory: inputs, configs, logs, scale.csv (default
#                /tmp/slicepath-bench-scale)
#   environment: SLICEPATH_BUILD_DIR (default build), L3FWD (an l3fwd binary; default:
#   built by tools/build-l3fwd.sh in DIR), BENCH_EAL (default "-m 900" on hugepages
#   when 900 MB of them are free, else "--no-huge -m 900" with a warning: tools/bench-memory.sh)
# Needs root, slicepathd built, DPDK's packages and python3 (standard library only).
# Exit status: 0 when every figure was measured (whether or not the targets are met),
# 1 otherwise.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BUILD_DIR="$(realpath -m "${SLICEPATH_BUILD_DIR:-$ROOT/build}")"
MAXN=""
CPULIST=""
DURATION=5
WARMUP=3
ROUNDS=3
SPN=2
FLOWS=64
MODE=steered
WORK=/tmp/slicepath-bench-scale
PY=/usr/bin/python3
# shellcheck source=tools/bench-memory.sh
. "$ROOT/tools/bench-memory.sh"
# One program at a time: 900 MB leave room beside them in the 1 GB setup.sh reserves.
bench_memory 900

usage() { awk 'NR > 3 && /^#/ { sub(/^# ?/, ""); print; next } NR > 3 { exit }' "$0"; exit "${1:-0}"; }
while getopts "n:c:d:w:r:S:f:m:o:h" opt; do
	case "$opt" in
	n) MAXN="$OPTARG" ;;
	c) CPULIST="$OPTARG" ;;
	d) DURATION="$OPTARG" ;;
	w) WARMUP="$OPTARG" ;;
	r) ROUNDS="$OPTARG" ;;
	S) SPN="$OPTARG" ;;
	f) FLOWS="$OPTARG" ;;
	m) MODE="$OPTARG" ;;
	o) WORK="$OPTARG" ;;
	h) usage 0 ;;
	*) usage 1 ;;
	esac
done
[ "$OPTIND" -gt "$#" ] || { printf 'bench-scale: unexpected argument: %s (-h: usage)\n' "${!OPTIND}" >&2; exit 1; }

log() { printf '[scale] %s\n' "$*" >&2; }
die() { printf '[scale] ERROR: %s\n' "$*" >&2; exit 1; }

[[ "$ROUNDS" =~ ^[1-9][0-9]?$ ]] || die "-r $ROUNDS: give a number of rounds from 1 to 99"
[[ "$DURATION" =~ ^[0-9]+([.][0-9]+)?$ ]] && [ "${DURATION//[.0]/}" != "" ] \
	|| die "-d $DURATION: give a number of seconds above 0"
[[ "$WARMUP" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "-w $WARMUP: give a number of seconds"
[[ "$SPN" =~ ^[0-9]+$ ]] && [ "$SPN" -ge 1 ] || die "-S $SPN: give a number of slices a NPE, 1 or more"
[[ "$FLOWS" =~ ^[0-9]+$ ]] && [ "$FLOWS" -ge 1 ] || die "-f $FLOWS: give a number of frames a queue"
case "$MODE" in steered) MODES=(steered) ;; mixed) MODES=(mixed) ;; both) MODES=(steered mixed) ;;
*) die "-m $MODE: give steered, mixed or both" ;; esac
WORK="$(realpath -m "$WORK")"
[ "$(id -u)" -eq 0 ] || die "needs root (DPDK): sudo $0 $*"
[ -x "$PY" ] || die "$PY is missing (Debian package python3)"
[ -x "$BUILD_DIR/slicepathd" ] || die "$BUILD_DIR/slicepathd is missing: run scripts/setup.sh (or set SLICEPATH_BUILD_DIR)"
[ -r "$ROOT/tools/sp_telemetry.py" ] || die "$ROOT/tools/sp_telemetry.py is missing"

# ---------------------------------------------------------------- CPUs
# CPUS: the list, in order; MAXN checked against it. Prints notes on the machine.
CPUINFO="$("$PY" - "$CPULIST" "$MAXN" <<'EOF'
import os, sys

spec, maxn = sys.argv[1], sys.argv[2]

def parse(s):
    out = []
    for part in s.split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        lo, hi = int(lo), int(hi or lo)
        if hi < lo:
            raise ValueError(part)
        out.extend(range(lo, hi + 1))
    return out

allowed = sorted(os.sched_getaffinity(0))
if spec:
    try:
        cpus = parse(spec)
    except ValueError:
        sys.exit(f"-c {spec}: give CPUs as e.g. 2-15 or 0,2,4,6")
    seen = set()
    cpus = [c for c in cpus if not (c in seen or seen.add(c))]
    bad = [c for c in cpus if c not in allowed]
    if bad:
        sys.exit(f"-c {spec}: CPU(s) {','.join(map(str, bad))} not online or not allowed "
                 f"here (allowed: {','.join(map(str, allowed))})")
else:
    cpus = allowed
if not cpus:
    sys.exit("no CPU to run on")
if maxn:
    if not maxn.isdigit() or not 1 <= int(maxn) <= 16:
        sys.exit(f"-n {maxn}: give 1 to 16 lcores (net_pcap has at most 16 queues)")
    maxn = int(maxn)
else:
    maxn = max(1, min(16, len(cpus)))
print(" ".join(map(str, cpus)))
print(maxn)
EOF
)" || die "bad CPU list or -n"
read -r -a CPUS <<<"$(sed -n 1p <<<"$CPUINFO")"
MAXN="$(sed -n 2p <<<"$CPUINFO")"
NCPU=${#CPUS[@]}
[ $((FLOWS * MAXN)) -le 100000 ] || die "-f $FLOWS: FLOWS x MAXN ($((FLOWS * MAXN))) is over 100000 frames (mbuf pools)"
[ $((SPN * MAXN)) -le 250 ] || die "-S $SPN: SLICES x MAXN ($((SPN * MAXN))) is over 250 slices"
[ "$FLOWS" -ge "$SPN" ] || die "-f $FLOWS: a queue needs a frame for each of its NPE's $SPN slices at least"

# The EAL --lcores of N forwarding lcores: lcore k on CPUS[k mod NCPU]; with main 0 on CPUS[0].
lcores_of() {
	local n="$1" main="$2" k s=""
	[ "$main" -eq 0 ] || s="0@${CPUS[0]}"
	for ((k = 1; k <= n; k++)); do s+="${s:+,}$k@${CPUS[$((k % NCPU))]}"; done
	echo "$s"
}

# ---------------------------------------------------------------- leftovers
mkdir -p "$WORK"
RUNNING="$WORK/running" # "PID PREFIX" of the program running now, for a later run to clean up
if [ -r "$RUNNING" ]; then
	read -r old_pid old_prefix <"$RUNNING" || true
	old_cmd=""
	[ -z "${old_pid:-}" ] || old_cmd="$(tr '\0' ' ' <"/proc/$old_pid/cmdline" 2>/dev/null)" || true
	if [ -n "${old_prefix:-}" ] && [[ "$old_cmd" == *"--file-prefix $old_prefix "* ]]; then
		log "killing a leftover of an earlier run: pid $old_pid ($old_prefix)"
		kill -KILL "$old_pid" 2>/dev/null || true
		sleep 0.5
	fi
	[ -z "${old_prefix:-}" ] || rm -rf "/var/run/dpdk/$old_prefix"
	rm -f "$RUNNING"
fi

# ---------------------------------------------------------------- l3fwd
if [ -n "${L3FWD:-}" ]; then
	[ -x "$L3FWD" ] || die "L3FWD=$L3FWD is not an executable"
	L3FWD="$(realpath "$L3FWD")"
else
	L3FWD="$("$ROOT/tools/build-l3fwd.sh" "$WORK")" \
		|| die "l3fwd is needed as the baseline: install dpdk-doc, make and pkg-config (scripts/setup.sh), or set L3FWD=path"
fi
printf 'R10.0.0.0/24 1\n' >"$WORK/l3fwd-v4.cfg"
printf 'R2001:200::/48 1\n' >"$WORK/l3fwd-v6.cfg"

# ---------------------------------------------------------------- inputs and configs
# WORK/in/<m><N>-<k>.pcap (m: s steered, m mixed; queue k of N) and WORK/in/<mode>-n<N>.json
# for N = 1..MAXN. The programs run in WORK/in and name the files relative to it:
# slicepathd takes a device string of at most 511 characters.
log "writing frames and configs for N = 1..$MAXN ($SPN slices a NPE, $FLOWS frames a queue) in $WORK/in"
rm -rf "$WORK/in"
mkdir -p "$WORK/in" "$WORK/logs"
"$PY" - "$WORK" "$MAXN" "$SPN" "$FLOWS" <<'EOF'
import json, os, socket, struct, sys

work, maxn, spn, flows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
P0_IP, P0_MAC, P1_IP, P1_MAC = "10.0.0.1", "02:00:00:00:00:01", "10.0.1.1", "02:00:00:00:01:01"
NH_IP, NH_MAC, SRC_IP, SRC_MAC = "10.0.1.2", "02:00:00:00:01:02", "10.0.0.2", "02:aa:00:00:00:01"

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

def ipv4(src, dst, payload, df):
    src, dst = socket.inet_aton(src), socket.inet_aton(dst)
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0, 0x4000 if df else 0, 64, 17, 0,
                    src, dst)
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload

def udp(src, dst, sport, dport, payload):
    n = 8 + len(payload)
    pseudo = socket.inet_aton(src) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 17, n)
    c = csum(pseudo + struct.pack("!HHHH", sport, dport, n, 0) + payload) or 0xffff
    return struct.pack("!HHHH", sport, dport, n, c) + payload

def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))

def frame(slice_, g, i):
    """Flow g (the run's), the i-th of its queue, of slice_ (0-based): the pipeline benchmark's."""
    dst = f"192.168.{slice_ + 1}.{1 + i // spn % 250}"
    src, sport = f"172.16.{g // 250 % 250}.{1 + g % 250}", 1024 + g % 60000
    inner = ipv4(src, dst, udp(src, dst, sport, 53, b""), False)
    outer = ipv4(SRC_IP, P0_IP, udp(SRC_IP, P0_IP, 4000, 5001 + slice_, inner), True)
    f = mac(P0_MAC) + mac(SRC_MAC) + b"\x08\x00" + outer
    assert len(f) == 70, len(f)
    return f

def wrpcap(path, frames):
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for n, f in enumerate(frames):
            out.write(struct.pack("<IIII", n // 1000000, n % 1000000, len(f), len(f)) + f)

for n in range(1, maxn + 1):
    nslices = spn * n
    # steered: queue q holds NPE q's slices (q, q+n, ...), in turn; its flows q*FLOWS.. .
    steered = [[frame(q + n * (i % spn), q * flows + i, i) for i in range(flows)] for q in range(n)]
    # mixed: the same frames, interleaved over the NPEs, cut into n queues of FLOWS.
    every = [steered[q][i] for i in range(flows) for q in range(n)]
    mixed = [every[q * flows:(q + 1) * flows] for q in range(n)]
    for mode, queues in (("steered", steered), ("mixed", mixed)):
        files = [f"{mode[0]}{n}-{q}.pcap" for q in range(n)]
        for name, frames in zip(files, queues):
            wrpcap(os.path.join(work, "in", name), frames)
        # No tx_pcap: net_pcap then has a tx queue a rx_pcap= that drops what it gets
        # (slicepathd needs a tx queue a forwarding lcore; only ARP would go there).
        dev = "net_pcap0," + ",".join(f"rx_pcap={f}" for f in files) + ",infinite_rx=1"
        cfg = {
            "eal": [],
            # its own sockets: a node in service may be running beside the benchmark
            "mgmt_socket": os.path.join(work, "slicepathd.sock"),
            "channel_dir": os.path.join(work, "channels"),
            "ports": [
                # the output's rate must not be what limits the figure: 10 Tbit/s
                {"name": "p0", "device": dev, "ipv4": P0_IP, "mac": P0_MAC, "rate": "10T"},
                {"name": "p1", "device": "net_null0,no-rx=1", "ipv4": P1_IP, "mac": P1_MAC, "rate": "10T"},
            ],
            "neighbors": [{"port": "p1", "ipv4": NH_IP, "mac": NH_MAC}],
            "npes": [{"filters": 64 * spn, "queues": max(256, spn)} for _ in range(n)],
            # net_pcap's infinite_rx holds every frame of the files in mbufs of the pool;
            # each NPE's rings and queues some more
            "mbufs": max(32768, n * flows + n * 8192 + 16384),
            "lcores": [{"id": k + 1, "lc": True, "npes": [k]} for k in range(n)],
            "slices": [
                {"name": f"s{s + 1}", "id": s + 1, "codeopt": "ipv4", "npe": s % n,
                 "endpoints": [{"port": "p0", "udp_port": 5001 + s},
                               {"port": "p1", "udp_port": 5001 + s, "bandwidth": "10G"}],
                 "queues": [{"id": 0, "endpoint": 1}],
                 "queue_quota": 1,
                 "filter_quota": 64,
                 "filters": [{"position": 0, "key": f"c0a8{s + 1:02x}00" + "00" * 10,
                              "mask": "ffffff00" + "00" * 10,
                              "result": {"endpoint": 1, "queue": 0, "next_hop": f"{NH_IP}:6000"}}]}
                for s in range(nslices)
            ],
        }
        with open(os.path.join(work, "in", f"{mode}-n{n}.json"), "w") as out:
            json.dump(cfg, out, indent=1)
EOF

# ---------------------------------------------------------------- measuring
PID="" PREFIX=""
cleanup() {
	if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
		kill -INT "$PID" 2>/dev/null || true
		sleep 1
		kill -KILL "$PID" 2>/dev/null || true
		wait "$PID" 2>/dev/null || true
	fi
	[ -z "$PREFIX" ] || rm -rf "/var/run/dpdk/$PREFIX"
	rm -f "$RUNNING"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# measure NAME LOG -- CMD...: start CMD (with --file-prefix $PREFIX), wait for its
# telemetry and packets, measure, stop it. Sets RESULT to Mpps, or "-" when it failed.
measure() {
	local name="$1" logf="$2" stop=100
	shift 3
	log "$name: $*"
	# in WORK/in: the pcap files' names are relative to it
	(cd "$WORK/in" && exec setsid "$@" >"$logf" 2>&1 </dev/null) &
	PID=$!
	echo "$PID $PREFIX" >"$RUNNING"
	local out why="$WORK/logs/measure.err" rc=0
	out="$("$PY" "$ROOT/tools/sp_null_rate.py" "$PREFIX" "$PID" "$WARMUP" "$DURATION" 60 \
		2>"$why" | cut -d' ' -f1)" || rc=$?
	kill -INT "$PID" 2>/dev/null || true
	local waited=0
	while kill -0 "$PID" 2>/dev/null && [ "$waited" -lt "$stop" ]; do sleep 0.1; waited=$((waited + 1)); done
	kill -KILL "$PID" 2>/dev/null || true
	wait "$PID" 2>/dev/null || true
	PID=""
	rm -rf "/var/run/dpdk/$PREFIX"
	rm -f "$RUNNING"
	if [ "$rc" -ne 0 ] || [ -z "$out" ]; then
		printf '[scale] ERROR: %s failed (%s); the last lines of its log (%s):\n' \
			"$name" "$(tail -n 1 "$why")" "$logf" >&2
		tail -n 25 "$logf" | awk '{ print "    " $0 }' >&2
		RESULT="-"
		return 0
	fi
	RESULT="$out"
	log "$name: $RESULT Mpps"
}

# l3fwd sizes its pool from the rx queue size (two ports): room for a queue's frames too.
L3FWD_RXD=$(((FLOWS + 2048) / 2 > 1024 ? (FLOWS + 2048) / 2 : 1024))
COMMON_EAL=("${EAL_MEM[@]}" --no-pci)
# On hugepages: l3fwd leaves its hugepage files behind when stopped; unlinked, they go with it.
[[ " ${EAL_MEM[*]} " == *" --no-huge "* ]] || COMMON_EAL+=(--huge-unlink)
RAW="$WORK/raw.csv" # round,program,mode,n,mpps
echo "round,program,mode,n,mpps" >"$RAW"

# report ROUND|all: the tables (a round's, or every round's and the medians) and
# scale.csv (with "all"); exit status 1 when a figure is missing.
report() {
	"$PY" - "$RAW" "$1" "$MAXN" "$WORK/scale.csv" "$NCPU" "${CPUS[*]}" <<'EOF'
import csv, statistics, sys

raw, which, maxn, out_csv, ncpu, cpus = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), sys.argv[6].split()
rows = list(csv.DictReader(open(raw)))
fig = {}
for r in rows:
    fig[(int(r["round"]), r["program"], r["mode"], int(r["n"]))] = None if r["mpps"] == "-" else float(r["mpps"])
rounds = sorted({k[0] for k in fig})
modes = [m for m in ("steered", "mixed") if any(k[2] == m for k in fig)]
ns = list(range(1, maxn + 1))

def sp(rnd, mode, n):
    # mixed at N=1 is steered at N=1 (one queue): with -m both, measured once
    k = (rnd, "slicepathd", mode, n)
    return fig[k] if k in fig else fig.get((rnd, "slicepathd", "steered", n))

def l3(rnd, n):
    return fig.get((rnd, "l3fwd", "-", n))

def div(a, b):
    return None if a is None or b is None or b == 0 else a / b

def line(rnd, mode, n):
    s, l = sp(rnd, mode, n), l3(rnd, n)
    fs, fl = div(s, sp(rnd, mode, 1)), div(l, l3(rnd, 1))
    return {"s": s, "l": l, "fs": fs, "fl": fl, "ratio": div(fs, fl)}

def med(vals):
    """The median of the rounds that have the figure (a failed run's are left out)."""
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None

def cpus_of(n):
    """The forwarding lcores' CPUs, in lcore order, runs written as ranges: 1-14, 1,0."""
    runs = []
    for c in (int(cpus[k % ncpu]) for k in range(1, n + 1)):
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs)

def fmt(v):
    return "-" if v is None else f"{v:.2f}"

def table(title, lines):
    print(title)
    print(f"{'N':>3} {'fwd CPUs':<14}" + "".join(f"{'sp ' + m:>12} {'factor':>7} {'ratio':>6}" for m in modes)
          + f" {'l3fwd':>8} {'factor':>7}")
    for n in ns:
        c = cpus_of(n)
        c = c if len(c) <= 14 else c[:13] + "+"
        row = f"{n:>3} {c:<14}"
        for m in modes:
            x = lines[m][n]
            row += f"{fmt(x['s']):>12} {fmt(x['fs']):>7} {fmt(x['ratio']):>6}"
        x = lines[modes[0]][n]
        print(row + f" {fmt(x['l']):>8} {fmt(x['fl']):>7}")

if which != "all":
    rnd = int(which)
    table(f"round {rnd} (Mpps; factor: rate at N / rate at 1; ratio: slicepathd's factor / l3fwd's)",
          {m: {n: line(rnd, m, n) for n in ns} for m in modes})
    sys.exit(0)

per = {m: {n: [line(r, m, n) for r in rounds] for n in ns} for m in modes}
medians = {m: {n: {k: med([x[k] for x in per[m][n]]) for k in ("s", "l", "fs", "fl", "ratio")}
               for n in ns} for m in modes}
missing = any(v is None for v in fig.values())
with open(out_csv, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["round", "mode", "n", "cpus", "slicepathd_mpps", "l3fwd_mpps", "slicepathd_factor",
                "l3fwd_factor", "ratio"])
    for m in modes:
        for r in rounds:
            for n in ns:
                x = line(r, m, n)
                w.writerow([r, m, n, cpus_of(n)] + [("" if x[k] is None else f"{x[k]:.4f}")
                                                    for k in ("s", "l", "fs", "fl", "ratio")])
        for n in ns:
            x = medians[m][n]
            w.writerow(["median", m, n, cpus_of(n)] + [("" if x[k] is None else f"{x[k]:.4f}")
                                                       for k in ("s", "l", "fs", "fl", "ratio")])
print()
table(f"medians of {len(rounds)} round(s) (factors and ratios: medians of the rounds' own"
      + ("; a failed run's figures left out)" if missing else ")"), medians)
print()
for m in modes:
    x2 = medians[m][2]["ratio"] if maxn >= 2 else None
    if maxn < 2:
        print(f"target ({m}): ratio of factors >= 0.90 at N=2: not measured (MAXN 1)")
    else:
        print(f"target ({m}): ratio of factors >= 0.90 at N=2: {fmt(x2)} "
              f"{'(figures missing)' if x2 is None else 'met' if x2 >= 0.9 else 'NOT met'}")
    rs = [(medians[m][n]["ratio"], n) for n in ns if n >= 2]
    if not rs:
        print(f"target ({m}): ratio of factors >= 0.85 at every N: not measured (MAXN 1)")
    elif any(r is None for r, _ in rs):
        print(f"target ({m}): ratio of factors >= 0.85 at every N: - (figures missing)")
    else:
        low = [f"N={n} {r:.2f}" for r, n in rs if r < 0.85]
        worst = min(rs)
        print(f"target ({m}): ratio of factors >= 0.85 at every N: lowest {worst[0]:.2f} at N={worst[1]} "
              + ("met" if not low else "NOT met (" + ", ".join(low) + ")"))
print(f"csv: {out_csv}")
sys.exit(1 if missing else 0)
EOF
}

# ---------------------------------------------------------------- the machine
"$PY" - "$MAXN" "${CPUS[*]}" <<'EOF' || true
import os, sys
maxn, cpus = int(sys.argv[1]), [int(c) for c in sys.argv[2].split()]
model, flags = "?", []
for line in open("/proc/cpuinfo"):
    k, _, v = line.partition(":")
    if k.strip() == "model name" and model == "?":
        model = v.strip()
    if k.strip() == "flags" and not flags:
        flags = v.split()
avx = sorted(f for f in flags if f.startswith("avx512"))
print(f"CPU: {model}, {os.cpu_count()} CPUs online; avx512: {' '.join(avx) if avx else 'none'}")
used = sorted({cpus[k % len(cpus)] for k in range(0, maxn + 1)})
def siblings(c):
    try:
        text = open(f"/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list").read()
    except OSError:
        return {c}
    out = set()
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out
pairs = sorted({f"{c} and {o}" for c in used for o in used if c < o and o in siblings(c)})
if pairs:
    print(f"note: hyper-thread siblings among the CPUs used ({'; '.join(pairs)}): lcores on them share a core")
def node(c):
    d = f"/sys/devices/system/cpu/cpu{c}"
    try:
        return next(n for n in os.listdir(d) if n.startswith("node") and n[4:].isdigit())
    except (OSError, StopIteration):
        return None
nodes = sorted({node(c) for c in set(used)} - {None})
if len(nodes) > 1:
    print(f"note: the CPUs used span NUMA nodes {', '.join(nodes)}")
print(f"load average: {open('/proc/loadavg').read().split()[0]} (other busy processes lower the figures)")
EOF
if [ $((MAXN + 1)) -gt "$NCPU" ]; then
	log "WARNING: $NCPU CPU(s) for up to $MAXN forwarding lcores and the main lcore: from N=$NCPU on,"
	log "         lcores share CPUs (lcore k on CPU list[k mod $NCPU]); figures on shared CPUs understate scaling"
fi
NRUNS=$((ROUNDS * MAXN * (${#MODES[@]} + 1)))
[ "${#MODES[@]}" -eq 1 ] || NRUNS=$((NRUNS - ROUNDS)) # mixed at N=1 is steered at N=1
log "$NRUNS runs of ${WARMUP}+${DURATION} s and start-up: about $((NRUNS * (${WARMUP%.*} + ${DURATION%.*} + 3) / 60 + 1)) min"

RUN_ID="$$"
FAILED=0
for ((round = 1; round <= ROUNDS; round++)); do
	log "round $round of $ROUNDS"
	if ((round % 2)); then order=$(seq 1 "$MAXN"); else order=$(seq "$MAXN" -1 1); fi
	for n in $order; do
		for mode in "${MODES[@]}"; do
			[ "$mode" = steered ] || [ "$n" -gt 1 ] || [ "${#MODES[@]}" -eq 1 ] || continue
			PREFIX="sp-scale-$RUN_ID-sp"
			measure "slicepathd $mode N=$n" "$WORK/logs/slicepathd-$mode-n$n.log" -- \
				"$BUILD_DIR/slicepathd" -c "$WORK/in/$mode-n$n.json" -- "${COMMON_EAL[@]}" \
				--lcores "$(lcores_of "$n" 1)" --file-prefix "$PREFIX"
			echo "$round,slicepathd,$mode,$n,$RESULT" >>"$RAW"
			[ "$RESULT" != - ] || FAILED=1
		done
		# l3fwd: the steered files (its LPM reads the outer header alone: any mode's would do)
		l3mode=steered
		qs="" cfg=""
		for ((q = 0; q < n; q++)); do
			qs+=",rx_pcap=${l3mode:0:1}$n-$q.pcap"
			cfg+="${cfg:+,}(0,$q,$((q + 1)))"
		done
		for ((q = 0; q < n; q++)); do cfg+=",(1,$q,$((q + 1)))"; done
		PREFIX="sp-scale-$RUN_ID-l3"
		measure "l3fwd N=$n" "$WORK/logs/l3fwd-n$n.log" -- \
			"$L3FWD" "${COMMON_EAL[@]}" --lcores "$(lcores_of "$n" 0)" --file-prefix "$PREFIX" \
			--vdev "net_pcap0${qs},infinite_rx=1" --vdev "net_null0,no-rx=1" -- \
			-p 0x3 -P --parse-ptype --config "$cfg" \
			--rule_ipv4 "$WORK/l3fwd-v4.cfg" --rule_ipv6 "$WORK/l3fwd-v6.cfg" --rx-queue-size "$L3FWD_RXD"
		echo "$round,l3fwd,-,$n,$RESULT" >>"$RAW"
		[ "$RESULT" != - ] || FAILED=1
	done
	PREFIX=""
	report "$round" || true
	# A failure in the first round is most likely the setup's (config, memory, binary):
	# stop rather than spend the other rounds on it.
	if [ "$round" -eq 1 ] && [ "$FAILED" -eq 1 ] && [ "$ROUNDS" -gt 1 ]; then
		log "ERROR: a program failed in the first round (its log above): stopping"
		break
	fi
done

echo
echo "scaling benchmark: 70-byte substrate frames, $FLOWS a queue, $SPN slice(s) a NPE, N = 1..$MAXN"
echo "lcores: main on CPU ${CPUS[0]}, lcore k on CPU list[k mod $NCPU] of (${CPUS[*]}); e.g. N=$MAXN: --lcores $(lcores_of "$MAXN" 1)"
echo "net_pcap (N rx_pcap, infinite_rx) -> net_null, ${DURATION}s each after ${WARMUP}s warm-up"
echo "$MEMORY"
echo "slicepathd: $BUILD_DIR/slicepathd; l3fwd: $L3FWD; logs and inputs: $WORK"
rc=0
report all || rc=1
[ "$FAILED" -eq 0 ] || rc=1
exit "$rc"
