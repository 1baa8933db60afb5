# SPDX-License-Identifier: BSD-3-Clause
"""Queue lengths sampled over slicepathd's telemetry while the generator runs."""

import time


class QueueSampler:
    """Call it often (slicepath-bench's gen.run does, as `during`): every period it reads
    queue 0 of each slice; rows are (t, slice, bytes)."""

    def __init__(self, dut, slices, period):
        self.dut, self.slices, self.period = dut, slices, period
        self.start = time.monotonic()
        self.next = self.start
        self.rows = []

    def __call__(self):
        now = time.monotonic()
        if now < self.next:
            return
        self.next += self.period
        for name in self.slices:
            q = self.dut.telemetry(f"/slicepath/queues,{name}")["0"]
            self.rows.append((round(now - self.start, 3), name, q["len_bytes"]))

    def series(self):
        """{slice: ([t], [bytes])} for a plot."""
        return {n: ([t for t, s, _ in self.rows if s == n], [b for _, s, b in self.rows if s == n])
                for n in self.slices}
