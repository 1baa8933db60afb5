# SPDX-License-Identifier: BSD-3-Clause
"""The benchmark's RFC 2544 search (tools/benchlib/search.py), on a node model that
loses whatever is offered above its capacity: what it offers, in which order, and the
rate it reports. No daemon. A short search whose steps all lost once ended at 0, which
the latency scenario then offered and slicepath-gen refused."""

import spnode  # noqa: F401  (puts tools/ on the path)
from benchlib.search import EXTRA_HALVINGS, zero_loss


class Model:
    """A node forwarding up to capacity pps; the generator sends at most gen_max."""

    def __init__(self, capacity, gen_max=8e6):
        self.capacity, self.gen_max, self.offered = capacity, gen_max, []

    def __call__(self, pps, n):
        assert n == len(self.offered) and pps > 0
        self.offered.append(pps)
        sent = min(pps, self.gen_max)
        return min(sent, self.capacity), (0 if sent <= self.capacity else 1000), sent


def test_all_offered_through_is_a_lower_bound():
    m = Model(capacity=10e6)
    assert zero_loss(m, 20e6, steps=2) == (8e6, True)
    assert m.offered == [20e6]


def test_bisects_between_zero_and_what_was_sent():
    m = Model(capacity=3e6)
    assert zero_loss(m, 20e6, steps=3) == (3e6, False)
    assert m.offered == [20e6, 4e6, 2e6, 3e6]


def test_keeps_halving_until_a_rate_is_loss_free():
    m = Model(capacity=0.3e6)
    assert zero_loss(m, 20e6, steps=2) == (0.25e6, False)
    assert m.offered == [20e6, 4e6, 2e6, 1e6, 0.5e6, 0.25e6]


def test_gives_up_with_zero_and_never_offers_zero():
    m = Model(capacity=0)
    assert zero_loss(m, 20e6, steps=2) == (0, False)
    assert len(m.offered) == 1 + 2 + EXTRA_HALVINGS
    assert m.offered[-1] == 8e6 / 2 ** (2 + EXTRA_HALVINGS)
