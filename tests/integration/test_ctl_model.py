# SPDX-License-Identifier: BSD-3-Clause
"""A model-based restart test (docs/api.md, "Persistence", "Durability"): a seeded random
sequence of every state-changing request of slicectld's public API (slice.create of ipv4 and
host slices, slice.delete, slice.move between two NPEs, endpoint.reserve UDP and TCP, some
until_exit held by a helper process the test kills, endpoint.release, queue.bind, queue.set,
queue.unbind, filter.insert single and batched, filter.delete, mem.write, sched.set) from
root and two unprivileged owners, with requests that must be refused (another owner's
slice, an owner's operator request, over a quota, a target that is not there), and kill -9
of slicepathd, slicectld or both at random points. A Python model keeps what was
acknowledged; after each restart the node's whole state (slicectld's slice.list with state
and filter.list, slicepathd's state.dump and mem.read) must be the model's, every slice in
force, each host slice's NAT range the one it got at creation.

SLICEPATH_MODEL_SEED (default 39) and SLICEPATH_MODEL_OPS (default 500) choose the run; on a
failure the seed is printed and shorter prefixes of the same sequence are run again (a
binary search, within SLICEPATH_MODEL_SHRINK_S seconds) to print the shortest that fails."""

import collections
import json
import os
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field

import pytest

from conftest import needs_root
from ctlnode import NH1, NH3, CtlNode
from spnode import as_user, ipv4_key
from test_ctl_steering import two_lc_lcores

pytestmark = needs_root

SEED = int(os.environ.get("SLICEPATH_MODEL_SEED", "39"))
OPS = int(os.environ.get("SLICEPATH_MODEL_OPS", "500"))
SHRINK_S = float(os.environ.get("SLICEPATH_MODEL_SHRINK_S", "180"))
RESTART_EVERY = 25          # one kill -9 at a random point of each block of this many ops
NPES, PORTS = 2, ("p0", "p1")
DEFAULT_RATE = 5_000_000_000  # each NPE's scheduler on each port: half the 10G link
M = 1_000_000

# slicepath/proto.h
NOT_FOUND, QUOTA, NO_ROOM, NOT_NOW, DENIED, EXISTS = 1001, 1002, 1003, 1004, 1006, 1007

# One connection a request (a restarted slicectld needs a new one), from the process an
# until_exit endpoint is held by: one line in, slicectld's answer line out.
HELPER = """
import socket, sys
for line in sys.stdin:
    s = socket.socket(socket.AF_UNIX)
    s.connect(sys.argv[1])
    f = s.makefile("rw")
    f.write(line)
    f.flush()
    print(f.readline().strip(), flush=True)
    s.close()
"""


class Helper:
    """python3 running HELPER as a user (None: root)."""

    def __init__(self, sock, user):
        self.proc = subprocess.Popen([sys.executable, "-c", HELPER, str(sock)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     **as_user(user))

    def call(self, method, params):
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method,
                                          "params": params}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def kill(self):
        self.proc.kill()
        self.proc.wait()


@dataclass
class Slice:
    name: str
    id: int
    owner: str | None          # a user name; None: root
    codeopt: str
    npe: int
    memory: int
    quotas: dict
    host: dict | None = None   # netns, nat_ports, nat_first, nat_last
    eps: dict = field(default_factory=dict)       # index -> endpoint as state.dump has it
    holders: dict = field(default_factory=dict)   # index -> Helper holding it (until_exit)
    kept: dict = field(default_factory=dict)      # index -> pid of its gone holder
    queues: dict = field(default_factory=dict)    # id -> queue as in force
    filters: dict = field(default_factory=dict)   # position -> filter (no hits)
    mem: bytearray = field(default_factory=bytearray)

    def queues_of(self, index):
        return [q for q, v in self.queues.items() if v["endpoint"] == index]

    def filters_to(self, queue):
        return [p for p, f in self.filters.items() if f["result"]["queue"] == queue]

    def filters_through(self, index):
        """Positions of the filters sending from the endpoint or through its queues."""
        qs = self.queues_of(index)
        return [p for p, f in self.filters.items()
                if f["result"]["endpoint"] == index or f["result"]["queue"] in qs]

    def drop_endpoint(self, index):
        del self.eps[index]
        for q in self.queues_of(index):
            del self.queues[q]


class Failure(Exception):
    def __init__(self, op, what):
        super().__init__(f"after op {op}: {what}")
        self.op = op


class Run:
    """One run of the first n operations of the seed's sequence on a fresh node."""

    def __init__(self, workdir, users, seed, n):
        self.rng = random.Random(seed)
        self.users, self.n = users, n
        self.ctl = CtlNode(workdir, "model")
        two_lc_lcores(self.ctl)
        self.slices = {}                   # name -> Slice
        self.sched = {}                    # (npe, port) -> rate set
        self.netns = []                    # every namespace name a host slice was given
        self.helpers = {}                  # user -> Helper
        self.gone = []                     # holders of endpoints no longer in the model
        self.log = []
        self.counts = collections.Counter()   # (method, acknowledged or the error code)
        self.op = 0
        self.tag = f"{os.getpid() % 10000}{random.Random().randrange(1000)}"
        self.made = 0

    # ---- talking to slicectld

    def uid(self, user):
        return 0 if user is None else self.users.uid[user]

    def call(self, user, method, params):
        """(result, None) or (None, error code), logged."""
        if user not in self.helpers:
            self.helpers[user] = Helper(self.ctl.ctld.socket, user)
        reply = self.helpers[user].call(method, params)
        error = reply.get("error", {})
        self.counts[(method, error.get("code", "ok"))] += 1
        self.log.append(f"{self.op}: {user or 'root'} {method} {params} -> " +
                        (f"{error['code']} {error['message']}" if error else "ok"))
        return reply.get("result"), error.get("code")

    def ok(self, user, method, **params):
        """A request the model says is good: it must be acknowledged."""
        result, code = self.call(user, method, params)
        if code is not None:
            raise Failure(self.op, f"{method} {params} as {user or 'root'} refused ({code}): "
                          "the model has it good")
        return result

    def refused(self, user, method, codes, **params):
        """A request that must be refused with one of codes (and so change nothing)."""
        result, code = self.call(user, method, params)
        self.log[-1] += " (must be refused)"
        if code not in codes:
            raise Failure(self.op, f"{method} {params} as {user or 'root'}: {result or code}, "
                          f"expected a refusal {codes}")

    # ---- choices

    def pick(self, pred=lambda s: True):
        cands = [s for s in self.slices.values() if pred(s)]
        return self.rng.choice(cands) if cands else None

    def other_owner(self, s):
        return next(u for u in self.users.OWNERS if u != s.owner)

    def free_l4(self, port, tcp):
        taken = {(e["port"], "tcp_port" in e, e.get("tcp_port", e.get("udp_port")))
                 for s in self.slices.values() for e in s.eps.values()}
        while True:
            n = self.rng.randrange(5000, 5400)
            if (port, tcp, n) not in taken:
                return n

    # ---- operations: each draws its request from self.rng and the model

    def op_create(self):
        if self.rng.random() < 0.15 and self.slices:
            s = self.pick()
            if self.rng.random() < 0.5:
                return self.refused(self.rng.choice(self.users.OWNERS), "slice.create",
                                    {DENIED}, name="x", codeopt="ipv4")
            return self.refused(None, "slice.create", {EXISTS}, name=s.name, codeopt="ipv4")
        if len(self.slices) >= 6:
            return self.op_delete()
        self.made += 1
        owner = self.rng.choice([None, *self.users.OWNERS])
        host = self.rng.random() < 0.4 and \
            sum(s.host is not None for s in self.slices.values()) < 3
        quotas = {"filter_quota": 16, "queue_quota": 4, "buffer_quota": 256,
                  "bandwidth": 20 * M, "inbound": 10 * M}
        params = {"name": f"s{self.made}", "codeopt": "host" if host else "ipv4",
                  "owner": self.uid(owner), "memory": self.rng.choice([0, 4096, 8192]),
                  **quotas}
        if self.rng.random() < 0.5:
            params["npe"] = self.rng.randrange(NPES)
        if host:
            params.update(netns=f"spm{self.tag}x{self.made}", create_netns=True,
                          nat_ports=self.rng.choice([16, 64, 256]))
            self.netns.append(params["netns"])
        r = self.ok(None, "slice.create", **params)
        s = Slice(params["name"], r["id"], owner, params["codeopt"], r["npe"],
                  params["memory"], quotas, mem=bytearray(params["memory"]))
        if host:
            s.host = {"netns": params["netns"], "nat_ports": params["nat_ports"],
                      "nat_first": r["nat_first"], "nat_last": r["nat_last"]}
            if r["nat_last"] - r["nat_first"] + 1 != params["nat_ports"]:
                raise Failure(self.op, f"NAT range {r} is not {params['nat_ports']} ports")
        self.slices[s.name] = s

    def op_delete(self):
        s = self.pick()
        if s is None or self.rng.random() < 0.2:
            if s is not None and self.rng.random() < 0.5:
                return self.refused(self.rng.choice(self.users.OWNERS), "slice.delete",
                                    {DENIED}, slice=s.name)
            return self.refused(None, "slice.delete", {NOT_FOUND}, slice="nosuch")
        self.ok(None, "slice.delete", slice=s.name)
        del self.slices[s.name]
        self.gone.extend(s.holders.values())

    def op_move(self):
        s = self.pick()
        if s is None:
            return self.op_create()
        if self.rng.random() < 0.2:
            return self.refused(self.other_owner(s), "slice.move", {DENIED}, slice=s.name,
                                npe=1 - s.npe)
        to = 1 - s.npe
        if self.ok(None, "slice.move", slice=s.name, npe=to) != {"npe": to}:
            raise Failure(self.op, f"slice.move of {s.name} did not answer NPE {to}")
        s.npe = to

    def as_owner(self, s):
        """Who asks for s: its owner, now and then root (an operator may)."""
        return None if self.rng.random() < 0.2 else s.owner

    def op_reserve(self):
        s = self.pick(lambda s: len(s.eps) < 4)
        if s is None:
            return self.op_create()
        tcp = s.host is not None
        port = self.rng.choice(PORTS)
        l4 = "tcp_port" if tcp else "udp_port"
        params = {"slice": s.name, "port": port, l4: self.free_l4(port, tcp),
                  "bandwidth": self.rng.choice([1, 2, 5]) * M,
                  "inbound": self.rng.choice([0, 1 * M])}
        left = s.quotas["bandwidth"] - sum(e["bandwidth"] for e in s.eps.values())
        roll = self.rng.random()
        if roll < 0.1:
            return self.refused(s.owner, "endpoint.reserve", {QUOTA},
                                **{**params, "bandwidth": left + M})
        if roll < 0.2 and s.owner is not None:
            return self.refused(self.other_owner(s), "endpoint.reserve", {DENIED}, **params)
        if params["bandwidth"] > left:
            return self.refused(s.owner, "endpoint.reserve", {QUOTA}, **params)
        if roll < 0.4:
            # until_exit: held by a helper process of the owner's, killed at some point.
            holder = Helper(self.ctl.ctld.socket, s.owner)
            reply = holder.call("endpoint.reserve", {**params, "until_exit": True})
            self.log.append(f"{self.op}: {s.owner or 'root'} (holder pid {holder.proc.pid}) "
                            f"endpoint.reserve until_exit {params} -> {reply}")
            if "result" not in reply:
                holder.kill()
                raise Failure(self.op, f"until_exit endpoint.reserve {params} refused: {reply}")
            r = reply["result"]
            self.counts[("endpoint.reserve until_exit", "ok")] += 1
            s.holders[r["endpoint"]] = holder
        else:
            r = self.ok(self.as_owner(s), "endpoint.reserve", **params)
        ep = {"index": r["endpoint"], "port": port, l4: params[l4],
              "bandwidth": params["bandwidth"], "inbound": params["inbound"]}
        want = min(set(range(5)) - set(s.eps))
        if r["endpoint"] != want or r[l4] != params[l4]:
            raise Failure(self.op, f"endpoint.reserve answered {r}: expected endpoint {want}")
        s.eps[r["endpoint"]] = ep

    def op_release(self):
        s = self.pick(lambda s: any(i not in s.holders for i in s.eps))
        if s is None:
            return self.op_reserve()
        mine = sorted(i for i in s.eps if i not in s.holders)
        free = [i for i in mine if not (s.queues_of(i) or s.filters_through(i))]
        i = self.rng.choice(free if free and self.rng.random() < 0.7 else mine)
        if s.queues_of(i) or s.filters_through(i):
            return self.refused(s.owner, "endpoint.release", {NOT_NOW}, slice=s.name,
                                endpoint=i)
        if self.rng.random() < 0.2 and s.owner is not None:
            return self.refused(self.other_owner(s), "endpoint.release", {DENIED},
                                slice=s.name, endpoint=i)
        self.ok(self.as_owner(s), "endpoint.release", slice=s.name, endpoint=i)
        del s.eps[i]

    def op_kill_holder(self):
        s = self.pick(lambda s: s.holders)
        if s is None:
            return self.op_reserve()
        i = self.rng.choice(sorted(s.holders))
        holder = s.holders.pop(i)
        holder.kill()
        self.counts[("holder killed", "kept" if s.filters_through(i) else "released")] += 1
        self.log.append(f"{self.op}: kill the holder of endpoint {i} of {s.name} ({s.eps[i]})")
        self.ctl.ctld.wait_log(self.gone_line(s, i, holder.proc.pid), timeout=5)
        if s.filters_through(i):
            s.kept[i] = holder.proc.pid    # kept while filters send through it
        else:
            s.drop_endpoint(i)

    @staticmethod
    def gone_line(s, i, pid):
        """The start of slicectld's lines on the holder's end, kept or released."""
        return f"process {pid} holding endpoint {i} of slice {s.name} ("

    def op_bind(self):
        s = self.pick(lambda s: s.eps)
        if s is None:
            return self.op_reserve()
        q = self.rng.randrange(s.quotas["queue_quota"])
        i = self.rng.choice(sorted(s.eps))
        params = {"slice": s.name, "queue": q, "endpoint": i,
                  "share": self.rng.choice([100_000, 200_000]),
                  "threshold": self.rng.choice([32768, 65536])}
        roll = self.rng.random()
        if roll < 0.1:
            return self.refused(s.owner, "queue.bind", {QUOTA},
                                **{**params, "queue": s.quotas["queue_quota"]})
        if roll < 0.2:
            return self.refused(s.owner, "queue.bind", {NOT_FOUND, -32602},
                                **{**params, "endpoint": 7})
        old = s.queues.get(q)
        if old is not None and s.eps[old["endpoint"]]["port"] != s.eps[i]["port"]:
            return self.refused(s.owner, "queue.bind", {NOT_NOW}, **params)
        r = self.ok(self.as_owner(s), "queue.bind", **params)
        self.keep_queue(s, q, r["queue"], params)
        self.release_kept(s)

    def keep_queue(self, s, q, got, params):
        for k in ("endpoint", "share", "threshold"):
            if k in params and got[k] != params[k]:
                raise Failure(self.op, f"queue {q} of {s.name} in force is {got}, not {params}")
        s.queues[q] = got

    def op_queue_set(self):
        s = self.pick(lambda s: s.queues)
        if s is None:
            return self.op_bind()
        q = self.rng.choice(sorted(s.queues))
        params = {"slice": s.name, "queue": q}
        if self.rng.random() < 0.5:
            params["share"] = self.rng.choice([50_000, 150_000])
        else:
            params["threshold"] = self.rng.choice([16384, 49152])
        r = self.ok(self.as_owner(s), "queue.set", **params)
        self.keep_queue(s, q, r["queue"], params)

    def op_unbind(self):
        s = self.pick(lambda s: s.queues)
        if s is None:
            return self.op_bind()
        q = self.rng.choice(sorted(s.queues))
        if s.filters_to(q):
            return self.refused(s.owner, "queue.unbind", {NOT_NOW}, slice=s.name, queue=q)
        self.ok(self.as_owner(s), "queue.unbind", slice=s.name, queue=q)
        del s.queues[q]

    def a_filter(self, s, position):
        q = self.rng.choice(sorted(s.queues))
        key, mask = ipv4_key(dst=f"10.{self.rng.randrange(256)}.{self.rng.randrange(256)}.0/24")
        nh = self.rng.choice([NH1, NH3])
        result = {"endpoint": s.queues[q]["endpoint"], "queue": q,
                  "next_hop": f"{nh[0]}:{nh[1]}",
                  "data": self.rng.choice(["0000000000000000", f"{self.rng.getrandbits(64):016x}"])}
        return {"position": position, "key": key, "mask": mask, "result": result}

    def op_filter(self):
        s = self.pick(lambda s: s.codeopt == "ipv4" and s.queues)
        if s is None:
            return self.op_bind()
        quota = s.quotas["filter_quota"]
        roll = self.rng.random()
        if roll < 0.08:
            return self.refused(s.owner, "filter.insert", {QUOTA},
                                slice=s.name, **self.a_filter(s, quota))
        if roll < 0.16:
            f = self.a_filter(s, self.rng.randrange(quota))
            f["result"]["endpoint"] = 6
            return self.refused(s.owner, "filter.insert", {NOT_FOUND, -32602},
                                slice=s.name, **f)
        if roll < 0.22 and s.owner is not None:
            return self.refused(self.other_owner(s), "filter.insert", {DENIED},
                                slice=s.name, **self.a_filter(s, 0))
        if roll < 0.6:
            f = self.a_filter(s, self.rng.randrange(quota))
            self.ok(self.as_owner(s), "filter.insert", slice=s.name, **f)
            s.filters[f["position"]] = f
            return self.release_kept(s)
        batch = [self.a_filter(s, p) for p in self.rng.sample(range(quota),
                                                              self.rng.randrange(2, 6))]
        if self.rng.random() < 0.15:   # one bad filter: none of the batch is written
            batch[-1]["result"]["queue"] = s.quotas["queue_quota"] + 1
            return self.refused(s.owner, "filter.insert", {NOT_FOUND, QUOTA, -32602},
                                slice=s.name, filters=batch)
        self.ok(self.as_owner(s), "filter.insert", slice=s.name, filters=batch)
        s.filters.update((f["position"], f) for f in batch)
        self.release_kept(s)

    def op_filter_delete(self):
        s = self.pick(lambda s: s.filters)
        if s is None:
            return self.op_filter()
        free = set(range(s.quotas["filter_quota"])) - set(s.filters)
        if self.rng.random() < 0.15 and free:
            return self.refused(s.owner, "filter.delete", {NOT_FOUND}, slice=s.name,
                                position=self.rng.choice(sorted(free)))
        p = self.rng.choice(sorted(s.filters))
        self.ok(self.as_owner(s), "filter.delete", slice=s.name, position=p)
        del s.filters[p]
        self.release_kept(s)

    def release_kept(self, s):
        """A gone holder's endpoint goes once no filter sends through it."""
        for i in [i for i in s.kept if not s.filters_through(i)]:
            e = s.eps[i]
            l4 = f"TCP port {e['tcp_port']}" if "tcp_port" in e else f"UDP port {e['udp_port']}"
            self.ctl.ctld.wait_log(f"{self.gone_line(s, i, s.kept.pop(i))}{l4}) is gone: "
                                   "released", timeout=5)
            s.drop_endpoint(i)

    def op_mem(self):
        s = self.pick(lambda s: s.memory)
        if s is None:
            return self.op_create()
        data = bytes(self.rng.getrandbits(8) for _ in range(self.rng.randrange(1, 17)))
        if self.rng.random() < 0.1:
            return self.refused(s.owner, "mem.write", {QUOTA, -32602}, slice=s.name,
                                offset=s.memory - len(data) + 1, data=data.hex())
        off = self.rng.choice([self.rng.randrange(s.memory - len(data) + 1),
                               4096 - len(data) // 2 if s.memory > 4096 else 0])
        self.ok(self.as_owner(s), "mem.write", slice=s.name, offset=off, data=data.hex())
        s.mem[off:off + len(data)] = data

    def op_sched(self):
        npe, port = self.rng.randrange(NPES), self.rng.choice(PORTS)
        rate = self.rng.randrange(1, 6) * 1_000_000_000
        if self.rng.random() < 0.15:
            return self.refused(self.users.OWNERS[0], "sched.set", {DENIED}, npe=npe,
                                port=port, rate=rate)
        self.ok(None, "sched.set", npe=npe, port=port, rate=rate)
        self.sched[(npe, port)] = rate

    OPS = ((op_create, 10), (op_delete, 3), (op_move, 3), (op_reserve, 12), (op_release, 4),
           (op_kill_holder, 2), (op_bind, 10), (op_queue_set, 4), (op_unbind, 3),
           (op_filter, 16), (op_filter_delete, 6), (op_mem, 6), (op_sched, 2))

    # ---- restarts and the check

    def restart(self, what):
        self.log.append(f"{self.op}: kill -9 {what}")
        self.counts[("kill -9", what)] += 1
        ctld, node = self.ctl.ctld, self.ctl.node
        seen = ctld.log().count("replay done")
        if what in ("slicectld", "both"):
            ctld.kill()
        if what in ("slicepathd", "both"):
            node.kill()
            self.ctl.start_node()
        if what in ("slicectld", "both"):
            ctld.start()
        else:
            ctld.wait_log("replay done", seen + 1)
        self.check()

    def check(self):
        """The node's state is the model's."""
        call = self.ctl.ctld.call
        listed = {s["name"]: s for s in call("slice.list")}
        if set(listed) != set(self.slices):
            raise Failure(self.op, f"slices {sorted(listed)}, the model has "
                          f"{sorted(self.slices)}")
        dump = self.ctl.node.call("state.dump")
        live = {s["name"]: s for s in dump["slices"]}
        for name, s in self.slices.items():
            got = listed[name]
            want = {"id": s.id, "codeopt": s.codeopt, "npe": s.npe, "memory": s.memory,
                    "owner": self.uid(s.owner), "state": "in_force", "in_force": True,
                    "managed": True,
                    "reserved": sum(e["bandwidth"] for e in s.eps.values()),
                    "inbound_reserved": sum(e["inbound"] for e in s.eps.values()), **s.quotas}
            diff = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
            if s.host is not None:
                host = {k: got.get("host", {}).get(k) for k in s.host}
                if host != s.host:
                    diff["host"] = (got.get("host"), s.host)
            if diff:
                raise Failure(self.op, f"slice.list {name} (got, model): {diff}; "
                              f"trouble {got.get('trouble')}")
            filters = {f["position"]: {k: f[k] for k in ("position", "key", "mask", "result")}
                       for f in call("filter.list", slice=name)}
            if filters != s.filters:
                raise Failure(self.op, f"filter.list {name}: {filters}, model {s.filters}")
            ls = live.get(name)
            eps = {e["index"]: e for e in ls["endpoints"]}
            queues = {q["id"]: q for q in ls["queues"]}
            lfilters = {f["position"]: {k: f[k] for k in ("position", "key", "mask", "result")}
                        for f in ls["filters"]}
            for what, a, b in (("endpoints", eps, s.eps), ("queues", queues, s.queues),
                               ("filters", lfilters, s.filters)):
                if a != b:
                    raise Failure(self.op, f"slicepathd's {what} of {name}: {a}, model {b}")
            if ls["npe"] != s.npe or ls["id"] != s.id:
                raise Failure(self.op, f"slicepathd has {name} as id {ls['id']} on NPE "
                              f"{ls['npe']}; model: id {s.id} on NPE {s.npe}")
            if s.memory:
                mem = call("mem.read", slice=name, offset=0, length=s.memory)["data"]
                if mem != s.mem.hex():
                    at = next(i for i in range(s.memory) if mem[2 * i:2 * i + 2] !=
                              s.mem[i:i + 1].hex())
                    raise Failure(self.op, f"memory of {name} differs from byte {at}: "
                                  f"{mem[2 * at:2 * at + 32]}, model {s.mem[at:at + 16].hex()}")
        for sc in dump["schedulers"]:
            rate = self.sched.get((sc["npe"], sc["port"]), DEFAULT_RATE)
            reserved = sum(e["bandwidth"] for s in self.slices.values() if s.npe == sc["npe"]
                           for e in s.eps.values() if e["port"] == sc["port"])
            if (sc["rate"], sc["reserved"]) != (rate, reserved):
                raise Failure(self.op, f"scheduler {sc}: model rate {rate}, reserved {reserved}")

    # ---- the run

    def go(self):
        """Returns None, or the Failure."""
        try:
            self.ctl.start()
            kinds = ("slicepathd", "slicectld", "both")
            ops, weights = zip(*self.OPS)
            for self.op in range(self.n):
                if self.op % RESTART_EVERY == 0:
                    at = self.op + self.rng.randrange(RESTART_EVERY)
                    kind = self.rng.choice(kinds)
                self.rng.choices(ops, weights)[0](self)
                if self.op == at:
                    self.restart(kind)
            self.op = self.n
            self.restart("both")
            return None
        except Failure as f:
            return f
        except Exception as e:  # noqa: BLE001 (a daemon gone, a timeout: a failure too)
            return Failure(self.op, f"{type(e).__name__}: {e}")
        finally:
            self.stop()

    def stop(self):
        for h in [*self.helpers.values(), *self.gone,
                  *(h for s in self.slices.values() for h in s.holders.values())]:
            h.kill()
        self.ctl.kill()
        for ns in self.netns:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def shrink(tmp_path, users, first):
    """The shortest prefix of the sequence that fails, by binary search on its length
    (as long as SHRINK_S allows): (length, Failure, log)."""
    best = (first.op + 1, first, None)
    lo, hi, deadline = 0, first.op + 1, time.monotonic() + SHRINK_S
    while hi - lo > 1 and time.monotonic() < deadline:
        mid = (lo + hi) // 2
        run = Run(tmp_path / f"shrink{mid}", users, SEED, mid)
        f = run.go()
        print(f"shrink: {mid} op(s): {f or 'passes'}")
        if f is None:
            lo = mid
        else:
            hi = min(mid, f.op + 1)
            best = (hi, f, run.log)
    return best


def test_a_random_sequence_survives_restarts_as_acknowledged(tmp_path, users):
    start = time.monotonic()
    run = Run(tmp_path / "run", users, SEED, OPS)
    failure = run.go()
    restarts = sum(" kill -9 " in line for line in run.log)
    print(f"seed {SEED}: {OPS} operations, {restarts} restarts, "
          f"{time.monotonic() - start:.1f} s")
    print(", ".join(f"{m} {c}: {n}" for (m, c), n in sorted(run.counts.items(), key=str)))
    if failure is None:
        assert restarts >= OPS // RESTART_EVERY
        return
    print(f"FAILED with SLICEPATH_MODEL_SEED={SEED} SLICEPATH_MODEL_OPS={OPS}: {failure}")
    n, f, log = shrink(tmp_path, users, failure)
    log = log or run.log
    print(f"shortest failing prefix found: SLICEPATH_MODEL_OPS={n} "
          f"SLICEPATH_MODEL_SEED={SEED}: {f}")
    print("\n".join(log))
    pytest.fail(f"seed {SEED}, {n} operation(s): {f}", pytrace=False)
