# SPDX-License-Identifier: BSD-3-Clause
"""Mixed code options (SPP's mixed test): an ipv4 slice and an i3 slice on one NPE, the
same total load at every point, the i3 share of it going from 0 to 100 %; each slice's
output rate and the total. The points at 0 and 100 % give ipv4 alone and i3 alone in
the same run. Frames are the same size for both: only the code option differs.

The harness is the single-lcore one (saturate.py): the node always has more of the mix to
take than it can; the rate is what each slice forwards.

The i3 slice is one node responsible for every ID (its ring left empty) with one trigger
(filter and record written as its slow path would, codeopts/i3), so every i3 packet takes
the whole fast path: parse, TCAM lookup, the record check in format()."""

import csv

from . import node, plot
from .ratio import ratio, shown
from .saturate import forwarded, ipv4_frame, substrate

FRAME = 134                  # bytes: 42 substrate + 28 inner IPv4/UDP + 64, or + 35 i3 + 57
PCAP_FRAMES = 400            # the replayed mix: a share of 0.25 is 100 i3 frames among them
FLOWS = 16
TRIGGER = bytes([0x30] + [0x11] * 31)  # the i3 ID the trigger holds and the frames go to
RING_BYTES = 2096            # struct sp_i3_ring: trigger records follow it
# The record of filter position 0: the ID, then generation 1, one trigger, 128 bits.
RECORD = TRIGGER.hex() + "01000000" + "0100" + "8000"


def i3_slice(name, sid, udp, share):
    """Slice name with code option i3: endpoints on p0 and p1, queue 0 on p1, and the
    trigger's filter (its key the ID's first 112 bits) to the next hop, generation 1."""
    return {
        "name": name, "id": sid, "codeopt": "i3", "filter_quota": 16, "queue_quota": 4,
        "memory": 4096,
        "endpoints": [{"port": "p0", "udp_port": udp},
                      {"port": "p1", "udp_port": udp, "bandwidth": share}],
        "queues": [{"id": 0, "endpoint": 1, "share": share, "threshold": 1 << 20}],
        "filters": [{"position": 0, "key": TRIGGER[:14].hex(), "mask": "ff" * 14,
                     "result": {"endpoint": 1, "queue": 0, "data": "01000000",
                                "next_hop": "%s:%d" % node.next_hop("p1")}}],
    }


def i3_frame(flow):
    # Flows differ in the ID's last bytes, beyond the 128 bits the trigger matches.
    return substrate(5002, bytes([0x10, 0x50, 1]) + TRIGGER[:-1] + bytes([flow]) +
                     bytes(FRAME - 77))


def point(workdir, share, seconds):
    """Forwarded packets/s of each slice with the mix at share: PCAP_FRAMES frames, the
    i3 ones spread evenly among the ipv4 ones."""
    frames = [i3_frame(i % FLOWS) if int((i + 1) * share) > int(i * share)
              else ipv4_frame(5001, i % FLOWS, FRAME) for i in range(PCAP_FRAMES)]
    slices = [node.ipv4_slice("ipv4", 1, "p0", "p1", 5001, "10.9.0.0/16", "40G",
                              threshold=1 << 20), i3_slice("i3", 2, 5002, "40G")]
    return forwarded(workdir, f"mix-{round(share * 100)}", slices, frames, seconds,
                     setup=lambda dut: dut.call("mem.write", slice="i3", offset=RING_BYTES,
                                                data=RECORD))


def run(workdir, quick):
    shares, seconds = ([0, 0.5, 1], 0.5) if quick else ([0, 0.1, 0.25, 0.5, 0.75, 0.9, 1], 3.0)
    rows = []
    for share in shares:
        got = point(workdir, share, seconds)
        rows.append({"i3_share": share, "ipv4_out_mpps": got["ipv4"] / 1e6,
                     "i3_out_mpps": got["i3"] / 1e6,
                     "total_out_mpps": (got["ipv4"] + got["i3"]) / 1e6})
    with open(workdir / "mix.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    x = [100 * r["i3_share"] for r in rows]
    plot.panels(workdir / "mix.png", f"ipv4 and i3 slices on one NPE, {FRAME}-byte frames, "
                "one lcore at saturation",
                [("output (Mpps)", {k: (x, [r[f"{k}_out_mpps"] for r in rows])
                                    for k in ("ipv4", "i3", "total")})],
                xlabel="i3 share of the offered load (%)")
    lines = [f"mix: output by i3 share at saturation ({FRAME}-byte frames, one lcore)"]
    for r in rows:
        lines.append(f"  i3 {100 * r['i3_share']:5.1f} %: ipv4 {r['ipv4_out_mpps']:6.3f} Mpps, "
                     f"i3 {r['i3_out_mpps']:6.3f}, total {r['total_out_mpps']:6.3f}")
    alone_ip, alone_i3 = rows[0]["ipv4_out_mpps"], rows[-1]["i3_out_mpps"]
    lines.append(f"  i3 alone {alone_i3:.3f} Mpps, ipv4 alone {alone_ip:.3f} Mpps: "
                 f"{shown(ratio(alone_i3, alone_ip))}")
    return lines
