# SPDX-License-Identifier: BSD-3-Clause
"""The single-lcore harness (the stable one on these VMs, docs/testing.md): slicepathd
with p0 replaying a pcap forever (net_pcap infinite_rx), so it always has more to take
than it can, and p1 a net_null sink; the figure is what each slice forwards per second.
Frames are built here byte by byte (no scapy needed)."""

import socket
import struct
import time

from . import node, progress
from .dut import Slicepathd

PEER_MAC = "02:00:00:00:00:01"
WARM_UP = 1.0  # s before counting: the first rounds fill caches and the JIT's pages


def ipv4_header(src, dst, payload_len, ttl=64, proto=17):
    h = bytearray(struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + payload_len, 0, 0x4000, ttl, proto,
                              0, socket.inet_aton(src), socket.inet_aton(dst)))
    total = sum(struct.unpack(">10H", h))
    total = (total & 0xFFFF) + (total >> 16)
    struct.pack_into(">H", h, 10, ~((total & 0xFFFF) + (total >> 16)) & 0xFFFF)
    return bytes(h)


def substrate(udp_port, inner):
    """Ethernet, IPv4 and UDP from the peer to the node's endpoint on p0, around inner."""
    eth = bytes.fromhex(node.NODE_MAC.replace(":", "") + PEER_MAC.replace(":", "")) + b"\x08\x00"
    return (eth + ipv4_header("10.0.0.2", "10.0.0.1", 8 + len(inner)) +
            struct.pack(">HHHH", 4000, udp_port, 8 + len(inner), 0) + inner)


def ipv4_frame(udp_port, flow, frame_len, fill=b"\0"):
    """A frame of frame_len bytes (at least 70) to an ipv4 slice: inner UDP to 10.9.0.<flow+1>,
    its payload fill repeated."""
    payload = (fill * (frame_len // len(fill) + 1))[:frame_len - 70]
    return substrate(udp_port, ipv4_header("192.168.0.1", f"10.9.0.{flow + 1}", 8 + len(payload))
                     + struct.pack(">HHHH", 1000, 2000, 8 + len(payload), 0) + payload)


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for frame in frames:
            f.write(struct.pack("<IIII", 0, 0, len(frame), len(frame)) + frame)


def forwarded(workdir, tag, slices, frames, seconds, setup=None):
    """{slice: packets/s forwarded} with frames replayed into p0, after setup(dut)."""
    progress.trial(tag, WARM_UP + seconds)
    pcap = workdir / f"{tag}.pcap"
    write_pcap(pcap, frames)
    # Rates far above what one lcore forwards: the code options are the limit.
    dut = Slicepathd(workdir, tag, node.config(slices, "90G", link="100G"),
                     devices=[f"net_pcap0,rx_pcap={pcap},infinite_rx=1",
                              "net_null1,no-rx=1"]).start()
    names = [s["name"] for s in slices]
    try:
        if setup is not None:
            setup(dut)
        time.sleep(WARM_UP)

        def fwd():
            return {n: dut.call("stats.get", slice=n)["slice"]["fwd_pkts"] for n in names}

        before, t0 = fwd(), time.monotonic()
        time.sleep(seconds)
        after, t1 = fwd(), time.monotonic()
    finally:
        dut.stop()
    return {n: (after[n] - before[n]) / (t1 - t0) for n in names}
