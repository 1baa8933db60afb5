# SPDX-License-Identifier: BSD-3-Clause
"""The devices under test, each a DPDK process whose ports are net_memif servers that
slicepath-gen connects to as the clients: slicepathd with a config, or dpdk-testpmd
forwarding port 0 to port 1 untouched (the io baseline)."""

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TOOLS))
from sp_rpc import Rpc  # noqa: E402
from sp_telemetry import Telemetry, wait_for_socket  # noqa: E402

REPO = TOOLS.parent
BUILD = Path(os.environ.get("SLICEPATH_BUILD_DIR", REPO / "build"))
# A device under test and the generator run at once, each in this much memory.
MB_EACH = 512


def eal_memory():
    """The EAL's memory arguments for every DPDK program of a run, and a line saying which:
    hugepages when enough are free for two programs at once (a server runs slicepathd on
    them; 4 KB pages halve the baselines), else --no-huge, whose figures are not comparable
    with hugepage runs. BENCH_EAL, when set, is taken as it is; BENCH_MEMINFO is read for
    /proc/meminfo (the tests')."""
    if os.environ.get("BENCH_EAL"):
        args = shlex.split(os.environ["BENCH_EAL"])
    else:
        path = Path(os.environ.get("BENCH_MEMINFO", "/proc/meminfo"))
        meminfo = dict(line.split(":", 1) for line in path.read_text().splitlines())
        free_mb = int(meminfo["HugePages_Free"]) * int(meminfo["Hugepagesize"].split()[0]) // 1024
        args = ["-m", str(MB_EACH)] if free_mb >= 2 * MB_EACH else ["--no-huge", "-m", str(MB_EACH)]
    if "--no-huge" in args:
        return args, (f"memory: 4 KB pages (--no-huge): figures NOT comparable with hugepage "
                      f"runs (reserve {2 * MB_EACH} MB of hugepages: scripts/setup.sh)")
    # Unlinked, hugepage files go with the program (l3fwd leaves them behind otherwise).
    return [*args, "--huge-unlink"], "memory: hugepages"


EAL_MEM, MEMORY = eal_memory()
EAL = [*EAL_MEM, "--no-pci"]
START_TIMEOUT = 20.0
STOP_TIMEOUT = 15.0


class DutError(Exception):
    pass


def memif(index, sock, role):
    return f"net_memif{index},role={role},socket={sock},socket-abstract=no"


class Dut:
    """A DPDK process with nb_ports memif server ports on sockets in workdir."""

    name = "dut"

    def __init__(self, workdir, tag, nb_ports=2):
        self.dir = Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.prefix = f"spb-{os.getpid()}-{tag}"
        # A sockaddr_un holds 107 characters: short names in /tmp.
        self.sockets = [Path("/tmp") / f"{self.prefix}-m{i}.sock" for i in range(nb_ports)]
        self.log_path = self.dir / f"{tag}.log"
        self.proc = None

    def command(self):
        raise NotImplementedError

    def ready(self):
        raise NotImplementedError

    def start(self):
        for s in self.sockets:
            s.unlink(missing_ok=True)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(self.command(), stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.PIPE, cwd=self.dir)
        deadline = time.monotonic() + START_TIMEOUT
        while not self.ready():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                last = (self.log().strip().splitlines() or ["(nothing)"])[-1]
                raise DutError(f"{self.name} did not start: {last} (log: {self.log_path})")
            time.sleep(0.05)
        return self

    def log(self):
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def counters(self):
        """What the device counted (for the run's record), or None."""
        return None

    def stop(self):
        """SIGINT, then wait; a non-zero exit status is an error (the log says why)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            rc = self.proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            raise DutError(f"{self.name} did not stop; its log: {self.log_path}")
        self.proc = None
        self._log.close()
        self.remove_files()
        if rc not in (0, -signal.SIGINT):
            raise DutError(f"{self.name} exited with {rc}; its log: {self.log_path}")

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        self.remove_files()

    def remove_files(self):
        """What the stopped process leaves outside workdir: its sockets and DPDK's runtime
        directory (runs would otherwise pile them up in /tmp and /var/run/dpdk)."""
        for s in self.sockets:
            s.unlink(missing_ok=True)
        remove_runtime_dir(self.prefix)


def remove_runtime_dir(prefix):
    """DPDK's runtime directory of a stopped process of that --file-prefix."""
    shutil.rmtree(Path("/var/run/dpdk") / prefix, ignore_errors=True)


class Slicepathd(Dut):
    """slicepathd on a config whose ports are the memif servers (config() fills them in),
    or the devices given (a single-lcore harness: a pcap replayed forever into net_null)."""

    name = "slicepathd"

    def __init__(self, workdir, tag, config, lcores=None, devices=None):
        super().__init__(workdir, tag, nb_ports=len(config["ports"]))
        self.config = dict(config)
        devices = devices or [memif(i, s, "server") for i, s in enumerate(self.sockets)]
        self.config["ports"] = [dict(p, device=d) for p, d in zip(config["ports"], devices)]
        self.config["mgmt_socket"] = str(Path("/tmp") / f"{self.prefix}.sock")
        self.config["channel_dir"] = str(Path("/tmp") / f"{self.prefix}-slices")
        if lcores is not None:
            self.config["lcores"] = lcores
        self.config_path = self.dir / f"{tag}.json"
        self.tel = None

    def command(self):
        self.config_path.write_text(json.dumps(self.config, indent=1))
        return [str(BUILD / "slicepathd"), "-c", str(self.config_path), "--", *EAL,
                "--file-prefix", self.prefix]

    def ready(self):
        return "slicepathd: forwarding" in self.log()

    def start(self):
        super().start()
        self.tel = wait_for_socket(self.prefix, timeout=5.0)
        return self

    def telemetry(self, command):
        return self.tel.cmd(command)

    def call(self, method, **params):
        with Rpc(self.config["mgmt_socket"]) as r:
            return r.call(method, **params)

    def counters(self):
        return {"node": self.call("stats.get"),
                "slices": {s["name"]: self.call("stats.get", slice=s["name"])
                           for s in self.config["slices"]}}

    def stop(self):
        if self.tel is not None:
            self.tel.close()
            self.tel = None
        super().stop()

    def remove_files(self):
        super().remove_files()
        Path(self.config["mgmt_socket"]).unlink(missing_ok=True)
        shutil.rmtree(self.config["channel_dir"], ignore_errors=True)


class Testpmd(Dut):
    """dpdk-testpmd in io mode with retry: port 0's frames out of port 1 as they came (the
    ceiling of any forwarder on these ports). With retry it waits for room on a full
    transmit ring, as slicepathd's queues do, instead of dropping the burst."""

    name = "testpmd"

    def command(self):
        vdevs = []
        for i, s in enumerate(self.sockets):
            vdevs += ["--vdev", memif(i, s, "server")]
        return ["dpdk-testpmd", "-l", "0,1", "--main-lcore", "0", *EAL, "--file-prefix",
                self.prefix, *vdevs, "--", "-i", "--nb-cores=1", "--total-num-mbufs=16384"]

    def start(self):
        super().start()
        self.proc.stdin.write(b"set fwd io retry\nstart\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + START_TIMEOUT
        # Its prompt, written unbuffered, after each command: the third once started.
        while self.log().count("testpmd>") < 3:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise DutError(f"testpmd did not start forwarding (log: {self.log_path})")
            time.sleep(0.05)
        return self

    def ready(self):
        return "testpmd>" in self.log()


class L3fwd(Dut):
    """DPDK's l3fwd example (LPM; tools/build-l3fwd.sh builds it once per output
    directory): frames to the node's p0 address, 10.0.0.1, routed out of port 1 with
    their TTL decremented, on one lcore."""

    name = "l3fwd"

    def command(self):
        bin_ = subprocess.run([str(TOOLS / "build-l3fwd.sh"), str(self.dir.parent)],
                              capture_output=True, text=True)
        if bin_.returncode != 0:
            raise DutError(f"l3fwd could not be built: {bin_.stderr.strip()}")
        (self.dir / "l3fwd-v4.cfg").write_text("R10.0.0.0/24 1\n")
        (self.dir / "l3fwd-v6.cfg").write_text("R2001:200::/48 1\n")
        vdevs = []
        for i, s in enumerate(self.sockets):
            vdevs += ["--vdev", memif(i, s, "server")]
        return [bin_.stdout.strip(), "-l", "1", *EAL, "--file-prefix", self.prefix, *vdevs,
                "--", "-p", "0x3", "-P", "--parse-ptype", "--config", "(0,0,1),(1,0,1)",
                "--rule_ipv4", str(self.dir / "l3fwd-v4.cfg"),
                "--rule_ipv6", str(self.dir / "l3fwd-v6.cfg")]

    def ready(self):
        # It waits for its links after making the memif sockets: the generator may come.
        return all(s.exists() for s in self.sockets)


__all__ = ["Dut", "DutError", "L3fwd", "Slicepathd", "Testpmd", "Telemetry", "BUILD", "memif"]
