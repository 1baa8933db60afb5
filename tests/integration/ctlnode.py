# SPDX-License-Identifier: BSD-3-Clause
"""A node run the way slicectld expects: slicepathd with ports and no slices of its own
(p0 a tap the test writes substrate frames into, p1 a pcap output, or a tap the test reads
while the node runs, with next hops NH1 and NH3 resolved), and slicectld in front of it.
Slices are made through the control API."""

import itertools
import os
import select
import socket
import time

from spnode import Ctld, Node, encap_out, routed_inner, substrate

NH1 = ("10.1.0.2", 7001, "02:bb:00:00:01:02")
NH3 = ("10.1.0.3", 7103, "02:bb:00:00:01:03")
_iface_seq = itertools.count()


def own_slice(ctl, name, owner, udp, dst):
    """A slice of owner's, made through slicectl as owner: endpoints on p0 and p1 (udp),
    queue 0 bound to p1's, and one filter sending dst there to NH1."""
    sc = ctl.ctld.slicectl
    sc("slice", "create", name, "codeopt", "ipv4", "owner", owner, "filters", 16, "queues", 2,
       "buffers", 1000)
    sc("endpoint", "reserve", name, "port", "p0", "udp", udp, user=owner)
    sc("endpoint", "reserve", name, "port", "p1", "udp", udp, user=owner)
    sc("queue", "bind", name, 0, "endpoint", 1, user=owner)
    sc("filter", "add", name, "pos", 0, "dst", dst, "endpoint", 1, "queue", 0,
       "nexthop", f"{NH1[0]}:{NH1[1]}", user=owner)


class CtlNode:
    def __init__(self, tmp_path, tag, *ctld_args, p1_tap=False):
        self.iface = f"spc{os.getpid() % 10000}x{next(_iface_seq)}"
        self.p1_iface = f"{self.iface}o" if p1_tap else None
        n = self.node = Node(tmp_path, tag)
        self.p0 = n.port("p0", "10.0.0.1", "02:00:00:00:00:10",
                         device=f"net_tap0,iface={self.iface}")
        self.p1 = n.port("p1", "10.1.0.1", "02:00:00:00:01:10",
                         device=f"net_tap1,iface={self.p1_iface}" if p1_tap else None)
        n.neighbor(self.p1, NH1[0], NH1[2])
        n.neighbor(self.p1, NH3[0], NH3[2])
        self.ctld = Ctld(n, tmp_path, *ctld_args)
        self.sock = None
        self.p1_sock = None
        self.sent = {}

    def start(self):
        self.start_node()
        self.ctld.start()
        return self

    def start_node(self):
        """slicepathd (again, after a crash), and the tap socket into p0."""
        self.node.start()
        if self.sock is not None:
            self.sock.close()
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.sock.bind((self.iface, 0))
        if self.p1_iface is not None:
            self.p1_sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                                         socket.htons(0x0003))
            self.p1_sock.bind((self.p1_iface, 0))

    def stop(self):
        self.ctld.stop()
        for s in (self.sock, self.p1_sock):
            if s is not None:
                s.close()
        self.node.stop()

    def p1_frames(self, count, timeout=5.0):
        """Up to count frames p1 transmits (a tap) within timeout, the kernel's own
        chatter on it (IPv6 multicast listener reports...) left out."""
        frames, deadline = [], time.monotonic() + timeout
        while len(frames) < count:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.p1_sock], [], [], left)[0]:
                break
            frame, (_, _, pkttype, *_) = self.p1_sock.recvfrom(65536)
            # What the node sends arrives at the kernel; what the kernel sends goes out.
            if pkttype != socket.PACKET_OUTGOING:
                frames.append(frame)
        return frames

    def kill(self):
        self.ctld.kill()
        self.node.kill()

    def rx(self, slice_name):
        return self.ctld.call("stats.get", slice=slice_name)["slice"]["rx_pkts"]

    def send(self, slice_name, udp_port, *inners):
        """Frames to the slice's endpoint on p0; returns once the slice has counted them."""
        want = self.rx(slice_name) + len(inners)
        for inner in inners:
            self.sock.send(substrate(inner, self.p0, udp_port))
        self.wait(lambda: self.rx(slice_name) >= want, f"{slice_name} did not count the frames")

    @staticmethod
    def wait(pred, what, timeout=5):
        deadline = time.monotonic() + timeout
        while not pred():
            assert time.monotonic() < deadline, what
            time.sleep(0.02)

    def expected(self, inner, udp_port, nh):
        """The frame p1 sends for inner from the slice's endpoint udp_port to next hop nh."""
        return encap_out(routed_inner(inner), self.p1, udp_port, nh[0], nh[1], nh[2])
