# SPDX-License-Identifier: BSD-3-Clause
"""slicectld's metrics endpoint (docs/running.md, "Metrics"): GET /metrics parses with
Prometheus' own text parser, and every value equals what stats.get says at the same moment
(the node idle); slicepath_up goes to 0 while slicepathd is down; other paths are 404."""

import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import needs_root
from ctlnode import NH1
from spnode import inner_udp

pytestmark = needs_root


def scrape(url):
    """{(name, frozenset(labels)): value} of one scrape."""
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = r.read().decode()
    got = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            got[(s.name, frozenset(s.labels.items()))] = s.value
    return got


def value(got, name, **labels):
    return got[(name, frozenset(labels.items()))]


def test_metrics_match_stats(ctl, users):
    ctl.start()
    sc = ctl.ctld.slicectl
    sc("slice", "create", "alpha", "codeopt", "ipv4", "filters", 16, "buffers", 1000)
    sc("endpoint", "reserve", "alpha", "port", "p0", "udp", 5001)
    sc("endpoint", "reserve", "alpha", "port", "p1", "udp", 5001)
    sc("queue", "bind", "alpha", 0, "endpoint", 1)
    sc("filter", "add", "alpha", "pos", 0, "dst", "192.168.0.0/16", "endpoint", 1, "queue", 0,
       "nexthop", f"{NH1[0]}:{NH1[1]}")
    ctl.send("alpha", 5001, *[inner_udp("192.168.1.1", seq=i) for i in range(7)],
             inner_udp("10.9.9.9", seq=8), inner_udp("192.168.1.1", ttl=1, seq=9))
    url = ctl.ctld.metrics_url()
    got = scrape(url)
    node = ctl.ctld.call("stats.get")
    alpha = ctl.ctld.call("stats.get", slice="alpha")

    assert value(got, "slicepath_up") == 1
    for port, st in node["ports"].items():
        for d in ("rx", "tx", "tx_drop"):
            assert value(got, "slicepath_port_packets_total", port=port, direction=d) == \
                st[f"{d}_pkts"]
            assert value(got, "slicepath_port_bytes_total", port=port, direction=d) == \
                st[f"{d}_bytes"]
    for stage in ("rx", "fwd", "exception", "drop", "to_slow_path", "injected"):
        assert value(got, "slicepath_slice_packets_total", slice="alpha", stage=stage) == \
            alpha["slice"][f"{stage}_pkts"]
    assert value(got, "slicepath_slice_packets_total", slice="alpha", stage="fwd") == 7
    for reason, n in alpha["slice"]["reasons"].items():
        assert value(got, "slicepath_slice_reasons_total", slice="alpha", reason=reason) == n
    assert set(alpha["slice"]["reasons"]) == {"miss", "ttl_expired", "no_slow_path"}
    for reason, n in node["drops"].items():
        assert value(got, "slicepath_drops_total", reason=reason) == n
    for ep in alpha["endpoints"]:
        for d in ("rx", "tx"):
            assert value(got, "slicepath_endpoint_packets_total", slice="alpha",
                         endpoint=str(ep["index"]), port=ep["port"],
                         udp_port=str(ep["udp_port"]), direction=d) == ep[f"{d}_pkts"]
    q = alpha["queues"]["0"]
    assert value(got, "slicepath_queue_sent_packets_total", slice="alpha", queue="0",
                 port="p1") == q["sent_pkts"] == 7
    assert value(got, "slicepath_queue_length_packets", slice="alpha", queue="0",
                 port="p1") == q["len_pkts"]
    for reason, d in q["drops"].items():
        assert value(got, "slicepath_queue_dropped_packets_total", slice="alpha", queue="0",
                     reason=reason) == d["pkts"]

    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(url.replace("/metrics", "/other"), timeout=10)
    assert e.value.code == 404

    # slicepathd down: the endpoint still answers, saying so.
    ctl.node.crash()
    assert value(scrape(url), "slicepath_up") == 0
