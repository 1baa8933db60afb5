#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The forwarding rate of a DPDK program sending to a net_null port, read the way every
benchmark here reads it (tools/bench-pipeline.sh, tools/bench-scale.sh): DPDK telemetry
/ethdev/stats,<net_null port> opackets, before and after DURATION seconds that follow
WARMUP seconds of flowing packets. Prints "MPPS FRAMES".

usage: sp_null_rate.py FILE_PREFIX PID WARMUP DURATION STARTUP [--callgrind | --perf OUT]
  PID: the program's, watched so that an exit during start-up ends the wait at once;
  STARTUP: seconds it may take to show telemetry, a net_null port and packets;
  --callgrind: the program runs under callgrind; zero its counts when the measured period
  starts and dump them when it ends (callgrind_control), frames then counted around each;
  --perf OUT: over the measured period, perf samples the program's busiest thread (its
  forwarding lcore) into OUT.data (cpu-clock: VMs have no PMU) and counts its hardware
  events into OUT.stat (perf stat -x, ; "<not supported>" where there is no PMU).
Exit status 1 with the reason on stderr when no figure could be read."""

import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sp_telemetry import TelemetryError, wait_for_socket  # noqa: E402


# What perf stat counts a packet (tools/bench-profile.py reads them back).
PERF_EVENTS = "cycles,instructions,L1-dcache-load-misses,LLC-load-misses,dTLB-load-misses,branch-misses"


def busiest_thread(pid, window=0.3):
    """The thread of pid that ran the most over window seconds: a busy-polling lcore."""
    def cpu_times():
        times = {}
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                fields = open(f"/proc/{pid}/task/{tid}/stat").read().rsplit(")", 1)[1].split()
                times[tid] = int(fields[11]) + int(fields[12])  # utime + stime
            except (OSError, IndexError):
                pass
        return times
    before = cpu_times()
    time.sleep(window)
    after = cpu_times()
    return max(after, key=lambda tid: after[tid] - before.get(tid, 0))


def perf_start(pid, out):
    """perf record and perf stat on pid's busiest thread until perf_stop."""
    tid = busiest_thread(pid)
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    return [subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", "4999", "-t", tid,
                              "-o", f"{out}.data"], **quiet),
            subprocess.Popen(["perf", "stat", "-x,", "-e", PERF_EVENTS, "-t", tid,
                              "-o", f"{out}.stat"], **quiet)]


def perf_stop(procs):
    for p in procs:
        p.send_signal(signal.SIGINT)
    for p in procs:
        p.wait(timeout=60)


def main(argv):
    counting = argv[5:] == ["--callgrind"]
    perf_out = argv[6] if len(argv) == 7 and argv[5] == "--perf" else None
    if len(argv) not in (5, 6, 7) or (len(argv) > 5 and not counting and perf_out is None):
        sys.exit(__doc__)
    prefix, pid = argv[0], int(argv[1])
    warmup, duration, startup = float(argv[2]), float(argv[3]), float(argv[4])
    deadline = time.monotonic() + startup

    def alive():
        try:
            os.kill(pid, 0)
            return True
        except ProcessLookupError:
            return False

    def waiting(what):
        if not alive():
            sys.exit("the program exited during start-up")
        if time.monotonic() > deadline:
            sys.exit(f"{what} after {startup:.0f} s")

    t = None
    while t is None:
        waiting("no telemetry socket")
        try:
            t = wait_for_socket(prefix, timeout=1)
        except TelemetryError:
            pass

    def null_port():
        for p in t.cmd("/ethdev/list"):
            if t.cmd(f"/ethdev/info,{p}").get("name", "").startswith("net_null"):
                return p
        return None

    port = None
    while port is None:
        waiting("no net_null port")
        try:
            port = null_port()
        except TelemetryError:
            pass
        if port is None:
            time.sleep(0.2)

    def opackets():
        return t.cmd(f"/ethdev/stats,{port}")["opackets"], time.monotonic()

    def around(command):
        """Frames sent and the time, read around callgrind_control's command."""
        if not counting:
            return opackets()
        before = opackets()
        subprocess.run(["callgrind_control", command, str(pid)], check=True,
                       capture_output=True)
        after = opackets()
        return (before[0] + after[0]) / 2, after[1]

    try:
        while opackets()[0] == 0:
            waiting("no packets forwarded")
            time.sleep(0.1)
        time.sleep(warmup)
        perf = perf_start(pid, perf_out) if perf_out else []
        p0, t0 = around("-z")  # with --callgrind, count from here...
        time.sleep(duration)
        p1, t1 = around("-d")  # ...to here
        perf_stop(perf)
    except TelemetryError as e:
        sys.exit(f"telemetry: {e} (did the program stop?)")
    print(f"{(p1 - p0) / (t1 - t0) / 1e6:.2f} {round(p1 - p0)}")


if __name__ == "__main__":
    main(sys.argv[1:])
