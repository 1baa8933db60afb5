# SPDX-License-Identifier: BSD-3-Clause
"""Start-up failures: exit 1 and the field's JSON path for a bad config,
exit 2 and the port and device for a device that cannot start."""

import json
import os
import signal
import subprocess

import pytest

from conftest import needs_root
from test_forwarding import two_lc_node
from spnode import DAEMON, REPO, inner_udp


def set_path(cfg, path, value):
    """cfg["a"][0]["b"] = value for path ("a", 0, "b"); value None deletes the key."""
    obj = cfg
    for k in path[:-1]:
        obj = obj[k]
    if value is None:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value


# (test id, path to change, new value, text the message must contain)
BAD_CONFIGS = [
    ("unknown-port", ("slices", 0, "endpoints", 0, "port"), "p9", "slices[0].endpoints[0].port"),
    ("bad-ipv4", ("ports", 1, "ipv4"), "10.1.0.300", "ports[1].ipv4"),
    ("bad-mac", ("ports", 0, "mac"), "02:00:00:00:00", "ports[0].mac"),
    ("bad-next-hop", ("slices", 1, "filters", 0, "result", "next_hop"), "10.2.0.2", "slices[1].filters[0].result.next_hop"),
    ("short-key", ("slices", 0, "filters", 1, "key"), "c0a802", "slices[0].filters[1].key"),
    ("unknown-codeopt", ("slices", 1, "codeopt"), "nosuch", "slices[1].codeopt"),
    ("duplicate-udp-port", ("slices", 1, "endpoints", 0, "udp_port"), 5001, "slices[1].endpoints[0]"),
    ("unknown-key", ("ports", 0, "speed"), "10G", "ports[0].speed"),
    # telemetry keys allow only [A-Za-z0-9_]: the config refuses other names
    ("port-name-dash", ("ports", 2, "name"), "p-2", "ports[2].name"),
    ("slice-name-dot", ("slices", 0, "name"), "alpha.1", "slices[0].name"),
    ("no-ports", ("ports",), None, "ports"),
    ("bad-queue-ref", ("slices", 0, "filters", 0, "result", "queue"), 9, "slices[0].filters[0].result.queue"),
    # admission control: a queue's share beyond its slice's reservation (10M by default)
    ("share-over-reservation", ("slices", 1, "queues", 0, "share"), "11M", "slices[1].queues[0].share"),
    ("reservation-over-rate", ("slices", 0, "endpoints", 1, "bandwidth"), "11G", "slices[0].endpoints[1].bandwidth"),
    ("inbound-over-link", ("slices", 0, "endpoints", 0, "inbound"), "11G", "slices[0].endpoints[0].inbound"),
]


@pytest.mark.parametrize("check_only", [True, False], ids=["check-config", "start"])
@pytest.mark.parametrize("case", BAD_CONFIGS, ids=[c[0] for c in BAD_CONFIGS])
def test_bad_config_exits_1_naming_the_field(std, case, check_only):
    _id, path, value, field = case
    n = std.node
    cfg = n.config()
    set_path(cfg, path, value)
    n.config = lambda: cfg
    rc, out = n.check_config() if check_only else n.run_to_exit()
    print(out)
    assert rc == 1, f"exit status {rc}, expected 1; output:\n{out}"
    assert field in out, f"the message does not name {field}:\n{out}"


def test_valid_config_passes_check(std):
    rc, out = std.node.check_config()
    assert rc == 0, out


@pytest.mark.parametrize("text", ["{\"ports\": [", "", "[]"], ids=["truncated", "empty", "not-an-object"])
def test_unparsable_config_exits_1(node, text):
    node.write()
    node.config_path.write_text(text)
    r = subprocess.run([str(DAEMON), "-c", str(node.config_path), "--check-config"],
                       capture_output=True, text=True, timeout=30)
    print(r.stdout, r.stderr)
    assert r.returncode == 1
    assert str(node.config_path) in r.stderr or "config" in r.stderr.lower()


def test_missing_config_file_exits_1(node):
    r = subprocess.run([str(DAEMON), "-c", str(node.dir / "nonexistent.json")],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1
    assert "nonexistent.json" in r.stderr


@needs_root
@pytest.mark.parametrize("device", [
    "net_pcap7,rx_pcap=/nonexistent/slicepath.pcap",
    "net_nosuchdriver0",
], ids=["missing-pcap", "unknown-driver"])
def test_device_that_cannot_start_exits_2(std, device):
    std.p2.device = device
    rc, out = std.node.run_to_exit()
    assert rc == 2, f"exit status {rc}, expected 2:\n{out}"
    assert "p2" in out, f"the message does not name the port p2:\n{out}"
    assert device.split(",")[0] in out, f"the message does not name the device:\n{out}"
    if device == "net_nosuchdriver0":
        # EAL's own word for it, -EFAULT, read "Bad address".
        assert "no DPDK driver knows that name" in out and "Bad address" not in out, out


@needs_root
def test_lcore_not_enabled_exits_1(std):
    n = std.node
    n.lcores = [{"id": 1, "lc": True}, {"id": 5, "npes": [0]}]
    n.eal_extra = ["-l", "0,1"]
    rc, out = n.run_to_exit()
    assert rc == 1, f"exit status {rc}, expected 1:\n{out}"
    assert "lcores[1].id" in out, out


@needs_root
def test_lcore_without_a_cpu_exits_1_also_when_checked(std):
    """slicepathd runs lcore N on CPU N unless "eal" maps them: an id this machine has no
    CPU for is a config error, named before DPDK starts (systemd does not retry exit 1)."""
    n = std.node
    n.lcores = [{"id": 1, "lc": True}, {"id": os.cpu_count() + 3, "npes": [0]}]
    want = f"lcores[1].id: this machine has no CPU {os.cpu_count() + 3}"
    rc, out = n.check_config()
    assert rc == 1 and want in out, out
    rc, out = n.run_to_exit()
    assert rc == 1 and want in out, out
    # Mapped by --lcores, any id is the EAL's to judge.
    n.extra_config = {"eal": ["--lcores", f"0@0,1@1,{os.cpu_count() + 3}@0"]}
    rc, out = n.check_config()
    assert rc == 0, out


@needs_root
def test_config_eal_args_are_used(std):
    """The config's "eal" list reaches the EAL (here: an invalid option makes it fail: exit 2)."""
    n = std.node
    n.extra_config = {"eal": ["--no-such-eal-option"]}
    rc, out = n.run_to_exit()
    assert rc == 2, f"exit status {rc}, expected 2:\n{out}"
    assert "EAL" in out


@needs_root
def test_sigint_is_a_clean_shutdown(std):
    n = std.node
    inner = inner_udp("192.168.1.5")
    n.receive(std.p0, [std.to_slice(std.alpha, inner)])
    n.start()
    n.wait_rx()
    assert n.stop(sig=signal.SIGINT) == 0
    assert "slicepathd: stopped" in n.log()
    assert n.output(std.p1) == [std.out(std.alpha, inner, std.p1, std.NH1)]


@needs_root
@pytest.mark.parametrize("what", ["missing", "junk"])
def test_codeopt_data_that_does_not_load_stops_the_start(std, tmp_path, what):
    """A slice's "codeopt_data" the daemon cannot read, or its code option refuses: the
    node cannot be set up (exit 2, as for a device), naming the slice, the file and why."""
    path = tmp_path / "prog.o"
    if what == "junk":
        path.write_bytes(b"\x7fELF, but not really")
    alpha = std.node.slices["alpha"]
    alpha.codeopt = "bpf"
    alpha.extra = {"codeopt_data": str(path)}
    rc, out = std.node.run_to_exit()
    assert rc == 2, f"exit status {rc}, expected 2:\n{out}"
    why = "No such file or directory" if what == "missing" else "not an eBPF object"
    assert f'slice alpha: "codeopt_data" {path}' in out or f"slice alpha: cannot read " \
        f'"codeopt_data" {path}' in out, out
    assert why in out, out


@pytest.mark.parametrize("check_only", [True, False], ids=["check-config", "start"])
def test_two_lc_lcores_on_a_pcap_port_of_one_rx_queue_exit_1(std, check_only):
    """Each LC lcore receives on its own queue of every port: a net_pcap device with one
    rx_pcap makes one rx queue, too few for two; --check-config already says which port,
    how many it has and needs, and what to do."""
    n = std.node
    n.lcores = [{"id": 1, "lc": True, "npes": [0]}, {"id": 2, "lc": True}]
    n.eal_extra = ["--lcores", "0@0,1@1,2@0"]
    for port in (std.p0, std.p1, std.p2):
        port.tx_queues = 2
    rc, out = n.check_config() if check_only else n.run_to_exit()
    assert rc == 1, f"exit status {rc}, expected 1:\n{out}"
    assert 'ports[0].device: net_pcap makes one rx queue a rx_pcap=' in out, out
    assert "has 1, while the port needs 2 (one an LC lcore); add rx_pcap= files" in out, out


@needs_root
def test_two_lc_lcores_on_a_memif_port_exit_2(std):
    """A device whose queues are known only when opened: net_memif's tx queues are the
    peer's to count, so two LC lcores (each answering ARP on its own tx queue) cannot share
    it; the start stops (exit 2) naming the port and why."""
    n = two_lc_node(std)
    std.p2.device = (f"net_memif{std.p2.index},role=server,"
                     f"socket=/tmp/{n.prefix}-p2.sock,socket-abstract=no")
    rc, out = n.run_to_exit()
    assert rc == 2, f"exit status {rc}, expected 2:\n{out}"
    assert 'port p2: device "net_memif2' in out and "cannot serve 2 LC lcores" in out, out
    assert "net_memif's queues are the peer's to count" in out, out


@pytest.mark.parametrize("check_only", [True, False], ids=["check-config", "start"])
def test_two_forwarding_lcores_on_one_cpu_exit_1(std, check_only):
    """--lcores pinning two forwarding lcores to one CPU: refused before EAL starts, by
    --check-config too, naming both lcores and the CPU (sharing with the main lcore is
    allowed: the two-lcore layouts of these tests do it)."""
    n = std.node
    n.lcores = [{"id": 1, "lc": True, "npes": [0]}, {"id": 2, "lc": True}]
    for port in (std.p0, std.p1, std.p2):
        port.rx_queues = port.tx_queues = 2
    cfg = n.config()
    cfg["eal"] = ["--lcores", "0@0,1@1,2@1"]
    n.config = lambda: cfg
    rc, out = n.check_config() if check_only else n.run_to_exit()
    assert rc == 1, f"exit status {rc}, expected 1:\n{out}"
    assert ("lcores[0] (lcore 1) and lcores[1] (lcore 2) both run on CPU 1 (--lcores "
            "0@0,1@1,2@1)") in out, out
    assert "give each its own CPU" in out, out
    cfg["eal"] = ["--lcores", "0@0,1@1,2@0"]
    assert n.check_config()[0] == 0


def test_the_multi_lc_example_is_accepted():
    """config/multi-lc.json, the example of a node on several cores (two LC lcores each
    running an NPE, ports of two rx queues, steering auto), passes --check-config."""
    path = REPO / "config" / "multi-lc.json"
    cfg = json.loads(path.read_text())
    assert sum(1 for lc in cfg["lcores"] if lc.get("lc")) >= 2
    assert all(p["rx_queues"] >= 2 and p["steering"] == "auto" for p in cfg["ports"])
    r = subprocess.run([str(DAEMON), "-c", str(path), "--check-config"], capture_output=True,
                       text=True, timeout=30)
    assert r.returncode == 0 and "is valid; code options: ipv4, i3, bpf, dpi, host" in \
        r.stdout, r.stdout + r.stderr
