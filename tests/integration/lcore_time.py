# SPDX-License-Identifier: BSD-3-Clause
"""The forwarding lcores' own time, from the kernel's accounting of their threads
(/proc/PID/task/TID/schedstat: nanoseconds on a CPU). The daemon's schedulers keep their
rates while their lcore runs; when another process takes the lcore's CPU (milliseconds at
a time on a shared machine) the bucket fills to its 1 ms depth and what the lcore could
have sent beyond that is lost. So a rate the daemon owes holds at least over the lcore's
run time, and at most over that plus a full bucket each time the lcore came back to a CPU
(never more than over the wall clock, the tokens' clock). The kernel counts both exactly;
the daemon itself could only guess its lost time from gaps in its loop."""

import threading
import time
from pathlib import Path

DEPTH = 0.001   # s: what a scheduler's or policer's bucket holds at its rate (SP_TB_DEPTH_NS)


def lcore_thread(pid, lcore=1):
    """The schedstat file of DPDK's thread for a worker lcore of process pid."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        if (task / "comm").read_text().strip() == f"rte-worker-{lcore}":
            return task / "schedstat"
    raise AssertionError(f"process {pid} has no thread for lcore {lcore}")


class Clock:
    """One daemon's lcore: wall time, its run time (s) and how often it was put on a CPU."""

    def __init__(self, node, lcore=1):
        self.schedstat = lcore_thread(node.proc.pid, lcore)

    def now(self):
        run_ns, _wait_ns, slices = self.schedstat.read_text().split()
        return time.monotonic(), int(run_ns) / 1e9, int(slices)


def sampled(clock, read):
    """read() bracketed by the clock: the clock at its middle, and what read() returned."""
    before, got, after = clock.now(), read(), clock.now()
    return tuple((a + b) / 2 for a, b in zip(before, after)), got


class Window:
    """The time between two clock readings: wall and run seconds of the lcore, and the
    times it came back to a CPU (the lcore never sleeps: each time, it was taken off)."""

    def __init__(self, start, end):
        self.wall = end[0] - start[0]
        self.run = end[1] - start[1]
        self.resumes = end[2] - start[2]

    def __str__(self):
        return f"{self.wall:.2f} s, the lcore ran {self.run:.2f} s"

    def most(self):
        """The longest a bucket could have earned tokens for that its lcore spent: the
        run time, a full bucket each time the lcore came back and one at the start."""
        return min(self.wall, self.run + (self.resumes + 1) * DEPTH)


def check_rate(what, bits, window, rate, low=0.97, high=1.01):
    """bits sent over window by a scheduler (or policer) of rate bits/s: at least low times
    the rate over the lcore's run time, at most high times it (if given) over the time
    its bucket could have been spent in (Window.most)."""
    print(f"{what}: {bits / window.wall / 1e6:.1f} Mb/s over {window} (came back "
          f"{window.resumes:.0f} times), {bits / window.run / 1e6:.1f} Mb/s of its run time; "
          f"rate {rate / 1e6:.0f} Mb/s")
    assert bits >= low * rate * window.run, f"{what}: under {low} x {rate} bit/s while it ran"
    assert high is None or bits <= high * rate * window.most(), \
        f"{what}: over {high} x {rate} bit/s of the time it could spend"


class Trace:
    """The clock read every TICK s in the background (a with block), for rates a tool
    samples itself, at moments the test does not know."""
    TICK = 0.02

    def __init__(self, node, lcore=1):
        self.clock, self.readings = Clock(node, lcore), []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.readings.append(self.clock.now())
            time.sleep(self.TICK)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def least_share(self, length):
        """The least share of its time the lcore ran in any stretch of length s between the
        first and the last reading. A stretch starting within the largest gap g between
        readings before reading i holds the readings from i to wall[i] + length - g."""
        r = self.readings
        g = max(b[0] - a[0] for a, b in zip(r, r[1:]))
        least, j = float("inf"), 0
        for i, (wall, run, _) in enumerate(r):
            j = max(j, i)
            while j + 1 < len(r) and r[j + 1][0] <= wall + length - g:
                j += 1
            if r[-1][0] < wall + length - g:
                break   # no whole stretch from here on
            least = min(least, r[j][1] - run)
        assert least != float("inf"), f"the trace is shorter than {length} s"
        return least / length
