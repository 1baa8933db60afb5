# SPDX-License-Identifier: BSD-3-Clause
"""slicectld's metrics endpoint (docs/running.md, "Metrics"): GET /metrics parses with
Prometheus' own text parser, and every value equals what stats.get says at the same moment
(the node idle), the residence histogram too (and slicectl stats prints its percentiles); slicepath_up goes to 0 while slicepathd is down; other paths are 404; it
serves on hosts without IPv4 besides loopback, and on IPv6."""

import os
import subprocess
import time
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import needs_root
from ctlnode import NH1
from spnode import SLICECTLD, inner_udp

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
        for d in ("rx", "tx", "tx_drop", "to_host", "from_host"):
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
    # Residence times: a histogram at the powers of two from 256 ns, each le counting the
    # samples below it, of what stats.get's buckets (by their largest value) hold.
    r = node["residence_ns"]
    below = sorted((float(dict(k[1])["le"]), v) for k, v in got.items()
                   if k[0] == "slicepath_residence_seconds_bucket")
    assert [le for le, _ in below] == \
        pytest.approx([2 ** k * 1e-9 for k in range(8, 31)] + [float("inf")], rel=1e-12)
    for le, v in below[:-1]:
        assert v == sum(n for top, n in r["buckets"].items() if int(top) < round(le * 1e9))
    # The LC stamps a frame every 100 us at most: back-to-back frames share a stamp.
    assert 1 <= r["count"] <= 7
    assert value(got, "slicepath_residence_seconds_bucket", le="+Inf") == r["count"] == \
        value(got, "slicepath_residence_seconds_count")
    assert abs(value(got, "slicepath_residence_seconds_sum") - r["sum"] / 1e9) < 1e-6
    assert f"residence: p50 {r['p50'] / 1e3:.1f} us, p99 {r['p99'] / 1e3:.1f} us, " \
        f"p99.9 {r['p999'] / 1e3:.1f} us, max {r['max'] / 1e3:.1f} us " \
        f"({r['count']} frames sampled)" in ctl.ctld.slicectl("stats").stdout

    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(url.replace("/metrics", "/other"), timeout=10)
    assert e.value.code == 404

    # slicepathd down: the endpoint still answers, saying so.
    ctl.node.crash()
    assert value(scrape(url), "slicepath_up") == 0



def netns(name, *cmd, **kw):
    return subprocess.run(["ip", "netns", "exec", name, *cmd], capture_output=True, text=True,
                          timeout=30, **kw)


class NsCtld:
    """slicectld in a network namespace (it waits for slicepathd without failing: none is
    needed to serve metrics)."""

    def __init__(self, ns, d, metrics):
        d.mkdir()
        self.log = d / "ctld.log"
        with open(self.log, "w") as log:
            self.proc = subprocess.Popen(
                ["ip", "netns", "exec", ns, str(SLICECTLD), "-s", str(d / "ctl.sock"),
                 "-b", str(d / "none.sock"), "-d", str(d / "db"), "--metrics", metrics],
                stdout=log, stderr=subprocess.STDOUT)

    def url_or_exit(self):
        """The metrics URL it logs, or None once it has exited."""
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            text = self.log.read_text()
            if "metrics at http://" in text:
                return text.split("metrics at ")[-1].split()[0]
            if self.proc.poll() is not None:
                return None
            time.sleep(0.1)
        raise AssertionError(f"slicectld neither served nor exited: {self.log.read_text()}")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


def test_metrics_on_a_host_without_ipv4_besides_loopback(tmp_path):
    """A host whose only address besides 127.0.0.1 is IPv6 (a NIC's link-local one before
    DHCP answers, the node's own tap): slicectld still serves 127.0.0.1 (a resolver asking
    with AI_ADDRCONFIG refuses it there) and [::1]; bad addresses are refused, named."""
    ns = f"sp-metrics-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    started = []
    try:
        netns(ns, "ip", "link", "set", "lo", "up")
        netns(ns, "ip", "link", "add", "d0", "type", "dummy")
        netns(ns, "ip", "-6", "addr", "add", "fd00::1/64", "dev", "d0", "nodad")
        netns(ns, "ip", "link", "set", "d0", "up")
        for n, (addr, prefix) in enumerate([("127.0.0.1:0", "http://127.0.0.1:"),
                                            ("[::1]:0", "http://[::1]:")]):
            ctld = NsCtld(ns, tmp_path / f"ok{n}", addr)
            started.append(ctld)
            url = ctld.url_or_exit()
            assert url is not None and url.startswith(prefix), ctld.log.read_text()
            r = netns(ns, "/usr/bin/python3", "-c", "import sys, urllib.request; "
                      "print(urllib.request.urlopen(sys.argv[1]).read().decode())", url)
            assert "slicepath_up 0" in r.stdout, r.stderr
        # A malformed address is a bad argument (1); one that cannot be served, a failure (2).
        for n, (addr, rc, said) in enumerate([
                ("127.0.0.1:", 1, '"127.0.0.1:" is not ADDRESS:PORT'),
                ("nosuchhost.invalid:9464", 2, "nosuchhost.invalid: ")]):
            ctld = NsCtld(ns, tmp_path / f"bad{n}", addr)
            started.append(ctld)
            assert ctld.url_or_exit() is None
            assert ctld.proc.returncode == rc and said in ctld.log.read_text(), \
                (ctld.proc.returncode, ctld.log.read_text())
    finally:
        for ctld in started:
            ctld.stop()
        subprocess.run(["ip", "netns", "del", ns])
