# SPDX-License-Identifier: BSD-3-Clause
"""A code option loaded from a shared object ("codeopt_libs"): the raw code
option of codeopts/raw/ keys on the first 14 bytes of the slice's packet and
leaves the packet as it is, beside an ipv4 slice on the same node."""

import shutil
import subprocess
from pathlib import Path

from conftest import needs_root
from spnode import DAEMON, REPO, assert_frames, encap_out, inner_udp

pytestmark = needs_root

RAW_LIB = DAEMON.parent / "codeopts" / "raw" / "sp_codeopt_raw.so"
RAW_SOURCE = Path(__file__).resolve().parents[2] / "codeopts" / "raw" / "raw.c"


def raw_slice(std, lib=RAW_LIB):
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
    std.node.extra_config["codeopt_libs"] = [str(lib)]
    return s


def forwards_untouched_packets(std, gamma):
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
    # The object logged through the daemon's exported sp_slice_log, under its own type.
    assert "raw: slice gamma: filters match the first 14 bytes of each packet\n" in n.log()


def test_loaded_code_option_forwards_untouched_packets(std):
    forwards_untouched_packets(std, raw_slice(std))


def build_out_of_the_tree(tmp_path, pkg_config_path, package):
    """codeopts/raw/raw.c copied elsewhere and built with pkg-config alone, as the guides say
    (docs/codeopt.md): the path of the shared object."""
    src = tmp_path / "elsewhere" / "raw.c"
    src.parent.mkdir()
    shutil.copy(RAW_SOURCE, src)
    env = {"PKG_CONFIG_PATH": str(pkg_config_path), "PATH": "/usr/bin:/bin"}
    cflags = subprocess.run(["pkg-config", "--cflags", package], env=env,
                            check=True, capture_output=True, text=True).stdout.split()
    lib = src.with_suffix(".so")
    cc = subprocess.run(["cc", "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", *cflags,
                         "-o", str(lib), str(src)], capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr
    return lib


def test_code_option_built_from_the_build_tree(std, tmp_path):
    """The build tree's slicepath-codeopt-uninstalled.pc names the tree's headers."""
    lib = build_out_of_the_tree(tmp_path, DAEMON.parent / "meson-uninstalled",
                                "slicepath-codeopt-uninstalled")
    forwards_untouched_packets(std, raw_slice(std, lib))


def test_code_option_built_from_a_staged_install(std, tmp_path):
    """A build configured for another prefix, installed under a destdir (what a package
    does): its slicepath-codeopt.pc finds the headers where it lies, with PKG_CONFIG_PATH
    alone, and DPDK's own paths stay as they are."""
    build = tmp_path / "build"
    subprocess.run(["meson", "setup", "--prefix", "/opt/slicepath-test", str(build),
                    str(REPO)], check=True, capture_output=True)
    # The devel install tag (headers, .pc files) holds one built file: libslicectl.a.
    subprocess.run(["ninja", "-C", str(build), "control/libslicectl/libslicectl.a"],
                   check=True, capture_output=True)
    dest = tmp_path / "dest"
    subprocess.run(["meson", "install", "-C", str(build), "--destdir", str(dest),
                    "--tags", "devel", "--no-rebuild", "--quiet"],
                   check=True, capture_output=True)
    pc = next(dest.rglob("slicepath-codeopt.pc"))
    lib = build_out_of_the_tree(tmp_path, pc.parent, "slicepath-codeopt")
    forwards_untouched_packets(std, raw_slice(std, lib))


def test_daemon_exports_the_abi_alone():
    """slicepathd exports codeopt.h's functions and nothing else."""
    exported = subprocess.run(["nm", "-D", "--defined-only", str(DAEMON)], check=True,
                              capture_output=True, text=True).stdout.split("\n")
    # Besides the C library's objects it copies in (optarg@GLIBC_2.2.5...).
    ours = sorted(line.split()[-1] for line in exported if line.strip() and "@" not in line)
    assert ours == ["sp_codeopt_register", "sp_slice_id", "sp_slice_log", "sp_slice_mem",
                    "sp_slice_mem_size", "sp_slice_priv", "sp_slice_set_priv"], ours


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
