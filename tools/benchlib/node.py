# SPDX-License-Identifier: BSD-3-Clause
"""Configs of the benchmark node: ports, next hop and the ipv4 slices the scenarios use."""

NODE_MAC = "02:00:00:00:00:10"
NEXT_HOP = ("10.1.0.2", 7001, "02:bb:00:00:01:02")  # behind p1; behind p<i>: 10.<i>.0.2


def key_dst(prefix):
    """An ipv4 filter's key and mask (slicepath/ipv4.h: the destination first) for
    "a.b.c.d/len"."""
    addr, length = prefix.split("/")
    value = 0
    for part in addr.split("."):
        value = value << 8 | int(part)
    mask = (0xFFFFFFFF << (32 - int(length))) & 0xFFFFFFFF
    return f"{value & mask:08x}" + "0" * 20, f"{mask:08x}" + "0" * 20


def ipv4_slice(name, sid, in_port, out_port, udp, dst, share, threshold=65536, packets=None):
    """Slice name: an endpoint on in_port and one on out_port reserving share bit/s, queue 0
    there with that share, threshold bytes deep (and packets, if given, which is also
    the slice's buffer quota), and one filter sending dst to the next hop."""
    key, mask = key_dst(dst)
    s = {
        "name": name, "id": sid, "codeopt": "ipv4", "filter_quota": 16, "queue_quota": 4,
        "endpoints": [{"port": in_port, "udp_port": udp},
                      {"port": out_port, "udp_port": udp, "bandwidth": share}],
        "queues": [{"id": 0, "endpoint": 1, "share": share, "threshold": threshold}],
        "filters": [{"position": 0, "key": key, "mask": mask,
                     "result": {"endpoint": 1, "queue": 0,
                                "next_hop": "%s:%d" % next_hop(out_port)}}],
    }
    if packets is not None:
        s["queues"][0]["threshold_packets"] = s["buffer_quota"] = packets
    return s


def config(slices, out_rate, link="10G", outputs=1):
    """Port p0 (input) and outputs p1.. (link rate link), the NPE's scheduler on each output
    at out_rate, the next hop on each (NEXT_HOP's address in that port's subnet), and the
    slices."""
    outs = [f"p{i}" for i in range(1, outputs + 1)]
    return {
        "mbufs": 16384,
        "ports": [{"name": "p0", "ipv4": "10.0.0.1", "mac": NODE_MAC}] +
                 [{"name": p, "ipv4": f"10.{i}.0.1", "mac": f"02:00:00:00:0{i}:10", "rate": link}
                  for i, p in enumerate(outs, 1)],
        "neighbors": [{"port": p, "ipv4": next_hop(p)[0], "mac": NEXT_HOP[2]} for p in outs],
        "npes": [{"filters": 4096, "queues": 256, "rates": {p: out_rate for p in outs}}],
        "slices": slices,
    }


def next_hop(port):
    """The next hop (address, UDP port) behind output port "p<i>": 10.<i>.0.2:7001."""
    return f"10.{port[1:]}.0.2", NEXT_HOP[1]


def stream(name, udp, inner_dst, rx_port=1, **kw):
    """A generator stream from its port 0 to the node's p0 endpoint udp, back on rx_port
    (the generator's port i is the node's p<i>); inner_dst None for an i3 stream (i3_id)."""
    inner = {"inner_dst": inner_dst} if inner_dst is not None else {}
    return {"name": name, "tx_port": 0, "rx_port": rx_port, "dst_mac": NODE_MAC,
            "src_ip": "10.0.0.2", "dst_ip": "10.0.0.1", "dst_port": udp, **inner, **kw}
