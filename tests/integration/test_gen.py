# SPDX-License-Identifier: BSD-3-Clause
"""slicepath-gen against the real slicepathd over net_memif: what it says it sent is what
the node received, what it says came back is what the node forwarded, packets no filter
matches are reported lost, phases and rates hold; and every kind of bad spec or argument
is refused with a message that names it."""

import json
import subprocess

import pytest

from conftest import needs_root
from gennode import GenNode
from spnode import GEN, TEST_EAL, unique_prefix

pytestmark = needs_root


@pytest.fixture
def gn(tmp_path):
    g = GenNode(tmp_path, "gen")
    yield g
    g.node.kill()


def test_streams_through_the_node(gn):
    n = gn.node
    n.start()
    spec = {"duration": 2, "interval": 1, "streams": [
        gn.stream("alpha", "10.9.0.1", flows=16, payload=100, pps=50000),
        # No filter matches 10.8/16: every packet is a miss.
        gn.stream("miss", "10.8.0.1", pps=2000, phases=[[0.5, 1.0], [1.5, 2.0]]),
    ]}
    seen = {}

    def read_node_then_stop():
        seen["slice"] = n.call("stats.get", slice="alpha")
        seen["ports"] = n.call("stats.get")["ports"]
        n.stop()

    r, out = gn.gen(spec, before_exit=read_node_then_stop)
    counters, ports = seen["slice"], seen["ports"]
    assert r.returncode == 0, r.stderr
    s = {x["name"]: x for x in out["streams"]}
    alpha, miss = s["alpha"], s["miss"]
    # The rate held: 2 s at 50000 pps, 2 x 0.5 s at 2000 pps.
    assert 99_990 <= alpha["tx_pkts"] <= 100_000
    assert 1_990 <= miss["tx_pkts"] <= 2_000
    assert alpha["tx_bytes"] == alpha["tx_pkts"] * (42 + 28 + 100)
    # The node saw exactly what the generator says it sent, and forwarded alpha's.
    assert ports["p0"]["rx_pkts"] == alpha["tx_pkts"] + miss["tx_pkts"]
    assert counters["slice"]["reasons"]["miss"] == miss["tx_pkts"]
    assert counters["slice"]["fwd_pkts"] == alpha["tx_pkts"]
    assert ports["p1"]["tx_pkts"] == alpha["rx_pkts"]
    # What came back, as the generator counted it.
    assert (alpha["rx_pkts"], alpha["lost"], alpha["reordered"]) == (alpha["tx_pkts"], 0, 0)
    assert (miss["rx_pkts"], miss["lost"], miss["loss"]) == (0, miss["tx_pkts"], 1.0)
    lat = alpha["latency_ns"]
    assert lat["count"] == alpha["rx_pkts"]
    assert 0 < lat["p50"] <= lat["p99"] <= lat["p999"] <= lat["max"]
    assert alpha["seconds"] == 2 and miss["seconds"] == 1
    assert alpha["rx_pps"] == pytest.approx(50000, rel=0.001)
    # Bits on the wire: 170-byte frames plus 24 bytes of overhead.
    assert alpha["tx_bps"] == pytest.approx(50000 * 194 * 8, rel=0.001)
    assert out["other_rx"] == {"0": 0, "1": 0}
    # Progress lines, then the table.
    assert "t=1.0 s  alpha" in r.stdout and "STREAM" in r.stdout


def test_unsigned_smallest_frames_and_csv(gn):
    """Payload 0 (70-byte frames) has no room for the signature: what arrives unsigned on
    the stream's rx port is its own, counted without sequence or latency; -c writes the
    rates of each interval."""
    gn.node.start()
    csv = gn.dir / "rates.csv"
    r, out = gn.gen({"duration": 1, "interval": 0.5, "streams": [
        gn.stream("zero", "10.9.2.1", payload=0, pps=20000),
        gn.stream("signed", "10.9.3.1", pps=1000)]}, "-q", "-c", str(csv))
    assert r.returncode == 0, r.stderr
    s = {x["name"]: x for x in out["streams"]}
    assert s["zero"]["tx_pkts"] == 20000 and s["zero"]["rx_pkts"] == 20000
    assert s["zero"]["tx_bytes"] == 20000 * 70 and s["zero"]["latency_ns"]["count"] == 0
    assert s["signed"]["rx_pkts"] == s["signed"]["latency_ns"]["count"] == 1000
    assert "t=" not in r.stdout
    rows = [line.split(",") for line in csv.read_text().splitlines()]
    assert rows[0] == ["t", "stream", "tx_pps", "rx_pps", "tx_bps", "rx_bps"]
    # Every interval of the run and of the drain (0.5 s by default), each stream in turn.
    assert [(t, name) for t, name, *_ in rows[1:]] == \
        [(t, name) for t in ("0.500", "1.000", "1.500") for name in ("zero", "signed")]
    assert sum(float(row[2]) * 0.5 for row in rows[1:] if row[1] == "zero") == \
        pytest.approx(20000, abs=64)


def test_the_substrate_over_ipv6_both_ways(gn):
    """Streams to p0's IPv6 address, and one to its IPv4 address, come back over IPv4 or
    IPv6 as their filters' next hops say: the generator sends UDP over IPv6 with its
    checksum (the node counts none bad) and finds its signatures behind either outer
    header."""
    n = gn.node
    gn.p0.ipv6, gn.p1.ipv6 = "2001:db8::1", "2001:db8:1::1"
    n.neighbor(gn.p1, "2001:db8:1::2", "02:bb:00:00:01:06")
    gn.alpha.route(1, "10.7.0.0/16", endpoint=gn.out, queue=0, next_hop="[2001:db8:1::2]:7006")
    n.start()
    six = {"src_ip": "2001:db8::2", "dst_ip": "2001:db8::1"}
    seen = {}

    def read_node_then_stop():
        seen["slice"] = n.call("stats.get", slice="alpha")
        seen["ports"] = n.call("stats.get")["ports"]
        n.stop()

    r, out = gn.gen({"duration": 1, "interval": 0, "streams": [
        {**gn.stream("six-four", "10.9.0.1", flows=4, payload=100, pps=5000), **six},
        {**gn.stream("six-six", "10.7.0.1", flows=4, payload=101, pps=5000), **six},
        gn.stream("four-six", "10.7.1.1", payload=64, pps=2000)]},
        before_exit=read_node_then_stop)
    assert r.returncode == 0, r.stderr
    s = {x["name"]: x for x in out["streams"]}
    assert s["six-four"]["tx_bytes"] == s["six-four"]["tx_pkts"] * (62 + 28 + 100)
    assert s["six-six"]["tx_bytes"] == s["six-six"]["tx_pkts"] * (62 + 28 + 101)
    sent = sum(x["tx_pkts"] for x in s.values())
    assert sent >= 11_900
    for x in s.values():
        assert (x["rx_pkts"], x["lost"], x["reordered"]) == (x["tx_pkts"], 0, 0), x["name"]
    counters, ports = seen["slice"], seen["ports"]
    assert ports["p0"]["rx_pkts"] == sent
    assert counters["slice"]["fwd_pkts"] == sent and counters["slice"]["reasons"] == {}
    # Each packet left with the outer header of its next hop's family: 20 bytes more over IPv6.
    assert ports["p1"]["tx_bytes"] == (s["six-four"]["tx_bytes"] - 20 * s["six-four"]["tx_pkts"] +
                                       s["six-six"]["tx_bytes"] +
                                       s["four-six"]["tx_bytes"] + 20 * s["four-six"]["tx_pkts"])
    assert out["other_rx"] == {"0": 0, "1": 0}


def test_rate_in_bits_per_second(gn):
    gn.node.start()
    r, out = gn.gen({"duration": 1, "interval": 0,
                     "streams": [gn.stream("bps", "10.9.1.1", payload=1000, bps="10M")]})
    assert r.returncode == 0, r.stderr
    st = out["streams"][0]
    # 1070-byte frames, 1094 bytes on the wire: 10 Mb/s is 1142.6 frames/s.
    assert 1_141 <= st["tx_pkts"] <= 1_143
    assert st["tx_bps"] == pytest.approx(10e6, rel=0.002)
    assert st["rx_pkts"] == st["tx_pkts"]
    assert "t=" not in r.stdout


BAD_SPECS = [
    ("not-json", "{", "line 1 column 1"),
    ("not-object", [], "spec: must be a JSON object"),
    ("unknown-top", {"streams": [], "speed": 1}, 'spec: unknown key "speed"'),
    ("no-streams", {"duration": 1}, '"streams" must be a list of 1 to 256'),
    ("unknown-key", {"streams": [{"dst_port": 1, "rate": 5}]}, 'streams[0]: unknown key "rate"'),
    ("no-rate", {"streams": [{"dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1",
                              "src_ip": "10.0.0.2", "inner_dst": "10.9.0.1", "dst_port": 5001}]},
     'exactly one of "pps" and "bps"'),
    ("both-rates", {"streams": [{"dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1",
                                 "src_ip": "10.0.0.2", "inner_dst": "10.9.0.1", "dst_port": 5001,
                                 "pps": 1, "bps": "1M"}]}, 'exactly one of "pps" and "bps"'),
    ("bad-mac", {"streams": [{"dst_mac": "02:00:00", "dst_ip": "10.0.0.1"}]},
     'streams[0]: "dst_mac": "02:00:00" is not a unicast MAC address'),
    ("no-src-ip", {"streams": [{"dst_mac": "02:00:00:00:00:10"}]},
     'streams[0]: "src_ip" is required (an IPv4 or IPv6 address)'),
    ("no-dst-port", {"streams": [{"dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1",
                                  "src_ip": "10.0.0.2", "inner_dst": "10.9.0.1", "pps": 1}]},
     '"dst_port" is required: the endpoint\'s UDP port'),
    ("big-payload", {"streams": [{"dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1",
                                  "src_ip": "10.0.0.2", "inner_dst": "10.9.0.1",
                                  "dst_port": 5001, "payload": 1445, "pps": 1}]},
     '"payload" must be an integer from 0 to 1444'),
    ("two-unsigned", {"streams": [
        {"name": "a", "dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1", "src_ip": "10.0.0.2",
         "inner_dst": "10.9.0.1", "dst_port": 5001, "payload": 0, "pps": 1},
        {"name": "b", "dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1", "src_ip": "10.0.0.2",
         "inner_dst": "10.9.0.1", "dst_port": 5001, "payload": 23, "pps": 1}]},
     "streams 0 and 1 both carry no signature (payload under 24) to port 0"),
    ("phase-past-end", {"duration": 2, "streams": [
        {"dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1", "src_ip": "10.0.0.2",
         "inner_dst": "10.9.0.1", "dst_port": 5001, "pps": 1, "phases": [[1, 3]]}]},
     "phases[0] must be [start, stop] seconds with 0 <= start < stop <= duration (2)"),
    ("phases-overlap", {"duration": 5, "streams": [
        {"dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1", "src_ip": "10.0.0.2",
         "inner_dst": "10.9.0.1", "dst_port": 5001, "pps": 1, "phases": [[1, 3], [2, 4]]}]},
     "phases[1] starts before phases[0] stops"),
    ("same-name", {"streams": [
        {"name": "a", "dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1",
         "src_ip": "10.0.0.2", "inner_dst": "10.9.0.1", "dst_port": 5001, "pps": 1},
        {"name": "a", "dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1",
         "src_ip": "10.0.0.2", "inner_dst": "10.9.0.1", "dst_port": 5001, "pps": 1}]},
     "streams 0 and 1 are both named a"),
    ("bad-name", {"streams": [{"name": "a b"}]},
     "\"name\" must be 1 to 31 letters, digits, '_', '-' or '.'"),
    ("control-chars-shown", {"streams": [{"dst_mac": "02:00\n"}]},
     '"dst_mac": "02:00\\x0a" is not a unicast MAC address'),
    ("port-missing", {"streams": [
        {"tx_port": 3, "dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1",
         "src_ip": "10.0.0.2", "inner_dst": "10.9.0.1", "dst_port": 5001, "pps": 1}]},
     "stream s0 uses port 3 but there are 2 (give one --vdev or device per port)"),
]


def run_gen(tmp_path, spec_text, *args, vdevs=2):
    path = tmp_path / "spec.json"
    path.write_text(spec_text)
    cmd = [str(GEN), *TEST_EAL, "--file-prefix", unique_prefix("genbad"), "-l", "0",
           "--log-level", "*:error"]
    for i in range(vdevs):
        cmd += ["--vdev", f"net_null{i}"]
    return subprocess.run(cmd + ["--", "-s", str(path), *args], capture_output=True, text=True,
                          timeout=30)


@pytest.mark.parametrize("case", BAD_SPECS, ids=[c[0] for c in BAD_SPECS])
def test_bad_spec_refused_naming_the_field(tmp_path, case):
    _id, spec, message = case
    r = run_gen(tmp_path, spec if isinstance(spec, str) else json.dumps(spec))
    assert r.returncode == 1, r.stdout + r.stderr
    assert message in r.stderr, r.stderr
    assert r.stdout == ""


def test_bad_arguments(tmp_path):
    r = run_gen(tmp_path, "{}", "-w", "x")
    assert r.returncode == 1 and "-w takes whole seconds, 0 to 3600" in r.stderr
    r = subprocess.run([str(GEN), *TEST_EAL, "--file-prefix", unique_prefix("genbad"), "-l", "0",
                        "--"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "give the streams with -s SPEC" in r.stderr
    r = run_gen(tmp_path, "{}", "-s")  # a second -s without its file
    assert r.returncode == 1
    r = subprocess.run([str(GEN), *TEST_EAL, "--file-prefix", unique_prefix("genbad"), "-l", "0",
                        "--", "-s", str(tmp_path / "nosuch.json")],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "cannot open" in r.stderr and "nosuch.json" in r.stderr


def test_no_peer_is_a_clear_error(gn):
    """The node is not running: the memif links never come up."""
    r, out = gn.gen({"duration": 1, "streams": [gn.stream("a", "10.9.0.1", pps=10)]},
                    link_wait=1)
    assert r.returncode == 2 and out is None
    assert "port 0 (net_memif0) cannot be started: Operation not permitted (a memif client " \
        "needs its server: is slicepathd running?)" in r.stderr


def test_link_that_never_comes_up(tmp_path):
    """As a memif server nobody connects to, the link stays down: refused after -w."""
    sock = f"/tmp/{unique_prefix('genlink')}.sock"
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"duration": 1, "streams": [
        {"dst_mac": "02:00:00:00:00:10", "dst_ip": "10.0.0.1", "src_ip": "10.0.0.2",
         "inner_dst": "10.9.0.1", "dst_port": 5001, "pps": 1}]}))
    r = subprocess.run([str(GEN), *TEST_EAL, "--file-prefix", unique_prefix("genlink"), "-l", "0",
                        "--vdev", f"net_memif0,role=server,socket={sock},socket-abstract=no",
                        "--", "-s", str(spec), "-w", "1"], capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 2
    assert "port 0 (net_memif0) has no link after 1 s: is its peer (slicepathd) running?" \
        in r.stderr
