# SPDX-License-Identifier: BSD-3-Clause
"""What slicectl refuses as almost certainly a mistake, as iproute2 does, before asking
slicectld anything (so no daemon here): a prefix with bits set past its length, a rate
without a unit; an argument left out is named. The forms meant get through to the call
(exit 3: no daemon to reach)."""

import subprocess

import pytest

from spnode import SLICECTL

NO_DAEMON = "/nonexistent/slicectl.sock"
FILTER = ("filter", "add", "alice1", "pos", "0", "endpoint", "1", "queue", "0", "nexthop",
          "10.0.1.2:6001")


def slicectl(*args):
    return subprocess.run([str(SLICECTL), "-s", NO_DAEMON, *args], capture_output=True,
                          text=True, timeout=10)


@pytest.mark.parametrize("key,prefix,meant", [
    ("dst", "192.168.1.7/24", "192.168.1.0/24"),
    ("src", "10.1.2.3/8", "10.0.0.0/8"),
    ("dst", "172.16.0.1/31", "172.16.0.0/31"),
])
def test_prefix_with_host_bits_refused(key, prefix, meant):
    r = slicectl(*FILTER, key, prefix)
    assert r.returncode == 1, r
    assert r.stderr == (f'slicectl: {key}: "{prefix}" has bits set past its '
                        f'/{prefix.split("/")[1]}: did you mean {meant}?\n')
    assert "cannot reach" in slicectl(*FILTER, key, meant).stderr


@pytest.mark.parametrize("args,key", [
    (("queue", "set", "alice1", "0", "share", "5"), "share"),
    (("endpoint", "reserve", "alice1", "port", "p0", "bandwidth", "100"), "bandwidth"),
    (("slice", "create", "a", "codeopt", "ipv4", "inbound", "200"), "inbound"),
    (("sched", "set", "0", "p1", "800"), "rate"),
])
def test_rate_without_unit_refused(args, key):
    bare = args[-1]
    r = slicectl(*args)
    assert r.returncode == 1, r
    assert r.stderr == (f'slicectl: {key}: "{bare}" has no unit: write {bare}k, {bare}M or '
                        f'{bare}G (bits/s)\n')
    meant = slicectl(*args[:-1], bare + "M")
    assert meant.returncode == 3 and "cannot reach" in meant.stderr, meant


@pytest.mark.parametrize("typed,meant", [("slices", "slice"), ("flter", "filter"),
                                         ("endpiont", "endpoint"), ("stat", "stats")])
def test_a_mistyped_object_suggests_the_one_meant(typed, meant):
    r = slicectl(typed, "list")
    assert r.returncode == 1 and r.stderr == (f'slicectl: no object "{typed}" (did you mean '
                                              f'"{meant}"?); slicectl --help lists them\n'), r
    far = slicectl("zzzzzz")
    assert far.stderr == 'slicectl: no object "zzzzzz"; slicectl --help lists them\n', far


@pytest.mark.parametrize("given,missing", [
    (FILTER[:3], "pos N, endpoint E, queue Q, nexthop IP:PORT"),
    (FILTER[:7], "queue Q, nexthop IP:PORT"),
    (FILTER[:9], "nexthop IP:PORT"),
])
def test_a_missing_argument_is_named(given, missing):
    r = slicectl(*given)
    assert r.returncode == 1 and r.stderr == f"slicectl: filter add: give {missing} too\n", r
    assert "cannot reach" in slicectl(*FILTER, "dst", "10.9.0.0/16").stderr
