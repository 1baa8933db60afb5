"""Steering endpoints to their NPE's lcore (docs/config.md, "Steering"): rte_flow rules
where the device takes them, else software steering, and the reason shown. No device on
these machines takes a rule (net_tap needs the kernel's flower classifier, the other vdevs
have no rte_flow), so what is checked here is the way down: every port says how it is
steered and why, traffic goes on, and a port that must have rules stops the start."""
import os

import pytest

from conftest import needs_root
from test_forwarding import two_lc_node


def tap_device(port):
    return f"net_tap{port.index},iface=spt{os.getpid() % 100000}"


@needs_root
def test_ports_whose_device_refuses_rules_are_steered_in_software(std):
    """A tap port (its kernel refuses the rules), a pcap port (no rte_flow) and a port set
    to "software": each is steered in software, says so and why in node.info and
    telemetry, and an endpoint reserved and released at run time leaves it so."""
    n = two_lc_node(std)
    std.p0.device = tap_device(std.p0)
    std.p1.steering = "software"
    n.start()
    try:
        info = n.call("node.info")
        ep = n.call("endpoint.reserve", slice="alpha", port="p0", udp_port=7001)
        after = n.call("node.info")
        n.call("endpoint.release", slice="alpha", endpoint=ep["endpoint"])
        tel = n.cmd("/slicepath/ports")
    finally:
        n.stop()
    ports = {p["name"]: p for p in info["ports"]}
    assert ports["p0"]["steering"] == "rss", ports["p0"]
    assert ports["p0"]["steering_note"].startswith(
        "the device refused the default rule (every other frame to queue 0)"), ports["p0"]
    assert ports["p1"]["steering"] == "device", ports["p1"]
    assert ports["p1"]["steering_note"] == '"steering": "software"', ports["p1"]
    assert ports["p2"]["steering"] == "device", ports["p2"]
    assert ports["p2"]["steering_note"] == ("the device takes no rte_flow rule of destination "
                                            "IPv4 and UDP port to a queue: Function not "
                                            "implemented"), ports["p2"]
    assert all(p["steering_rules"] == 0 for p in info["ports"] + after["ports"]), after
    assert [p["steering"] for p in after["ports"]] == ["rss", "device", "device"], after
    assert tel["p0"]["steering"] == "rss" and tel["p0"]["steering_rules"] == 0, tel["p0"]
    assert tel["p2"]["steering_note"].startswith("the device takes no rte_flow rule"), tel
    log = n.log()
    assert "steer: p0: steering endpoints in software (rss): the device refused" in log, log
    assert "steer: p2: steering endpoints in software (device)" in log, log
    assert "steer: p1" not in log, log  # "software": no rule tried


@needs_root
@pytest.mark.parametrize("device", ["tap", "pcap"])
def test_rte_flow_steering_the_device_refuses_exit_2(std, device):
    """"steering": "rte_flow" on a port whose device takes no rule: the node does not
    start (exit 2), naming the port, what the device said and what to set instead."""
    n = two_lc_node(std)
    if device == "tap":
        std.p0.device = tap_device(std.p0)
    std.p0.steering = "rte_flow"
    rc, out = n.run_to_exit()
    assert rc == 2, f"exit status {rc}, expected 2:\n{out}"
    said = {"tap": "the device refused the default rule (every other frame to queue 0): ",
            "pcap": "the device takes no rte_flow rule of destination IPv4 and UDP port to a "
                    "queue: Function not implemented"}[device]
    assert f'slicepathd: port p0: "steering": "rte_flow", but {said}' in out, out
    assert 'set it to "auto" or "software" to steer in software' in out, out
