# SPDX-License-Identifier: BSD-3-Clause
"""slicepathd with two net_memif ports and slicepath-gen attached to them as the memif
clients: the generator's port 0 is the node's p0 (input), its port 1 the node's p1
(output, next hop NH). Slice alpha forwards 10.9.0.0/16 from p0 to NH on p1."""

import json
import subprocess
import time
from pathlib import Path

from spnode import GEN, TEST_EAL, Node, unique_prefix

NODE_MAC = "02:00:00:00:00:10"
NH = ("10.1.0.2", 7001, "02:bb:00:00:01:02")
UDP = 5001


class GenNode:
    def __init__(self, tmp_path, tag):
        self.dir = Path(tmp_path)
        n = self.node = Node(tmp_path, tag)
        # Short socket paths: a sockaddr_un holds 107 characters.
        self.sockets = [Path("/tmp") / f"{n.prefix}-m{i}.sock" for i in range(2)]
        self.p0 = n.port("p0", "10.0.0.1", NODE_MAC, device=self.memif(0, "server"))
        self.p1 = n.port("p1", "10.1.0.1", "02:00:00:00:01:10", device=self.memif(1, "server"))
        n.neighbor(self.p1, NH[0], NH[2])
        s = self.alpha = n.slice("alpha", 1)
        s.endpoint(self.p0, UDP)
        out = self.out = s.endpoint(self.p1, UDP, bandwidth="1G")
        s.queue(0, out, share="500M")
        s.route(0, "10.9.0.0/16", endpoint=out, queue=0, next_hop=f"{NH[0]}:{NH[1]}")

    def memif(self, i, role):
        return (f"net_memif{i},role={role},socket={self.sockets[i]},socket-abstract=no")

    def stream(self, name, inner_dst, **kw):
        """A stream from the generator's port 0 to the node's alpha endpoint on p0,
        expected back on port 1."""
        return {"name": name, "tx_port": 0, "rx_port": 1, "dst_mac": NODE_MAC,
                "src_ip": "10.0.0.2", "dst_ip": "10.0.0.1", "dst_port": UDP,
                "inner_dst": inner_dst, **kw}

    def gen(self, spec, *args, link_wait=10, timeout=60, before_exit=None):
        """Run slicepath-gen on spec (a dict) with -H: once it has written its summary,
        call before_exit() (default: stop the node), then let it go; the node must stop
        before the generator disconnects (slicepath-gen -H). Returns (CompletedProcess,
        summary or None)."""
        spec_path = self.dir / "gen-spec.json"
        out = self.dir / "gen-out.json"
        spec_path.write_text(json.dumps(spec))
        out.unlink(missing_ok=True)
        cmd = [str(GEN), *TEST_EAL, "--file-prefix", unique_prefix("gen"), "-l", "0",
               "--log-level", "*:warning",
               "--vdev", self.memif(0, "client"), "--vdev", self.memif(1, "client"),
               "--", "-s", str(spec_path), "-j", str(out), "-w", str(link_wait), "-H", *args]
        print("$ " + " ".join(cmd))
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        summary = None
        deadline = time.monotonic() + timeout
        while summary is None and p.poll() is None and time.monotonic() < deadline:
            try:
                summary = json.loads(out.read_text())
            except (FileNotFoundError, ValueError):
                time.sleep(0.05)
        if summary is not None:
            (before_exit or self.node.stop)()
        stdout, stderr = p.communicate(input="", timeout=timeout)
        print(stdout, stderr)
        if summary is None and out.exists():
            summary = json.loads(out.read_text())
        return subprocess.CompletedProcess(cmd, p.returncode, stdout, stderr), summary
