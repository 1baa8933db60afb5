# SPDX-License-Identifier: BSD-3-Clause
"""Configs of the benchmark node: ports, next hop and the ipv4 slices the scenarios use."""

NODE_MAC = "02:00:00:00:00:10"
NEXT_HOP = ("10.1.0.2", 7001, "02:bb:00:00:01:02")


def key_dst(prefix):
    """An ipv4 filter's key and mask (slicepath/ipv4.h: the destination first) for
    "a.b.c.d/len"."""
    addr, length = prefix.split("/")
    value = 0
    for part in addr.split("."):
        value = value << 8 | int(part)
    mask = (0xFFFFFFFF << (32 - int(length))) & 0xFFFFFFFF
    return f"{value & mask:08x}" + "0" * 20, f"{mask:08x}" + "0" * 20


def ipv4_slice(name, sid, in_port, out_port, udp, dst, share, threshold=65536):
    """Slice name: an endpoint on in_port and one on out_port reserving share bit/s, queue 0
    there with that share, and one filter sending dst to the next hop."""
    key, mask = key_dst(dst)
    return {
        "name": name, "id": sid, "codeopt": "ipv4", "filter_quota": 16, "queue_quota": 4,
        "endpoints": [{"port": in_port, "udp_port": udp},
                      {"port": out_port, "udp_port": udp, "bandwidth": share}],
        "queues": [{"id": 0, "endpoint": 1, "share": share, "threshold": threshold}],
        "filters": [{"position": 0, "key": key, "mask": mask,
                     "result": {"endpoint": 1, "queue": 0,
                                "next_hop": f"{NEXT_HOP[0]}:{NEXT_HOP[1]}"}}],
    }


def config(slices, out_rate, link="10G"):
    """Ports p0 (input) and p1 (output, link rate link), the NPE's scheduler on p1 at
    out_rate, and the slices."""
    return {
        "mbufs": 16384,
        "ports": [{"name": "p0", "ipv4": "10.0.0.1", "mac": NODE_MAC},
                  {"name": "p1", "ipv4": "10.1.0.1", "mac": "02:00:00:00:01:10", "rate": link}],
        "neighbors": [{"port": "p1", "ipv4": NEXT_HOP[0], "mac": NEXT_HOP[2]}],
        "npes": [{"filters": 4096, "queues": 256, "rates": {"p1": out_rate}}],
        "slices": slices,
    }


def stream(name, udp, inner_dst, **kw):
    """A generator stream from its port 0 to the node's p0 endpoint udp, back on port 1."""
    return {"name": name, "tx_port": 0, "rx_port": 1, "dst_mac": NODE_MAC,
            "src_ip": "10.0.0.2", "dst_ip": "10.0.0.1", "dst_port": udp,
            "inner_dst": inner_dst, **kw}
