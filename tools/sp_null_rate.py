#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The forwarding rate of a DPDK program sending to a net_null port, read the way every
benchmark here reads it (tools/bench-pipeline.sh, tools/bench-scale.sh): DPDK telemetry
/ethdev/stats,<net_null port> opackets, before and after DURATION seconds that follow
WARMUP seconds of flowing packets. Prints "MPPS FRAMES".

usage: sp_null_rate.py FILE_PREFIX PID WARMUP DURATION STARTUP [--callgrind]
  PID: the program's, watched so that an exit during start-up ends the wait at once;
  STARTUP: seconds it may take to show telemetry, a net_null port and packets;
  --callgrind: the program runs under callgrind; zero its counts when the measured period
  starts and dump them when it ends (callgrind_control), frames then counted around each.
Exit status 1 with the reason on stderr when no figure could be read."""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sp_telemetry import TelemetryError, wait_for_socket  # noqa: E402


def main(argv):
    if len(argv) not in (5, 6) or (len(argv) == 6 and argv[5] != "--callgrind"):
        sys.exit(__doc__)
    prefix, pid = argv[0], int(argv[1])
    warmup, duration, startup = float(argv[2]), float(argv[3]), float(argv[4])
    counting = len(argv) == 6
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
        p0, t0 = around("-z")  # with --callgrind, count from here...
        time.sleep(duration)
        p1, t1 = around("-d")  # ...to here
    except TelemetryError as e:
        sys.exit(f"telemetry: {e} (did the program stop?)")
    print(f"{(p1 - p0) / (t1 - t0) / 1e6:.2f} {round(p1 - p0)}")


if __name__ == "__main__":
    main(sys.argv[1:])
