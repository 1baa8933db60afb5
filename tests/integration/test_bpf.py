# SPDX-License-Identifier: BSD-3-Clause
"""The bpf code option through the control API: a slice owner loads the eBPF IPv4 router
(codeopts/bpf/examples) with `slicectl codeopt load`, and its slice forwards the same
packets to the same bytes as a native ipv4 slice beside it, with the same drops and
exceptions; programs the verifier refuses come back with its reason and leave the loaded
one in place; another user cannot load into the slice; after kill -9 of slicepathd,
slicectld loads the program again; the examples in docs/bpf.md and the slice developer's
guide compile, load and do what they say."""

import ctypes
import re
import subprocess

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from conftest import needs_root
from ctlnode import NH1
from spnode import (BUILD, REPO, encap_out, inner_udp, readable_files, routed_inner,
                    with_bad_inner_checksum)

pytestmark = needs_root

EXAMPLE = BUILD / "codeopts" / "bpf" / "examples" / "ipv4_router.bpf.o"
REFUSED = BUILD / "tests" / "unit" / "bpf"


@pytest.fixture
def objects():
    """The objects where the owner running slicectl can read them."""
    files = {f.name: f for f in [EXAMPLE, *(REFUSED / n for n in ("loop.bpf.o", "oob.bpf.o",
                                                                   "helper.bpf.o"))]}
    with readable_files({**files, "junk.o": b"\x7fELF but not really"}) as d:
        yield d


def two_routers(ctl, owner):
    """ebpf (the eBPF router, UDP 5001) and native (ipv4, UDP 5002): the same route."""
    sc = ctl.ctld.slicectl
    for name, codeopt, udp in (("ebpf", "bpf", 5001), ("native", "ipv4", 5002)):
        sc("slice", "create", name, "codeopt", codeopt, "owner", owner, "filters", 16,
           "buffers", 1000)
        sc("endpoint", "reserve", name, "port", "p0", "udp", udp, user=owner)
        sc("endpoint", "reserve", name, "port", "p1", "udp", udp, user=owner)
        sc("queue", "bind", name, 0, "endpoint", 1, user=owner)
        sc("filter", "add", name, "pos", 0, "dst", "192.168.0.0/16", "endpoint", 1, "queue", 0,
           "nexthop", f"{NH1[0]}:{NH1[1]}", user=owner)


def packets():
    """What both slices get: forwarded ones of several sizes and TTLs, and each kind of
    drop and exception the router knows."""
    good = [inner_udp(f"192.168.{i}.{i + 1}", ttl=2 + i * 40, seq=i,
                      payload=bytes(range(i * 30 % 256)) * 3) for i in range(6)]
    bad = [inner_udp("192.168.9.9", ttl=1, seq=20),                   # ttl_expired
           with_bad_inner_checksum(inner_udp("192.168.9.9", seq=21)),  # bad_checksum
           inner_udp("10.0.0.9", seq=22),                             # miss
           bytes(IP(dst="192.168.9.9", options=b"\x01\x01\x01\x00") / UDP()),  # options
           b"\x45\x00\x00"]                                           # malformed
    return good, bad


def test_ebpf_router_forwards_like_the_native_one(ctl, users, objects):
    owner = users.OWNERS[0]
    ctl.start()
    sc = ctl.ctld.slicectl
    two_routers(ctl, owner)
    # Before a program is loaded, packets go to the slow path.
    good, bad = packets()
    ctl.send("ebpf", 5001, good[0])
    assert ctl.ctld.call("stats.get", slice="ebpf")["slice"]["reasons"] == {
        "unsupported": 1, "no_slow_path": 1}
    sc("codeopt", "load", "ebpf", objects / "ipv4_router.bpf.o", user=owner)
    ctl.send("ebpf", 5001, *good, *bad)
    ctl.send("native", 5002, *good, *bad)
    st = {n: ctl.ctld.call("stats.get", slice=n)["slice"] for n in ("ebpf", "native")}
    reasons = dict(st["native"]["reasons"])
    assert st["ebpf"]["fwd_pkts"] == st["native"]["fwd_pkts"] == len(good)
    assert {k: v - (k in ("unsupported", "no_slow_path")) for k, v in st["ebpf"]["reasons"].items()
            if v - (k in ("unsupported", "no_slow_path"))} == reasons
    assert set(reasons) == {"ttl_expired", "bad_checksum", "miss", "options", "malformed",
                            "no_slow_path"}
    ctl.stop()
    out = {}
    for f in ctl.node.output(ctl.p1):
        e = Ether(f)
        out.setdefault(e[UDP].sport, []).append(bytes(e[UDP].payload))
    assert out[5002] == [routed_inner(p) for p in good]
    assert out[5001] == out[5002], "the eBPF router's bytes differ from the native router's"


def test_refused_programs_say_why_and_change_nothing(ctl, users, objects):
    owner, other = users.OWNERS
    ctl.start()
    sc = ctl.ctld.slicectl
    two_routers(ctl, owner)
    sc("codeopt", "load", "ebpf", objects / "ipv4_router.bpf.o", user=owner)
    for name, reason in (("loop.bpf.o", "loops detected"),
                         ("oob.bpf.o", "memory boundary violation"),
                         ("helper.bpf.o", "invalid external function index"),
                         ("junk.o", "not an eBPF object libbpf can open")):
        r = sc("codeopt", "load", "ebpf", objects / name, user=owner, check=False)
        assert r.returncode != 0 and reason in r.stderr, r.stderr
    r = sc("codeopt", "load", "ebpf", objects / "ipv4_router.bpf.o", user=other, check=False)
    assert r.returncode != 0 and "(code 1006)" in r.stderr, r.stderr
    r = sc("codeopt", "load", "native", objects / "ipv4_router.bpf.o", user=owner, check=False)
    assert "code option ipv4 of slice native takes no data (bpf and dpi do" in r.stderr, r.stderr
    # The router loaded first still forwards.
    good, _ = packets()
    ctl.send("ebpf", 5001, good[0])
    assert ctl.ctld.call("stats.get", slice="ebpf")["slice"]["fwd_pkts"] == 1


def test_program_restored_after_slicepathd_dies(ctl, users, objects):
    owner = users.OWNERS[0]
    ctl.start()
    two_routers(ctl, owner)
    ctl.ctld.slicectl("codeopt", "load", "ebpf", objects / "ipv4_router.bpf.o", user=owner)
    ctl.node.crash()
    ctl.start_node()
    ctl.ctld.wait_log("slice ebpf (id 1) restored with its 1 filter(s)")
    good, _ = packets()
    ctl.send("ebpf", 5001, *good)
    st = ctl.ctld.call("stats.get", slice="ebpf")["slice"]
    assert st["fwd_pkts"] == len(good) and st["exception_pkts"] == 0, st


def doc_program(doc):
    """The first C example of doc that has a parse section."""
    blocks = re.findall(r"```c\n(.*?)```", (REPO / "docs" / doc).read_text(), re.S)
    return next(b for b in blocks if "SP_BPF_PARSE" in b)


@pytest.mark.parametrize("doc", ["bpf.md", "guide-slice-developer.md"])
def test_documented_example_compiles_loads_and_works(ctl, users, doc, tmp_path):
    """Both examples key on the packet's first byte; bpf.md's format() lowers byte 1."""
    owner = users.OWNERS[0]
    (tmp_path / "doc.bpf.c").write_text(doc_program(doc))
    obj = tmp_path / "doc.bpf.o"
    r = subprocess.run(["clang", "-O2", "-target", "bpf", "-mcpu=v2", "-Wall", "-Werror",
                        f"-I{REPO / 'include'}", "-c", str(tmp_path / "doc.bpf.c"), "-o",
                        str(obj)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    ctl.start()
    sc = ctl.ctld.slicectl
    sc("slice", "create", "doc", "codeopt", "bpf", "owner", owner, "filters", 4,
       "buffers", 100)
    sc("endpoint", "reserve", "doc", "port", "p0", "udp", 5001, user=owner)
    sc("endpoint", "reserve", "doc", "port", "p1", "udp", 5001, user=owner)
    sc("queue", "bind", "doc", 0, "endpoint", 1, user=owner)
    # IPv4 packets start with 0x45: key byte 0.
    sc("filter", "add", "doc", "pos", 0, "key", "45" + "00" * 13, "mask", "ff" + "00" * 13,
       "endpoint", 1, "queue", 0, "nexthop", f"{NH1[0]}:{NH1[1]}", user=owner)
    with readable_files({"doc.bpf.o": obj}) as d:
        sc("codeopt", "load", "doc", d / "doc.bpf.o", user=owner)
    pkt = inner_udp("192.168.1.1", seq=1)
    ctl.send("doc", 5001, pkt, b"\x01\x02")  # the second too short: dropped
    st = ctl.ctld.call("stats.get", slice="doc")["slice"]
    assert (st["fwd_pkts"], st["reasons"]) == (1, {"malformed": 1}), st
    ctl.stop()
    want = pkt[:1] + bytes([(pkt[1] - 1) % 256]) + pkt[2:] if doc == "bpf.md" else pkt
    assert [bytes(f) for f in ctl.node.output(ctl.p1)] == [
        encap_out(want, ctl.p1, 5001, NH1[0], NH1[1], NH1[2])]


def test_libslicectl_loads_programs(ctl, users, objects):
    """sp_ctl_codeopt_load() as a slow path in C calls it (through ctypes here)."""
    lib = ctypes.CDLL(str(BUILD / "control" / "libslicectl" / "libslicectl.so"))
    lib.sp_ctl_open.restype = ctypes.c_void_p
    lib.sp_ctl_open.argtypes = [ctypes.c_char_p]
    lib.sp_ctl_codeopt_load.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                        ctypes.c_size_t]
    lib.sp_ctl_error.restype = ctypes.c_char_p
    lib.sp_ctl_error.argtypes = [ctypes.c_void_p]
    lib.sp_ctl_close.argtypes = [ctypes.c_void_p]
    ctl.start()
    two_routers(ctl, users.OWNERS[0])
    c = lib.sp_ctl_open(str(ctl.ctld.socket).encode())
    assert c
    try:
        good = (objects / "ipv4_router.bpf.o").read_bytes()
        assert lib.sp_ctl_codeopt_load(c, b"ebpf", good, len(good)) == 0
        bad = (objects / "loop.bpf.o").read_bytes()
        assert lib.sp_ctl_codeopt_load(c, b"ebpf", bad, len(bad)) != 0
        assert b"loops detected" in lib.sp_ctl_error(c)
        huge = bytes((1 << 20) + 1)
        assert lib.sp_ctl_codeopt_load(c, b"ebpf", huge, len(huge)) != 0
        assert lib.sp_ctl_error(c) == b"at most 1048576 bytes a call"
    finally:
        lib.sp_ctl_close(c)
    good_pkts, _ = packets()
    ctl.send("ebpf", 5001, good_pkts[0])
    assert ctl.ctld.call("stats.get", slice="ebpf")["slice"]["fwd_pkts"] == 1
