# SPDX-License-Identifier: BSD-3-Clause
"""Helpers for the integration tests: a node's config, its input and expected
frames, and the real build/slicepathd run over net_pcap vdevs.

A test describes a node (ports, neighbors, slices with endpoints, queues and
filters), gives each port the frames it receives, runs the daemon until every
input frame is counted and the counters stop moving, and then compares the
frames each port transmitted, byte for byte, with frames it builds here.
"""

import contextlib
import ipaddress
import itertools
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from scapy.layers.inet import ICMP, IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw
from scapy.utils import RawPcapReader

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tools"))
from sp_rpc import Rpc  # noqa: E402
from sp_telemetry import runtime_dir, wait_for_socket  # noqa: E402

DAEMON = Path(os.environ.get("SLICEPATHD", REPO / "build" / "slicepathd"))
BUILD = DAEMON.parent
SLICECTLD = BUILD / "control" / "slicectld" / "slicectld"
SLICECTL = BUILD / "control" / "slicectl" / "slicectl"
SLOWPATH = BUILD / "control" / "examples" / "ipv4-slowpath"
GEN = BUILD / "tools" / "gen" / "slicepath-gen"

# EAL arguments every test daemon gets: no hugepages, no PCI scan, little memory.
TEST_EAL = ["--no-huge", "-m", "512", "--no-pci"]
# With hugepages: what secondary processes (dpdk-dumpcap) need to attach.
HUGE_EAL = ["-m", "256", "--no-pci"]

START_TIMEOUT = 20.0  # s until "slicepathd: forwarding"
RX_TIMEOUT = 10.0     # s until every input frame is counted
STOP_TIMEOUT = 15.0   # s from SIGTERM to exit

DROP_REASONS = [
    "truncated", "not_ipv4", "other_mac", "bad_ip_header", "fragment", "not_local", "not_udp",
    "no_endpoint", "arp_ignored", "icmp_ignored", "malformed", "bad_hdr_len", "bad_checksum",
    "ttl_expired", "options", "unsupported", "miss", "bad_result", "no_neighbor", "queue_full",
    "ring_full", "tx_full", "no_slow_path", "slow_path_full", "inbound_rate", "nd_ignored",
    "ra_ignored", "no_port_ipv6",
]

BROADCAST = "ff:ff:ff:ff:ff:ff"

# The machine that sends substrate traffic into p0 (the previous overlay hop).
PEER_MAC = "02:aa:00:00:00:01"
PEER_IP = "10.0.0.2"
PEER_UDP = 4000

_prefix_seq = itertools.count()


def unique_prefix(tag="node"):
    return f"sp-test-{os.getpid()}-{tag}-{next(_prefix_seq)}"


# ------------------------------------------------------------------ pcap files

def write_pcap(path, frames):
    """A pcap file (Ethernet link type) with the frames as raw bytes, even when empty."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            fr = bytes(fr)
            f.write(struct.pack("<IIII", 1_700_000_000, i, len(fr), len(fr)))
            f.write(fr)


def read_pcap(path):
    """The frames of a pcap file as bytes, in order (scapy's raw reader)."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return []
    r = RawPcapReader(str(path))
    try:
        return [bytes(data) for data, _meta in r]
    finally:
        r.close()


# ------------------------------------------------------------------ frames

def mac_bytes(mac):
    return bytes(int(x, 16) for x in mac.split(":"))


def inner_udp(dst, src="192.0.2.1", ttl=64, sport=1000, dport=2000, payload=None, seq=0,
              options=None, tos=0, ident=None):
    """An inner (slice) IPv4/UDP packet, as bytes; payload carries seq so frames differ."""
    if payload is None:
        payload = b"slicepath-%06d-" % seq + bytes(range(16))
    ip = IP(src=src, dst=dst, ttl=ttl, tos=tos, id=seq if ident is None else ident)
    if options is not None:
        ip.options = options
    return bytes(ip / UDP(sport=sport, dport=dport) / Raw(payload))


def substrate(inner, port, udp_dport, *, src_ip=PEER_IP, src_mac=PEER_MAC, udp_sport=PEER_UDP,
              dst_mac=None, dst_ip=None):
    """A frame carrying inner as the UDP payload to a node endpoint (port, udp_dport)."""
    return bytes(Ether(src=src_mac, dst=dst_mac or port.mac)
                 / IP(src=src_ip, dst=dst_ip or port.ipv4, id=0, flags="DF", ttl=64)
                 / UDP(sport=udp_sport, dport=udp_dport)
                 / Raw(bytes(inner)))


def routed_inner(inner):
    """What the ipv4 code option makes of an inner packet: TTL - 1, checksum updated."""
    ip = IP(bytes(inner))
    ip.ttl -= 1
    del ip.chksum
    return bytes(ip)


def encap6_out(inner, out_port, udp_sport, nh_ip6, nh_port, nh_mac):
    """The same to an IPv6 next hop: outer Ethernet/IPv6/UDP from the output port's IPv6
    address, the UDP checksum (which IPv6 requires) as scapy computes it."""
    return bytes(Ether(src=out_port.mac, dst=nh_mac, type=0x86dd)
                 / IPv6(tc=0, fl=0, nh=17, hlim=64, src=out_port.ipv6, dst=nh_ip6)
                 / UDP(sport=udp_sport, dport=nh_port)
                 / Raw(bytes(inner)))


def encap_out(inner, out_port, udp_sport, nh_ip, nh_port, nh_mac):
    """The frame slicepathd sends: outer Ethernet/IPv4/UDP from the output port to the next hop."""
    return bytes(Ether(src=out_port.mac, dst=nh_mac, type=0x0800)
                 / IP(version=4, ihl=5, tos=0, id=0, flags="DF", frag=0, ttl=64, proto=17,
                      src=out_port.ipv4, dst=nh_ip)
                 / UDP(sport=udp_sport, dport=nh_port, chksum=0)
                 / Raw(bytes(inner)))


def arp_request(sender_mac, sender_ip, target_ip, dst_mac=BROADCAST):
    return bytes(Ether(src=sender_mac, dst=dst_mac)
                 / ARP(op=1, hwsrc=sender_mac, psrc=sender_ip, hwdst="00:00:00:00:00:00",
                       pdst=target_ip))


def arp_reply(sender_mac, sender_ip, target_mac, target_ip):
    return bytes(Ether(src=sender_mac, dst=target_mac)
                 / ARP(op=2, hwsrc=sender_mac, psrc=sender_ip, hwdst=target_mac, pdst=target_ip))


def echo_request(port, ident=0x1234, seq=1, payload=b"ping-slicepath-0123456789", src_ip=PEER_IP,
                 src_mac=PEER_MAC, ip_id=7):
    return bytes(Ether(src=src_mac, dst=port.mac)
                 / IP(src=src_ip, dst=port.ipv4, id=ip_id, ttl=61)
                 / ICMP(type=8, code=0, id=ident, seq=seq) / Raw(payload))


def echo_reply_for(request, port):
    """The node's answer to an echo request: addresses swapped, TTL 64, type 0, same id/seq/data."""
    req = Ether(request)
    ip = req[IP]
    reply = (Ether(src=port.mac, dst=req.src)
             / IP(src=port.ipv4, dst=ip.src, id=ip.id, flags=ip.flags, tos=ip.tos, ttl=64)
             / ICMP(type=0, code=0, id=req[ICMP].id, seq=req[ICMP].seq)
             / Raw(bytes(req[ICMP].payload)))
    return bytes(reply)


def with_bad_ip_checksum(frame):
    """The frame with its (outer) IPv4 header checksum off by one."""
    b = bytearray(frame)
    c = struct.unpack_from("!H", b, 24)[0]
    struct.pack_into("!H", b, 24, (c + 1) & 0xFFFF or 1)
    return bytes(b)


def with_bad_inner_checksum(inner):
    b = bytearray(inner)
    c = struct.unpack_from("!H", b, 10)[0]
    struct.pack_into("!H", b, 10, (c ^ 0x5A5A) or 1)
    return bytes(b)


def same_frame(got, expected):
    """got equals expected, allowing only zero padding up to the 60-byte Ethernet minimum."""
    if got == expected:
        return True
    return (len(expected) < 60 and len(got) == 60 and got[:len(expected)] == expected
            and not any(got[len(expected):]))


def frame_diff(got, expected):
    """A readable explanation of how two frames differ."""
    lines = [f"got {len(got)} bytes, expected {len(expected)}"]
    for i in range(max(len(got), len(expected))):
        g = got[i] if i < len(got) else None
        e = expected[i] if i < len(expected) else None
        if g != e:
            lines.append(f"first difference at byte {i}: got {g!r}, expected {e!r}")
            break
    lines.append("got:      " + got.hex())
    lines.append("expected: " + expected.hex())
    try:
        lines.append("got:      " + Ether(got).summary())
        lines.append("expected: " + Ether(expected).summary())
    except Exception:  # noqa: BLE001 - a summary is only a hint
        pass
    return "\n".join(lines)


def assert_frames(got, expected, what="frames", ordered=True):
    """Byte-for-byte comparison of two frame lists (optionally ignoring order)."""
    if not ordered:
        got = sorted(got)
        expected = sorted(expected)
    assert len(got) == len(expected), (
        f"{what}: got {len(got)} frames, expected {len(expected)}\n"
        + "\n".join("got: " + Ether(g).summary() for g in got[:10]))
    for i, (g, e) in enumerate(zip(got, expected)):
        assert same_frame(g, e), f"{what}: frame {i} differs\n{frame_diff(g, e)}"


# ------------------------------------------------------------------ the ipv4 code option's filters

def ipv4_key(dst=None, src=None, sport=None, dport=None, proto=None):
    """(key, mask) hex strings for the ipv4 code option: dst IP, src IP, sport, dport, proto, 0.
    Addresses may be prefixes ("192.168.1.0/24"); None leaves a field wildcarded."""
    key = bytearray(14)
    mask = bytearray(14)

    def put_net(off, net):
        if net is None:
            return
        n = ipaddress.IPv4Network(net, strict=False)
        key[off:off + 4] = n.network_address.packed
        mask[off:off + 4] = n.netmask.packed

    put_net(0, dst)
    put_net(4, src)
    if sport is not None:
        struct.pack_into("!H", key, 8, sport)
        struct.pack_into("!H", mask, 8, 0xFFFF)
    if dport is not None:
        struct.pack_into("!H", key, 10, dport)
        struct.pack_into("!H", mask, 10, 0xFFFF)
    if proto is not None:
        key[12] = proto
        mask[12] = 0xFF
    return key.hex(), mask.hex()


# ------------------------------------------------------------------ telemetry values

def neighbor_table(d, kinds=False):
    """/slicepath/neighbors as {(port, address): "mac"} ("mac kind" with kinds, kind being
    static or learned; the address a.b.c.d or IPv6 text). The reply is, per port, a list of
    "address mac kind" strings (DPDK 22.11 telemetry keys allow only [A-Za-z0-9_/], so
    addresses cannot be keys)."""
    table = {}
    for port, entries in d.items():
        for e in entries:
            ip, mac, kind = e.split()
            table[(port, ip)] = f"{mac.lower()} {kind}" if kinds else mac.lower()
    return table


# ------------------------------------------------------------------ the node

class Port:
    def __init__(self, name, index, ipv4, mac, *, rx=True, tx=True, device=None, rate=None):
        self.name = name
        self.index = index
        self.ipv4 = ipv4
        self.mac = mac
        self.rx = rx      # give the port an rx pcap (possibly empty)
        self.tx = tx      # give the port a tx pcap
        self.tx_queues = 1  # tx pcaps, one a queue: the device's tx queues
        self.rx_queues = 1  # rx pcaps likewise
        self.device = device
        self.rate = rate  # "rate" in the config, or the default
        self.steering = None  # "steering" in the config, or the default
        self.rx_queues_key = None  # "rx_queues" in the config, or the default
        self.host = None  # "host": the host path's interface name, or none
        self.ipv6 = None  # "ipv6": the node's own IPv6 address on the port, or none

    def __repr__(self):
        return f"Port({self.name}, {self.ipv4}, {self.mac})"


class Slice:
    def __init__(self, name, sid, codeopt="ipv4"):
        self.name = name
        self.id = sid
        self.codeopt = codeopt
        self.endpoints = []   # [(port name, udp port, {"bandwidth", "inbound"} as given)]
        self.queues = []      # [dict]
        self.filters = []     # [dict]
        self.npe = 0
        self.extra = {}       # other keys of the slice's config

    def endpoint(self, port, udp_port, bandwidth=None, inbound=None):
        """Add an endpoint (bandwidth, inbound: its reservations); returns its index."""
        rates = {k: v for k, v in (("bandwidth", bandwidth), ("inbound", inbound)) if v}
        self.endpoints.append((port.name if isinstance(port, Port) else port, udp_port, rates))
        return len(self.endpoints) - 1

    def udp_port_on(self, port):
        name = port.name if isinstance(port, Port) else port
        for p, u, _rates in self.endpoints:
            if p == name:
                return u
        raise KeyError(f"slice {self.name} has no endpoint on {name}")

    def queue(self, qid, endpoint, threshold=1 << 20, share=None, **more):
        """A queue; share (a rate) defaults to the daemon's, more adds other keys."""
        q = {"id": qid, "endpoint": endpoint, "threshold": threshold, **more}
        if share is not None:
            q["share"] = share
        self.queues.append(q)
        return qid

    def route(self, position, dst, *, endpoint, queue, next_hop, src=None, data=None):
        """An ipv4 filter: inner destination prefix dst to (endpoint, queue, next hop "ip:port")."""
        key, mask = ipv4_key(dst=dst, src=src)
        result = {"endpoint": endpoint, "queue": queue, "next_hop": next_hop}
        if data is not None:
            result["data"] = data
        self.filters.append({"position": position, "key": key, "mask": mask, "result": result})

    def to_json(self):
        return {
            "name": self.name, "id": self.id, "codeopt": self.codeopt, "npe": self.npe,
            "endpoints": [{"port": p, "udp_port": u, **rates} for p, u, rates in self.endpoints],
            "queues": self.queues,
            "filters": self.filters,
            **self.extra,
        }


class Node:
    """A slicepathd instance under test: config, input pcaps, run, output pcaps."""

    def __init__(self, workdir, tag="node"):
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.prefix = unique_prefix(tag)
        self.ports = {}
        self.neighbors = []       # [(port name, ip, mac)]: IPv4 or IPv6
        self.slices = {}
        self.lcores = None        # None: run to completion on lcore 1
        self.npes = [{"filters": 4096, "queues": 256}]
        self.mbufs = 8192
        self.eal_extra = []       # EAL args for the command line (after --)
        self.eal = TEST_EAL       # hugepages or not: HUGE_EAL shares memory with secondaries
        self.rx = {}              # port name -> [frame bytes], all its rx queues
        self.rx_queue = {}        # (port name, rx queue) -> [frame bytes]
        self.proc = None
        self.returncode = None
        self.log_path = self.dir / "slicepathd.log"
        self.config_path = self.dir / "slicepathd.json"
        self.extra_config = {}
        # Short: a Unix socket path has at most 107 characters, test directories more.
        self.mgmt_socket = Path("/tmp") / f"{self.prefix}.sock"
        self.channel_dir = Path("/tmp") / f"{self.prefix}-slices"
        self._rpc = None

    # ---- description

    def port(self, name, ipv4, mac, **kw):
        p = Port(name, len(self.ports), ipv4, mac, **kw)
        self.ports[name] = p
        return p

    def neighbor(self, port, ip, mac):
        self.neighbors.append((port.name if isinstance(port, Port) else port, ip, mac))

    def slice(self, name, sid, codeopt="ipv4"):
        s = Slice(name, sid, codeopt)
        self.slices[name] = s
        return s

    def receive(self, port, frames, queue=0):
        """Frames the port reads from its rx pcap, of that rx queue (appended)."""
        name = port.name if isinstance(port, Port) else port
        frames = [bytes(f) for f in frames]
        self.rx.setdefault(name, []).extend(frames)
        self.rx_queue.setdefault((name, queue), []).extend(frames)

    def rx_pcap(self, port, queue=0):
        return self.dir / (f"{port.name}-rx.pcap" if queue == 0 else f"{port.name}-rx{queue}.pcap")

    def tx_pcap(self, port, queue=0):
        return self.dir / (f"{port.name}-tx.pcap" if queue == 0 else f"{port.name}-tx{queue}.pcap")

    def device(self, port):
        if port.device is not None:
            return port.device
        args = [f"net_pcap{port.index}"]
        if port.rx:
            args.extend(f"rx_pcap={self.rx_pcap(port, q)}" for q in range(port.rx_queues))
        if port.tx:
            args.extend(f"tx_pcap={self.tx_pcap(port, q)}" for q in range(port.tx_queues))
        return ",".join(args)

    def config(self):
        cfg = {
            "eal": [],
            "mbufs": self.mbufs,
            "ports": [{"name": p.name, "device": self.device(p), "ipv4": p.ipv4, "mac": p.mac,
                       **({"rate": p.rate} if p.rate else {}),
                       **({"steering": p.steering} if p.steering else {}),
                       **({"rx_queues": p.rx_queues_key} if p.rx_queues_key else {}),
                       **({"host": p.host} if p.host else {}),
                       **({"ipv6": p.ipv6} if p.ipv6 else {})}
                      for p in self.ports.values()],
            "neighbors": [{"port": p, "ipv6" if ":" in ip else "ipv4": ip, "mac": mac}
                          for p, ip, mac in self.neighbors],
            "npes": self.npes,
            "mgmt_socket": str(self.mgmt_socket),
            "channel_dir": str(self.channel_dir),
            "slices": [s.to_json() for s in self.slices.values()],
        }
        if self.lcores is not None:
            cfg["lcores"] = self.lcores
        cfg.update(self.extra_config)
        return cfg

    def write(self):
        for p in self.ports.values():
            if p.device is None and p.rx:
                for q in range(p.rx_queues):
                    write_pcap(self.rx_pcap(p, q), self.rx_queue.get((p.name, q), []))
        self.config_path.write_text(json.dumps(self.config(), indent=2))

    # ---- running

    def command(self):
        return [str(DAEMON), "-c", str(self.config_path), "--", *self.eal,
                "--file-prefix", self.prefix, *self.eal_extra]

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def show_log(self, why=""):
        """Print the daemon's log (pytest shows it for failed tests)."""
        print(f"----- slicepathd log{(' (' + why + ')') if why else ''}: {self.log_path}")
        print("$ " + " ".join(self.command()))
        print(self.log(), end="")
        print("----- end of slicepathd log")

    def start(self):
        assert DAEMON.exists(), f"{DAEMON} is missing: build it first (scripts/setup.sh)"
        self.write()
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(self.command(), stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, cwd=self.dir)
        deadline = time.monotonic() + START_TIMEOUT
        while "slicepathd: forwarding" not in self.log():
            rc = self.proc.poll()
            if rc is not None:
                self.returncode = rc
                self.show_log("exited during start-up")
                raise AssertionError(f"slicepathd exited with {rc} before forwarding")
            if time.monotonic() > deadline:
                self.show_log("start-up timeout")
                self.kill()
                raise AssertionError(f"slicepathd did not log 'slicepathd: forwarding' "
                                     f"within {START_TIMEOUT}s")
            time.sleep(0.05)
        self.tel = wait_for_socket(self.prefix, timeout=5.0)
        return self

    def cmd(self, command):
        return self.tel.cmd(command)

    def call(self, method, **params):
        """A management API call (docs/api.md) on one connection kept open; raises RpcError."""
        if self._rpc is None:
            self._rpc = Rpc(self.mgmt_socket)
        return self._rpc.call(method, **params)

    def wait_rx(self, timeout=RX_TIMEOUT):
        """Wait until every port has counted the frames of its rx pcap, then until the
        node's counters stop changing (packets in flight have left)."""
        want = {name: len(frames) for name, frames in self.rx.items()}
        deadline = time.monotonic() + timeout
        while True:
            ports = self.cmd("/slicepath/ports")
            missing = [name for name in want if name not in ports]
            if missing:
                raise AssertionError(f"/slicepath/ports does not report {missing}: {ports}")
            have = {name: ports[name]["rx_pkts"] for name in want}
            if all(have[n] >= want[n] for n in want):
                break
            if time.monotonic() > deadline:
                self.show_log("rx timeout")
                raise AssertionError(f"ports counted {have} received frames, expected {want}")
            time.sleep(0.05)
        self.wait_quiet(deadline)
        return ports

    def snapshot(self):
        return (self.cmd("/slicepath/ports"), self.cmd("/slicepath/drops"),
                self.cmd("/slicepath/slices"))

    def wait_quiet(self, deadline=None, interval=0.15):
        """Until two snapshots of the counters, interval seconds apart, are equal."""
        deadline = deadline or time.monotonic() + RX_TIMEOUT
        last = self.snapshot()
        while True:
            time.sleep(interval)
            cur = self.snapshot()
            if cur == last or time.monotonic() > deadline:
                return cur
            last = cur

    def _close_sockets(self):
        """The telemetry and management connections: a new daemon needs new ones."""
        if getattr(self, "tel", None) is not None:
            self.tel.close()
            self.tel = None
        if self._rpc is not None:
            self._rpc.close()
            self._rpc = None

    def stop(self, expect_rc=0, sig=signal.SIGTERM):
        """SIGTERM (or sig), wait for the exit status (output pcaps are complete after this)."""
        self._close_sockets()
        if self.proc is None:
            return self.returncode
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            self.returncode = self.proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.show_log("no exit after SIGTERM")
            self.kill()
            raise AssertionError(f"slicepathd did not exit within {STOP_TIMEOUT}s of SIGTERM")
        finally:
            self._log.close()
        self.proc = None
        self.cleanup()
        if expect_rc is not None and self.returncode != expect_rc:
            self.show_log(f"exit status {self.returncode}")
            raise AssertionError(f"slicepathd exited with {self.returncode}, expected {expect_rc}")
        return self.returncode

    def kill(self):
        self._close_sockets()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        self.cleanup()

    def crash(self):
        """kill -9 as a crash would: the log closed, what a restart finds left in place."""
        self.proc.kill()
        self.proc.wait()
        self._log.close()

    def cleanup(self):
        """Remove the EAL's runtime directory (/var/run/dpdk/<prefix>), which DPDK leaves
        behind, and the management socket and channel directory a killed daemon leaves."""
        shutil.rmtree(runtime_dir(self.prefix), ignore_errors=True)
        shutil.rmtree(self.channel_dir, ignore_errors=True)
        try:
            self.mgmt_socket.unlink()
        except FileNotFoundError:
            pass

    def run(self):
        """Start, wait for all input to be processed, return the counters (a dict)."""
        self.start()
        try:
            self.wait_rx()
            counters = self.counters()
        except BaseException:
            self.show_log("failed while running")
            self.stop(expect_rc=None)
            raise
        self.stop()
        self.show_log("after a clean stop")
        return counters

    def counters(self):
        c = {
            "info": self.cmd("/slicepath/info"),
            "ports": self.cmd("/slicepath/ports"),
            "drops": self.cmd("/slicepath/drops"),
            "slices": self.cmd("/slicepath/slices"),
            "endpoints": self.cmd("/slicepath/endpoints"),
            "neighbors": self.cmd("/slicepath/neighbors"),
            "slice": {}, "filters": {}, "lookup": {}, "queues": {},
        }
        for name in self.slices:
            c["slice"][name] = self.cmd(f"/slicepath/slice,{name}")
            c["filters"][name] = self.cmd(f"/slicepath/filters,{name}")
            c["lookup"][name] = self.cmd(f"/slicepath/lookup,{name}")
            c["queues"][name] = self.cmd(f"/slicepath/queues,{name}")
        return c

    def output(self, port, queue=None):
        """Frames the port transmitted, on one tx queue or all (read after stop())."""
        queues = range(port.tx_queues) if queue is None else [queue]
        return [f for q in queues for f in read_pcap(self.tx_pcap(port, q))]

    def check_config(self):
        """Run slicepathd --check-config; returns (exit status, output)."""
        self.write()
        r = subprocess.run([str(DAEMON), "-c", str(self.config_path), "--check-config"],
                           capture_output=True, text=True, timeout=30)
        return r.returncode, r.stdout + r.stderr

    def run_to_exit(self, timeout=30):
        """Start the daemon and wait for it to exit on its own (a start-up failure)."""
        self.write()
        try:
            r = subprocess.run(self.command(), capture_output=True, text=True, timeout=timeout,
                               stdin=subprocess.DEVNULL, cwd=self.dir)
        finally:
            self.cleanup()
        print(f"$ {' '.join(self.command())}\n{r.stdout}{r.stderr}")
        return r.returncode, r.stdout + r.stderr


# ------------------------------------------------------------------ a node under load

# The next hop behind p1 of loaded_node().
LOAD_NH = ("10.1.0.2", 7001, "02:bb:00:00:01:02")


def loaded_node(tmp_path, tag, sched_rate):
    """A node whose p0 replays tmp_path/input.pcap forever (net_pcap infinite_rx: every
    queue it feeds stays backlogged) and whose p1, a 1 Gb/s null device with next hop
    LOAD_NH, is shared by its one NPE's scheduler at sched_rate. The caller adds slices
    and writes the pcap. Returns (node, p0, p1, pcap path)."""
    n = Node(tmp_path, tag)
    pcap = tmp_path / "input.pcap"
    p0 = n.port("p0", "10.0.0.1", "02:00:00:00:00:10",
                device=f"net_pcap0,rx_pcap={pcap},infinite_rx=1")
    p1 = n.port("p1", "10.1.0.1", "02:00:00:00:01:10", device="net_null1,no-rx=1", rate="1G")
    n.neighbor(p1, LOAD_NH[0], LOAD_NH[2])
    n.npes = [{"filters": 4096, "queues": 256, "rates": {"p1": sched_rate}}]
    n.mbufs = 16384
    return n, p0, p1, pcap


# ------------------------------------------------------------------ a node fed through a tap

TAP_NH3 = ("10.1.0.3", 7103, "02:bb:00:00:01:03")
_iface_seq = itertools.count()


class TapNode:
    """p0 a tap port the test writes substrate frames into, p1 a pcap output; slice alpha
    with an endpoint on each, queue 0 on p1, and no filters."""

    def __init__(self, tmp_path, tag):
        self.iface = f"spt{os.getpid() % 10000}x{next(_iface_seq)}"
        n = self.node = Node(tmp_path, tag)
        self.p0 = n.port("p0", "10.0.0.1", "02:00:00:00:00:10",
                         device=f"net_tap0,iface={self.iface}")
        self.p1 = n.port("p1", "10.1.0.1", "02:00:00:00:01:10")
        n.neighbor(self.p1, LOAD_NH[0], LOAD_NH[2])
        n.neighbor(self.p1, TAP_NH3[0], TAP_NH3[2])
        a = self.alpha = n.slice("alpha", 1)
        a.endpoint(self.p0, 5001)
        self.out = a.endpoint(self.p1, 5001)
        a.queue(0, self.out)
        self.sock = None
        self.sent = 0

    def start(self):
        self.node.start()
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        self.sock.bind((self.iface, 0))
        return self

    def stop(self):
        self.sock.close()
        self.node.stop()

    def send(self, *inners):
        """Frames for alpha's p0 endpoint; returns once alpha has counted them."""
        for inner in inners:
            self.sock.send(substrate(inner, self.p0, 5001))
        self.sent += len(inners)
        deadline = time.monotonic() + 5
        while self.node.call("stats.get", slice="alpha")["slice"]["rx_pkts"] < self.sent:
            assert time.monotonic() < deadline, "alpha did not count the frames sent"
            time.sleep(0.02)

    def expected(self, inner, nh):
        return encap_out(routed_inner(inner), self.p1, 5001, nh[0], nh[1], nh[2])

    def route(self, position, dst, nh):
        key, mask = ipv4_key(dst=dst)
        return {"position": position, "key": key, "mask": mask,
                "result": {"endpoint": self.out, "queue": 0, "next_hop": f"{nh[0]}:{nh[1]}"}}


# ------------------------------------------------------------------ the standard test node

class Standard:
    """The node most tests use.

        p0 10.0.0.1  input (substrate traffic from PEER 10.0.0.2)
        p1 10.1.0.1  output; next hops 10.1.0.2 (NH1) and 10.1.0.3 (NH3) statically resolved
        p2 10.2.0.1  output; next hop 10.2.0.2 (NH2) statically resolved

        slice alpha (id 1): endpoints p0:5001 p1:5001 p2:5001
            192.168.1.0/24 -> p1, queue 0, NH1:7001
            192.168.2.0/24 -> p2, queue 1, NH2:7002
        slice beta (id 2): endpoints p0:5002 p1:5002 p2:5002
            192.168.1.0/24 -> p2, queue 1, NH2:7102   (same prefix as alpha, other route)
            172.16.0.0/16  -> p1, queue 0, NH3:7103
    """

    P0 = ("p0", "10.0.0.1", "02:00:00:00:00:10")
    P1 = ("p1", "10.1.0.1", "02:00:00:00:01:10")
    P2 = ("p2", "10.2.0.1", "02:00:00:00:02:10")
    NH1 = ("10.1.0.2", 7001, "02:bb:00:00:01:02")
    NH2 = ("10.2.0.2", 7002, "02:bb:00:00:02:02")
    NH3 = ("10.1.0.3", 7103, "02:bb:00:00:01:03")
    NH2B = ("10.2.0.2", 7102, "02:bb:00:00:02:02")

    def __init__(self, workdir, tag="std"):
        n = self.node = Node(workdir, tag)
        self.p0 = n.port(*self.P0)
        self.p1 = n.port(*self.P1)
        self.p2 = n.port(*self.P2)
        n.neighbor(self.p1, self.NH1[0], self.NH1[2])
        n.neighbor(self.p1, self.NH3[0], self.NH3[2])
        n.neighbor(self.p2, self.NH2[0], self.NH2[2])

        a = self.alpha = n.slice("alpha", 1)
        a.endpoint(self.p0, 5001)
        a1 = a.endpoint(self.p1, 5001)
        a2 = a.endpoint(self.p2, 5001)
        a.queue(0, a1)
        a.queue(1, a2)
        a.route(0, "192.168.1.0/24", endpoint=a1, queue=0, next_hop=f"{self.NH1[0]}:{self.NH1[1]}")
        a.route(1, "192.168.2.0/24", endpoint=a2, queue=1, next_hop=f"{self.NH2[0]}:{self.NH2[1]}")

        b = self.beta = n.slice("beta", 2)
        b.endpoint(self.p0, 5002)
        b1 = b.endpoint(self.p1, 5002)
        b2 = b.endpoint(self.p2, 5002)
        b.queue(0, b1)
        b.queue(1, b2)
        b.route(0, "192.168.1.0/24", endpoint=b2, queue=1, next_hop=f"{self.NH2B[0]}:{self.NH2B[1]}")
        b.route(1, "172.16.0.0/16", endpoint=b1, queue=0, next_hop=f"{self.NH3[0]}:{self.NH3[1]}")

    # frames into the node
    def to_slice(self, slice_, inner, **kw):
        return substrate(inner, self.p0, slice_.udp_port_on(self.p0), **kw)

    # expected frames out of the node
    def out(self, slice_, inner, port, nh):
        ip, udp, mac = nh
        return encap_out(routed_inner(inner), port, slice_.udp_port_on(port), ip, udp, mac)


# ------------------------------------------------------------------ slicectld

@contextlib.contextmanager
def readable_files(files):
    """A directory in /tmp holding files ({name: bytes, or a Path to copy}) that any user may
    read, for programs run as a test user (pytest's tmp_path is root's alone); removed after."""
    d = Path(tempfile.mkdtemp(prefix="sp-files-"))
    try:
        os.chmod(d, 0o755)
        for name, content in files.items():
            if isinstance(content, Path):
                shutil.copy(content, d / name)
            else:
                (d / name).write_bytes(content)
            os.chmod(d / name, 0o644)
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def as_user(user):
    """subprocess arguments that run a command as user (a name) would run it from a login:
    its uid, gid and groups; {} for None (root)."""
    if user is None:
        return {}
    import pwd
    pw = pwd.getpwnam(user)
    return {"user": pw.pw_uid, "group": pw.pw_gid,
            "extra_groups": os.getgrouplist(user, pw.pw_gid)}


class Ctld:
    """A slicectld under test in front of a Node's slicepathd: its own socket, database and
    log. call() talks to it as root; slicectl() runs the CLI as any user."""

    def __init__(self, node, workdir, *args):
        self.node = node
        self.socket = Path("/tmp") / f"{node.prefix}-ctl.sock"
        self.database = Path(workdir) / "slicectld.db"
        self.log_path = Path(workdir) / "slicectld.log"
        self.args = list(args)
        self.proc = None
        self._rpc = None

    def command(self):
        # Metrics on a port of the kernel's choosing: tests never fight over one.
        return [str(SLICECTLD), "-s", str(self.socket), "-b", str(self.node.mgmt_socket),
                "-d", str(self.database), "--metrics", "127.0.0.1:0", *self.args]

    def metrics_url(self):
        """Where this slicectld serves metrics (from its log)."""
        self.wait_log("metrics at http://")
        return self.log().split("metrics at ")[-1].split()[0]

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def wait_log(self, text, count=1, timeout=START_TIMEOUT):
        """Until text is in the log count times."""
        deadline = time.monotonic() + timeout
        while self.log().count(text) < count:
            if self.proc is not None and self.proc.poll() is not None:
                print(self.log())
                raise AssertionError(f"slicectld exited ({self.proc.returncode}) waiting for "
                                     f"{text!r}")
            if time.monotonic() > deadline:
                print(self.log())
                raise AssertionError(f"slicectld did not log {text!r} {count}x in {timeout}s")
            time.sleep(0.05)

    def start(self, connected=True):
        """Start it; with connected, wait until it has connected to slicepathd (and replayed)."""
        assert SLICECTLD.exists(), f"{SLICECTLD} is missing: build it first"
        seen = self.log().count("replay done")
        serving = self.log().count("slicectld: serving")  # before it can write another
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.command(), stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        self.wait_log("slicectld: serving", serving + 1)
        if connected:
            self.wait_log("replay done", seen + 1)
        return self

    def call(self, method, **params):
        """A call as root on one connection kept open; raises RpcError."""
        if self._rpc is None:
            self._rpc = Rpc(self.socket)
        return self._rpc.call(method, **params)

    def slicectl(self, *args, user=None, check=True, stdin=None):
        """Run slicectl (as user, a name or uid) with -s; returns the CompletedProcess.
        With check, a non-zero exit fails the test with slicectl's output."""
        r = subprocess.run([str(SLICECTL), "-s", str(self.socket), *map(str, args)],
                           capture_output=True, text=True, timeout=120, input=stdin,
                           **as_user(user))
        print(f"$ slicectl {' '.join(map(str, args))}" + (f"  (as {user})" if user else ""))
        print(r.stdout + r.stderr, end="")
        if check:
            assert r.returncode == 0, f"slicectl {' '.join(map(str, args))} exited " \
                f"{r.returncode}: {r.stderr}"
        return r

    def json(self, *args, user=None):
        """slicectl -j ARGS as user: the parsed result."""
        return json.loads(self.slicectl("-j", *args, user=user).stdout)

    def _close_rpc(self):
        if self._rpc is not None:
            self._rpc.close()
            self._rpc = None

    def stop(self, sig=signal.SIGTERM):
        self._close_rpc()
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        rc = self.proc.wait(timeout=STOP_TIMEOUT)
        self._log.close()
        self.proc = None
        return rc

    def kill(self):
        """kill -9: no clean-up of its own; the socket file stays."""
        self._close_rpc()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc is not None:
            self._log.close()
        self.proc = None


def strip_counters(dump):
    """state.dump without what traffic changes (filter hits): what a replay must restore."""
    dump = json.loads(json.dumps(dump))
    for s in dump["slices"]:
        for f in s["filters"]:
            f.pop("hits", None)
    return dump


# ------------------------------------------------------------------ test users

class LocalUsers:
    """Unprivileged users for authorization tests (useradd), removed at the end.
    owners: two plain users; operator: a member of the operator group."""

    OWNERS = ("sp-test-a", "sp-test-b")
    OPERATOR = "sp-test-op"
    GROUP = "sp-test-ops"

    def __init__(self):
        self.made = []
        if subprocess.run(["getent", "group", self.GROUP], capture_output=True).returncode:
            subprocess.run(["groupadd", self.GROUP], check=True)
            self.made.append(("group", self.GROUP))
        for name in (*self.OWNERS, self.OPERATOR):
            if subprocess.run(["id", name], capture_output=True).returncode:
                extra = ["-G", self.GROUP] if name == self.OPERATOR else []
                subprocess.run(["useradd", "-M", "-N", "-s", "/usr/sbin/nologin", *extra, name],
                               check=True)
                self.made.append(("user", name))
        import pwd
        self.uid = {name: pwd.getpwnam(name).pw_uid for name in (*self.OWNERS, self.OPERATOR)}

    def remove(self):
        for kind, name in reversed(self.made):
            subprocess.run(["userdel" if kind == "user" else "groupdel", name],
                           capture_output=True)
