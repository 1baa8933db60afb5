# SPDX-License-Identifier: BSD-3-Clause
"""i3 packets byte by byte (include/slicepath/i3.h, after the public Berkeley i3): for the
i3 code option's tests and benchmarks."""

import socket
import struct

VERSION = 0x10
DATA, OPTION_LIST, FIRST_HOP = 0x10, 0x20, 0x40
OPT_SENDER, OPT_INSERT, OPT_CHALLENGE, OPT_ACK, OPT_REMOVE = 1, 2, 3, 4, 5
ADDR_IPV4 = 0x20
NONCE_OFF = 35  # in a trigger: flags, ID, prefix length, then the nonce


def ident(first, fill=0, **bytes_at):
    """A 32-byte ID: first byte, the rest fill, then byte positions overridden (b15=0x80)."""
    b = bytearray([first] + [fill] * 31)
    for k, v in bytes_at.items():
        b[int(k[1:])] = v
    return bytes(b)


def addr(ip, port):
    return bytes([ADDR_IPV4]) + socket.inet_aton(ip) + struct.pack(">H", port)


def trigger(tid, ip, port, nonce=bytes(16), prefix_len=128, key=bytes(16)):
    return bytes([0]) + tid + struct.pack(">H", prefix_len) + nonce + addr(ip, port) + key


def packet(flags, ids, options=None, payload=b""):
    """version, flags, stack, IDs, [list length counting itself, options], payload."""
    b = bytes([VERSION, flags, len(ids)]) + b"".join(ids)
    if options is not None:
        b += struct.pack(">H", len(options) + 2) + options
    return b + payload


def data(tid, payload=b"hello i3", first_hop=True, ids=None):
    return packet(DATA | (FIRST_HOP if first_hop else 0), ids or [tid], payload=payload)


def insert(tid, to, sender=None, nonce=bytes(16)):
    """A client's trigger insert: stack [tid], SENDER (if given), INSERT."""
    opts = (bytes([OPT_SENDER]) + addr(*sender) if sender else b"") + \
        bytes([OPT_INSERT]) + trigger(tid, *to, nonce=nonce)
    return packet(OPTION_LIST | FIRST_HOP, [tid], opts)


def remove(tid, to, nonce):
    return packet(OPTION_LIST | FIRST_HOP, [tid], bytes([OPT_REMOVE]) + trigger(tid, *to, nonce=nonce))


def reply_option(pkt):
    """(option type, trigger body) of a server's reply: no stack, one option."""
    assert pkt[:3] == bytes([VERSION, OPTION_LIST, 0]), pkt[:3].hex()
    length = struct.unpack(">H", pkt[3:5])[0]
    assert length == len(pkt) - 3, (length, len(pkt))
    return pkt[5], pkt[6:]


def cleared(pkt):
    """pkt as a server forwards it: FIRST_HOP cleared."""
    return pkt[:1] + bytes([pkt[1] & ~FIRST_HOP]) + pkt[2:]
