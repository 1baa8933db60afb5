# SPDX-License-Identifier: BSD-3-Clause
"""A code option loaded from a shared object ("codeopt_libs"): the raw code
option of codeopts/raw/ keys on the first 14 bytes of the slice's packet and
leaves the packet as it is, beside an ipv4 slice on the same node."""

from conftest import needs_root
from spnode import DAEMON, assert_frames, encap_out, inner_udp

pytestmark = needs_root

RAW_LIB = DAEMON.parent / "codeopts" / "raw" / "sp_codeopt_raw.so"


def raw_slice(std):
    """Slice "gamma" (raw) on p0:5003 -> p1:5003; packets starting with b"GO" go to NH1."""
    s = std.node.slice("gamma", 3, codeopt="raw")
    s.endpoint(std.p0, 5003)
    out = s.endpoint(std.p1, 5003)
    s.queue(0, out)
    key = b"GO".ljust(14, b"\0")
    mask = b"\xff\xff".ljust(14, b"\0")
    s.filters.append({"position": 0, "key": key.hex(), "mask": mask.hex(),
                      "result": {"endpoint": out, "queue": 0,
                                 "next_hop": f"{std.NH1[0]}:{std.NH1[1]}"}})
    std.node.extra_config["codeopt_libs"] = [str(RAW_LIB)]
    return s


def test_loaded_code_option_forwards_untouched_packets(std):
    gamma = raw_slice(std)
    n = std.node
    go = [b"GO" + bytes([i]) * 20 for i in range(3)]        # match: forwarded as they are
    stop = [b"STOP" + bytes(10), b"G"]                       # miss (and a 1-byte packet)
    ipv4 = inner_udp("192.168.1.5")                          # the ipv4 slice keeps working
    n.receive(std.p0, [std.to_slice(gamma, p) for p in go + stop] + [std.to_slice(std.alpha, ipv4)])
    c = n.run()

    ip, udp, mac = std.NH1
    expected = [encap_out(p, std.p1, 5003, ip, udp, mac) for p in go]
    expected.append(std.out(std.alpha, ipv4, std.p1, std.NH1))
    assert_frames(n.output(std.p1), expected, "p1 output", ordered=False)

    sl = c["slices"]["gamma"]
    assert sl["codeopt"] == "raw"
    assert (sl["rx_pkts"], sl["fwd_pkts"], sl["exception_pkts"]) == (5, 3, 2), sl
    assert c["slice"]["gamma"]["reasons"]["miss"] == 2
    assert c["filters"]["gamma"] == {"0": 3}


def test_check_config_loads_the_object(std):
    raw_slice(std)
    rc, out = std.node.check_config()
    assert rc == 0, out
    assert "is valid" in out


def test_missing_object_is_a_config_error(std):
    raw_slice(std)
    std.node.extra_config["codeopt_libs"] = [str(RAW_LIB) + ".missing"]
    rc, out = std.node.check_config()
    assert rc == 1, out
    assert "codeopt_libs[0]: cannot load" in out
    assert "sp_codeopt_raw.so.missing" in out


def test_unloaded_code_option_is_named(std):
    raw_slice(std)
    del std.node.extra_config["codeopt_libs"]
    rc, out = std.node.check_config()
    assert rc == 1, out
    assert 'slices[2].codeopt: unknown code option "raw"' in out
    assert "ipv4" in out and "codeopt_libs" in out
