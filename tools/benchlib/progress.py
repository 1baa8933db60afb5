# SPDX-License-Identifier: BSD-3-Clause
"""What slicepath-bench is doing while a scenario runs (minutes, its results printed only
at its end): a line on stderr as each trial starts, numbered within the scenario, with
the time the scenario has taken so far."""

import sys
import time

_now = {"scenario": "", "started": 0.0, "trials": 0}


def scenario(name):
    _now.update(scenario=name, started=time.monotonic(), trials=0)


def trial(tag, seconds):
    """A trial named tag starts, to last about seconds."""
    _now["trials"] += 1
    print(f"slicepath-bench: {_now['scenario']}: trial {_now['trials']} ({tag}, {seconds:g} s) "
          f"at {time.monotonic() - _now['started']:.0f} s", file=sys.stderr, flush=True)
