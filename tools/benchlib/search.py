# SPDX-License-Identifier: BSD-3-Clause
"""RFC 2544's zero-loss search, shared by the throughput and latency scenarios."""

# Should none of the bisection's steps be loss-free, halve this many times more: a stall
# of the generator on the shared vCPUs can cost a burst at any rate, and a scenario
# needs a rate to report or to load the node at (slicepath-gen refuses 0 packets/s).
EXTRA_HALVINGS = 4


class SearchError(Exception):
    pass


def zero_loss(trial, offered, steps):
    """trial(pps, n) -> (delivered pps, lost, sent pps) runs the n-th trial. The first
    offers `offered`: if nothing is lost, returns (what it delivered, True), a lower bound
    set by the generator. Else bisects between 0 and what that trial sent, `steps` times
    and on while no step was loss-free (EXTRA_HALVINGS at most), and returns (what the
    highest loss-free trial delivered, False), or (0, False) if none was."""
    delivered, lost, sent = trial(offered, 0)
    if lost == 0:
        return delivered, True
    best, lo, hi, n = 0.0, 0.0, sent, 0
    while n < steps or (best == 0 and n < steps + EXTRA_HALVINGS):
        n += 1
        mid = (lo + hi) / 2
        delivered, lost, _ = trial(mid, n)
        if lost == 0:
            best, lo = delivered, mid
        else:
            hi = mid
    return best, False
