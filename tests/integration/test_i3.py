# SPDX-License-Identifier: BSD-3-Clause
"""The i3 code option and its slow path (codeopts/i3), on the wire: one node of a four-node
Chord ring, its triggers inserted through the slow path with i3's challenge and ack, data
packets delivered to the trigger's receiver or forwarded to the right next i3 node by the
fast path, and stacks, several matching triggers and expired triggers handled by the slow
path. p1 is a tap: the test reads what the node sends while it runs."""

import signal
import subprocess
import time

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

import i3pkt as i3
from conftest import needs_root
from ctlnode import CtlNode
from spnode import BUILD, as_user, readable_files

pytestmark = needs_root

I3_SLOWPATH = BUILD / "codeopts" / "i3" / "slowpath" / "i3-slowpath"
TIMEOUT = 4  # s a trigger lives unrefreshed (i3's 30, shortened)

# This node sits at 0x40..; its predecessor at 0x10.., fingers 0x80.. and 0xc0...
RING = """# the test ring
self 4000000000000000000000000000000000000000000000000000000000000000
node 10000000000000000000000000000000 10.1.0.3:7010
node 80000000000000000000000000000000 10.1.0.2:7080
node c0000000000000000000000000000000 10.1.0.3:7192
"""
NODE_80 = ("10.1.0.2", 7080)
NODE_C0 = ("10.1.0.3", 7192)
R1 = ("10.1.0.3", 9100)
R2 = ("10.1.0.2", 9200)
SENDER = ("10.1.0.2", 9000)
T = i3.ident(0x30, 0x11)  # an ID this node is responsible for
RING_BYTES = 8 + 16 + 16 + 8 + 64 * 32  # struct sp_i3_ring
RECORD_BYTES = 40  # struct sp_i3_trigger_rec


class I3Node:
    def __init__(self, tmp_path, users):
        self.ctl = CtlNode(tmp_path, "i3", p1_tap=True)
        self.owner = users.OWNERS[0]
        # Where the slow path, running as the owner, can read it.
        self.files = readable_files({"ring": RING.encode()})
        self.ring = self.files.__enter__() / "ring"
        self.slow = None

    def start(self):
        c = self.ctl.start()
        sc, o = c.ctld.slicectl, self.owner
        sc("slice", "create", "ithree", "codeopt", "i3", "owner", o, "filters", 64,
           "buffers", 1000, "memory", 8192)
        sc("endpoint", "reserve", "ithree", "port", "p0", "udp", 5001, user=o)
        sc("endpoint", "reserve", "ithree", "port", "p1", "udp", 5001, user=o)
        sc("queue", "bind", "ithree", 0, "endpoint", 1, user=o)
        self.slow = subprocess.Popen(
            [str(I3_SLOWPATH), "-s", str(c.ctld.socket), "-r", str(self.ring), "-e", "1",
             "-q", "0", "-m", "64", "-t", str(TIMEOUT), "ithree"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **as_user(o))
        assert "ring loaded: 3 nodes, 2 fingers" in self.slow.stdout.readline()
        assert "waiting for exceptions" in self.slow.stdout.readline()
        c.wait(lambda: "slice ithree: slow path (pid" in c.node.log(),
               "slicepathd did not accept the slow path")
        return self

    def stop_slow_path(self):
        """Stop the slow path; returns its report."""
        self.slow.send_signal(signal.SIGTERM)
        out = self.slow.communicate(timeout=10)[0]
        print(out)
        return out

    def kill(self):
        if self.slow is not None and self.slow.poll() is None:
            self.slow.kill()
        self.ctl.kill()
        self.files.__exit__(None, None, None)

    def stats(self):
        return self.ctl.ctld.call("stats.get", slice="ithree")["slice"]

    def trigger_count(self, position=0):
        """The count in the trigger record of filter position (slicepath/i3.h): the slow
        path writes it last, so the fast path acts on what it shows."""
        off = RING_BYTES + position * RECORD_BYTES + 32 + 4
        word = self.ctl.ctld.call("mem.read", slice="ithree", offset=off, length=2)["data"]
        return int.from_bytes(bytes.fromhex(word), "little")

    def filters(self):
        return self.ctl.ctld.call("filter.list", slice="ithree")

    def send(self, *pkts):
        self.ctl.send("ithree", 5001, *pkts)

    def out(self, count, timeout=5.0):
        """(destination, i3 bytes) of what p1 sends, from ithree's endpoint."""
        got = []
        for f in self.ctl.p1_frames(count, timeout):
            e = Ether(f)
            assert (e[IP].src, e[UDP].sport) == ("10.1.0.1", 5001), e.summary()
            got.append(((e[IP].dst, e[UDP].dport), bytes(e[UDP].payload)))
        return got

    def nothing_out(self):
        assert self.out(1, timeout=0.5) == []

    def handshake(self, tid, to, sender=SENDER):
        """Insert a trigger as an i3 client does: challenged at its address, acked to the
        sender once it sends the nonce back. Returns the nonce."""
        self.send(i3.insert(tid, to, sender))
        [(dst, pkt)] = self.out(1)
        assert dst == to
        opt, body = i3.reply_option(pkt)
        assert opt == i3.OPT_CHALLENGE
        nonce = body[i3.NONCE_OFF:i3.NONCE_OFF + 16]
        assert nonce != bytes(16)
        assert body == i3.trigger(tid, *to, nonce=nonce)
        self.send(i3.insert(tid, to, sender, nonce=nonce))
        [(dst, pkt)] = self.out(1)
        assert dst == (sender or to)
        assert i3.reply_option(pkt) == (i3.OPT_ACK, i3.trigger(tid, *to, nonce=nonce))
        return nonce


@pytest.fixture
def node(tmp_path, users):
    n = I3Node(tmp_path, users)
    yield n
    n.kill()


def test_trigger_inserted_then_data_delivered_by_the_fast_path(node):
    node.start()
    node.handshake(T, R1)
    [f] = node.filters()
    assert f["key"] == T[:14].hex()
    up = node.stats()["to_slow_path_pkts"]

    # The ID itself, and one sharing 160 bits with it: to R1, FIRST_HOP cleared.
    near = i3.ident(0x30, 0x11, b20=0x99)
    sent = [i3.data(T, b"one"), i3.data(near, b"two")]
    node.send(*sent)
    assert node.out(2) == [(R1, i3.cleared(p)) for p in sent]
    assert node.stats()["to_slow_path_pkts"] == up, "the fast path handed data up"

    # Equal on the key's 112 bits but not on 128: the fast path has doubts, the slow path
    # finds no trigger.
    node.send(i3.data(i3.ident(0x30, 0x11, b15=0x91)))
    node.nothing_out()
    assert node.stats()["to_slow_path_pkts"] == up + 1
    out = node.stop_slow_path()
    assert "1 without trigger" in out and "1 inserted" in out and "1 challenged" in out
    assert node.filters() == [], "the slow path left its filters behind"


def test_ids_of_other_nodes_forwarded_to_the_finger(node):
    node.start()
    up = node.stats()["to_slow_path_pkts"]
    far = [i3.data(i3.ident(0x90)), i3.data(i3.ident(0xc0)), i3.data(i3.ident(0x05)),
           i3.data(i3.ident(0x41), first_hop=False)]
    node.send(*far)
    assert node.out(4) == [(NODE_80, i3.cleared(far[0])), (NODE_C0, i3.cleared(far[1])),
                           (NODE_C0, i3.cleared(far[2])), (NODE_80, far[3])]
    assert node.stats()["to_slow_path_pkts"] == up, "Chord forwarding left the fast path"

    # A trigger insert for another node's ID: on over the ring by the slow path, unchanged.
    ins = i3.insert(i3.ident(0x95), R1, SENDER)
    node.send(ins)
    assert node.out(1) == [(NODE_80, i3.cleared(ins))]

    # The ring changes (0x80.. leaves): after SIGHUP, 0x90.. goes to 0xc0...
    node.ring.write_text(RING.replace("node 8", "# node 8"))
    node.slow.send_signal(signal.SIGHUP)
    assert "ring loaded: 2 nodes, 1 fingers" in node.slow.stdout.readline()
    node.send(far[0])
    assert node.out(1) == [(NODE_C0, i3.cleared(far[0]))]
    assert "1 forwarded over the ring" in node.stop_slow_path()


def test_several_triggers_stacks_and_removal_in_the_slow_path(node):
    node.start()
    n1 = node.handshake(T, R1)
    node.handshake(T, R2, sender=None)  # no SENDER: acked to the trigger's own address
    assert len(node.filters()) == 1, "two triggers with one key take one filter"
    node.ctl.wait(lambda: node.trigger_count() == 2, "the record does not count two triggers")

    # Both receivers get a copy, through the slow path.
    pkt = i3.data(T, b"to both")
    node.send(pkt)
    assert sorted(node.out(2)) == sorted([(R1, i3.cleared(pkt)), (R2, i3.cleared(pkt))])

    # A stack: the first ID decides; the receivers get the whole stack, options stripped.
    other = i3.ident(0x77, 0x77)
    stacked = i3.packet(i3.DATA | i3.FIRST_HOP | i3.OPTION_LIST, [T, other], bytes([7]),
                         b"stacked")
    node.send(stacked)
    want = i3.packet(i3.DATA, [T, other], payload=b"stacked")
    assert sorted(node.out(2)) == sorted([(R1, want), (R2, want)])

    # A removal with a wrong nonce is refused; with the right one, R1's trigger goes and the
    # fast path delivers to R2 alone.
    node.send(i3.remove(T, R1, bytes(16)))
    node.send(i3.remove(T, R1, n1))
    node.ctl.wait(lambda: node.trigger_count() == 1, "the removal did not reach the record")
    up = node.stats()["to_slow_path_pkts"]
    node.send(pkt)
    assert node.out(2, timeout=1) == [(R2, i3.cleared(pkt))]
    assert node.stats()["to_slow_path_pkts"] == up
    out = node.stop_slow_path()
    assert "1 removed" in out and "1 refused" in out and "4 delivered" in out


def test_triggers_expire_unless_refreshed(node):
    node.start()
    nonce = node.handshake(T, R1)
    t0 = time.monotonic()
    other = i3.ident(0x31)
    node.handshake(other, R2)
    # Refresh T (an insert with its nonce, acked) before it times out; let the other lapse.
    time.sleep(TIMEOUT - 1)
    node.send(i3.insert(T, R1, SENDER, nonce=nonce))
    assert [d for d, _ in node.out(1)] == [SENDER]
    node.ctl.wait(lambda: len(node.filters()) == 1, "the unrefreshed trigger did not expire",
                  timeout=TIMEOUT + 3)
    assert time.monotonic() - t0 > TIMEOUT
    assert node.filters()[0]["key"] == T[:14].hex()
    node.send(i3.data(T), i3.data(other))
    assert node.out(2, timeout=1) == [(R1, i3.cleared(i3.data(T)))]
    out = node.stop_slow_path()
    assert "1 refreshed" in out and "1 expired" in out and "1 without trigger" in out


def test_malformed_headers_counted_and_dropped(node):
    node.start()
    good = i3.data(T)
    bad = {
        "malformed": [b"\x20" + good[1:],                        # another version
                      good[:1] + b"\x90" + good[2:],             # an unknown flag
                      good[:2] + b"\x10" + good[3:],             # stack length 16
                      good[:2]],                                 # no stack length
        "bad_hdr_len": [good[:20],                               # the ID cut short
                        i3.packet(i3.OPTION_LIST, [T]) + b"\x00",  # half a list length
                        i3.packet(i3.OPTION_LIST, [T], b"") [:-2] + b"\x00\x09abc",
                        i3.packet(i3.OPTION_LIST, [T], b"")[:-2] + b"\x00\x01"],
    }
    node.send(*[p for ps in bad.values() for p in ps])
    node.nothing_out()
    st = node.stats()
    assert st["reasons"] == {k: len(v) for k, v in bad.items()}
    assert st["drop_pkts"] == 8 and st["exception_pkts"] == 0
