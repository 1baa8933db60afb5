#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the demo input pcap for slicepathd: substrate-encapsulated inner
IPv4/UDP packets for every ipv4 slice that has an endpoint on the input port,
aimed at each of its filters, plus a few frames of each kind the node drops
or raises as an exception, so that every counter table has something in it,
and frames for a slice of your own on UDP port 5010, which no demo slice holds
(docs/guide-slice-developer.md's alice1 reserves it).

    scripts/demo-traffic.py [-c config/default.json] [-s config/demo-slices.json] [-p p0]
                            [-o /run/slicepath/demo-p0.pcap] [--forward-only] [--size BYTES]

The addresses (port IPv4 and MAC, endpoint UDP ports, filter prefixes) are
read from the config, so the file matches whatever that config describes;
-s adds the slices of another file (those scripts/demo-slices.py creates
through slicectld). --forward-only leaves out the frames to drop or answer
and --size fixes the inner payload, for a generator replaying the file at a
rate (pktgen-DPDK, docs/testing.md).
"""

import argparse
import ipaddress
import json
import os
import random
import sys

from scapy.layers.inet import ICMP, IP, TCP, UDP, IPOption_NOP, IPOption_RR
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import ARP, Ether
from scapy.packet import Raw
from scapy.utils import wrpcap

PEER_MAC = "02:aa:00:00:00:01"   # the previous hop on the input port
PEER_IP_OFFSET = 100             # the peer is the port's address + this
# A newcomer's slice (docs/guide-slice-developer.md): frames to this UDP port are
# counted no_endpoint until a slice reserves it on the input port, then that slice's:
# to 192.168.7.0/24 (the guide's filter forwards them), a TTL of 1 (an exception for
# its slow path) and a destination no filter of the guide's matches (a miss).
NEWCOMER_UDP = 5010


def pcap_default_mac(cfg, port):
    """net_pcap's own MAC (02:70:63:61:70:NN, "pcap" + index) when the config gives none."""
    idx = [p["name"] for p in cfg["ports"] if p["device"].startswith("net_pcap")].index(port["name"])
    return f"02:70:63:61:70:{idx:02x}"


def prefix_of(key_hex, mask_hex):
    """The inner destination prefix of an ipv4-code-option filter (key bytes 0-3)."""
    key = bytes.fromhex(key_hex.lower().removeprefix("0x"))
    mask = bytes.fromhex(mask_hex.lower().removeprefix("0x"))
    m = int.from_bytes(mask[0:4], "big")
    plen = bin(m).count("1")
    if m != ((0xFFFFFFFF << (32 - plen)) & 0xFFFFFFFF):
        plen = 32  # not a prefix mask: aim at the exact key
    net = ipaddress.IPv4Network((int.from_bytes(key[0:4], "big") & m, plen), strict=False)
    return net


def matches(filters, dst):
    d = int(ipaddress.IPv4Address(dst))
    for f in filters:
        key = bytes.fromhex(f["key"].lower().removeprefix("0x"))
        mask = bytes.fromhex(f["mask"].lower().removeprefix("0x"))
        if not any(mask[4:]) and (d & int.from_bytes(mask[:4], "big")) == int.from_bytes(key[:4], "big"):
            return True
        if any(mask[4:]):
            return True  # filters on more than the destination: assume it may match
    return False


def hosts_in(net, n, rng):
    if net.num_addresses <= 2:
        return [str(net.network_address)] * n
    first = int(net.network_address) + 1
    last = int(net.broadcast_address) - 1
    return [str(ipaddress.IPv4Address(rng.randint(first, last))) for _ in range(n)]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-c", "--config", default=os.path.join(here, "..", "config", "default.json"))
    ap.add_argument("-s", "--slices", action="append", default=[],
                    help="a file whose \"slices\" get traffic too (repeatable)")
    ap.add_argument("-p", "--port", default="p0", help="the input port (default: %(default)s)")
    ap.add_argument("-o", "--output", default="/run/slicepath/demo-p0.pcap")
    ap.add_argument("-n", "--per-filter", type=int, default=24,
                    help="good packets per filter (default: %(default)s)")
    ap.add_argument("--forward-only", action="store_true",
                    help="only packets the slices forward (no drops, exceptions, ARP or ping)")
    ap.add_argument("--size", type=int, help="inner UDP payload bytes of every packet "
                    "(default: a mix from 18 to 1400)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.size is not None and not 0 <= a.size <= 1400:
        ap.error("--size takes 0 to 1400 bytes")

    with open(a.config) as f:
        cfg = json.load(f)
    for path in a.slices:
        with open(path) as f:
            cfg.setdefault("slices", []).extend(json.load(f)["slices"])
    ports = {p["name"]: p for p in cfg["ports"]}
    if a.port not in ports:
        sys.exit(f"demo-traffic: no port {a.port!r} in {a.config} (ports: {', '.join(ports)})")
    port = ports[a.port]
    mac = port.get("mac") or pcap_default_mac(cfg, port)
    ip = port["ipv4"]
    peer_ip = str(ipaddress.IPv4Address(ip) + PEER_IP_OFFSET)
    rng = random.Random(a.seed)

    def substrate(udp_port, inner, dst_mac=mac, dst_ip=ip):
        return (Ether(src=PEER_MAC, dst=dst_mac) / IP(src=peer_ip, dst=dst_ip, id=0, flags="DF")
                / UDP(sport=4000, dport=udp_port) / Raw(bytes(inner)))

    def inner(dst, ttl=64, size=18, seq=0):
        return (IP(src=f"192.0.2.{1 + seq % 250}", dst=dst, ttl=ttl, id=seq & 0xFFFF)
                / UDP(sport=1024 + seq % 5000, dport=53) / Raw(bytes(rng.randrange(256) for _ in range(size))))

    good, special = [], []
    seq = 0
    used_ports = set()
    summary = []
    for s in cfg.get("slices", []):
        eps = [e for e in s.get("endpoints", []) if e["port"] == a.port]
        for e in s.get("endpoints", []):
            used_ports.add(e["udp_port"])
        if not eps or s.get("codeopt") != "ipv4":
            continue
        udp = eps[0]["udp_port"]
        filters = s.get("filters", [])
        for flt in filters:
            net = prefix_of(flt["key"], flt["mask"])
            if net.prefixlen == 0:
                net = ipaddress.IPv4Network("198.51.100.0/24")
            for dst in hosts_in(net, a.per_filter, rng):
                size = a.size if a.size is not None else rng.choice([18, 18, 18, 64, 200, 512, 1400])
                good.append(substrate(udp, inner(dst, ttl=rng.choice([64, 32, 255, 2]), size=size, seq=seq)))
                seq += 1
        # exceptions and drops this slice counts
        miss = next((d for d in ("10.255.0.1", "203.0.113.9", "100.64.0.1") if not matches(filters, d)), None)
        if miss:
            special += [substrate(udp, inner(miss, seq=seq + i)) for i in range(3)]
        special += [substrate(udp, inner("192.168.1.1", ttl=1, seq=seq + 3))] * 2       # ttl_expired
        opt = IP(src="192.0.2.1", dst="192.168.1.1", options=[IPOption_RR(routers=["0.0.0.0"]), IPOption_NOP()])
        special.append(substrate(udp, opt / UDP(sport=1, dport=2) / Raw(b"o" * 18)))    # options
        bad = bytearray(bytes(inner("192.168.1.1", seq=seq + 4)))
        bad[10] ^= 0x5A                                                                  # bad_checksum
        special.append(substrate(udp, bad))
        summary.append(f"{s['name']} (udp {udp}, {len(filters)} filter(s))")

    if not good:
        sys.exit(f"demo-traffic: no ipv4 slice has an endpoint on {a.port} in {a.config}")

    free_udp = next(p for p in range(6000, 7000) if p not in used_ports)
    some = good[0]
    raw_some = bytes(some)
    bad_ck = bytearray(raw_some)
    bad_ck[24] ^= 0xFF
    special += [
        substrate(free_udp, inner("192.168.1.1")),                                      # no_endpoint
        Ether(src=PEER_MAC, dst=mac) / IPv6(dst="fd00::1") / UDP(dport=5001) / Raw(b"x" * 20),  # not_ipv4
        substrate(5001, inner("192.168.1.1"), dst_mac="02:00:00:00:99:99"),            # other_mac
        substrate(5001, inner("192.168.1.1"), dst_ip=str(ipaddress.IPv4Address(ip) + 50)),  # not_local
        Ether(src=PEER_MAC, dst=mac) / IP(src=peer_ip, dst=ip) / TCP(dport=80) / Raw(b"t" * 10),  # not_udp
        Ether(bytes(bad_ck)),                                                            # bad_ip_header
        Ether(raw_some[:30]),                                                            # truncated
        Ether(src=PEER_MAC, dst="ff:ff:ff:ff:ff:ff") / ARP(op=1, hwsrc=PEER_MAC, psrc=peer_ip, pdst=ip),
        Ether(src=PEER_MAC, dst=mac) / IP(src=peer_ip, dst=ip) / ICMP(type=8, id=1, seq=1) / Raw(b"ping" * 8),
    ]
    newcomer = []
    if NEWCOMER_UDP not in used_ports:
        newcomer = [substrate(NEWCOMER_UDP, inner(f"192.168.7.{1 + i}", seq=i)) for i in range(4)]
        newcomer += [substrate(NEWCOMER_UDP, inner("192.168.7.9", ttl=1, seq=4)),
                     substrate(NEWCOMER_UDP, inner("10.255.0.1", seq=5))]
    if a.forward_only:
        special, newcomer = [], []
    frames = good + special + newcomer
    rng.shuffle(frames)
    os.makedirs(os.path.dirname(os.path.abspath(a.output)), exist_ok=True)
    wrpcap(a.output, frames, linktype=1)
    print(f"demo-traffic: wrote {len(frames)} frames ({len(good)} to forward, {len(special)} to "
          f"drop or answer, {len(newcomer)} to UDP {NEWCOMER_UDP}) for {', '.join(summary)} to "
          f"{a.output}")


if __name__ == "__main__":
    main()
