#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Read slicepathd's counters over the DPDK telemetry socket.

As a module:

    from sp_telemetry import Telemetry
    with Telemetry("slicepath") as t:
        ports = t.cmd("/slicepath/ports")      # -> {"p0": {"rx_pkts": ...}, ...}

As a command (python3 standard library only):

    tools/sp_telemetry.py [-p PREFIX] [--json] [COMMAND [ARG]]

    info                 daemon state (default)
    ports                per-port counters
    slices               per-slice counters
    slice NAME           one slice, with its drop/exception reasons
    drops                node-wide drop and exception reasons (non-zero; --all for every one)
    residence            sampled times frames spent in the node: count, mean, percentiles (ns)
    queues SLICE         the slice's queues
    filters SLICE        the slice's filter hit counters
    endpoints            endpoints (slice, port, UDP port) and their counters
    neighbors            the neighbor table (IPv4 and IPv6): static (config) or learned entries
    arp                  ARP answers and neighbor advertisements learned, and learned neighbors
                         whose MAC changed
    summary              ports, slices, drops and every slice's queues
    raw CMD              any telemetry command, e.g. raw /ethdev/stats,0

The socket is /var/run/dpdk/<PREFIX>/dpdk_telemetry.v2 (SOCK_SEQPACKET), where
PREFIX is the daemon's EAL --file-prefix (DPDK's default is "rte").
"""

import argparse
import ipaddress
import json
import os
import signal
import socket
import sys
import time

DEFAULT_PREFIX = os.environ.get("SLICEPATH_FILE_PREFIX", "slicepath")


class TelemetryError(Exception):
    """The socket is missing, the daemon went away, or a command failed."""


def runtime_dir(file_prefix):
    """DPDK's EAL runtime directory for a file prefix (rte_eal_get_runtime_dir)."""
    if os.geteuid() == 0:
        base = "/var/run"
    else:
        base = os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(base, "dpdk", file_prefix)


def socket_path(file_prefix):
    return os.path.join(runtime_dir(file_prefix), "dpdk_telemetry.v2")


class Telemetry:
    """One connection to a DPDK process's telemetry socket (protocol v2)."""

    def __init__(self, file_prefix=DEFAULT_PREFIX, path=None, timeout=5.0):
        self.file_prefix = file_prefix
        self.path = path or socket_path(file_prefix)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(self.path)
        except FileNotFoundError:
            self.sock.close()
            raise TelemetryError(
                f"no telemetry socket at {self.path}: is slicepathd running "
                f"with --file-prefix {file_prefix}?") from None
        except OSError as e:
            self.sock.close()
            raise TelemetryError(
                f"cannot connect to {self.path}: {e.strerror} (is slicepathd running "
                f"with --file-prefix {file_prefix}, and are you root?)") from None
        greeting = self._recv()
        self.info = greeting
        self.max_output_len = int(greeting.get("max_output_len", 16384))

    def _recv(self):
        try:
            data = self.sock.recv(1 << 20)
        except socket.timeout:
            raise TelemetryError(f"timed out waiting for {self.path}") from None
        except OSError as e:
            raise TelemetryError(f"reading {self.path}: {e.strerror}") from None
        if not data:
            raise TelemetryError(f"{self.path}: the process closed the connection")
        try:
            return json.loads(data.decode())
        except ValueError as e:
            raise TelemetryError(f"{self.path}: reply is not JSON ({e}): {data[:200]!r}") from None

    def raw(self, command):
        """Send a command, return the whole reply object."""
        try:
            self.sock.send(command.encode())
        except OSError as e:
            raise TelemetryError(f"writing {self.path}: {e.strerror}") from None
        return self._recv()

    def cmd(self, command):
        """Send a command, return the value under its name (usually a dict)."""
        reply = self.raw(command)
        name = command.split(",", 1)[0]
        if not isinstance(reply, dict) or name not in reply:
            raise TelemetryError(f"{command}: unexpected reply {json.dumps(reply)[:300]}")
        value = reply[name]
        if value is None:
            raise TelemetryError(
                f"{command}: no data (unknown command, or a bad parameter such as a "
                f"slice name that does not exist)")
        return value

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def wait_for_socket(file_prefix, timeout=10.0, path=None):
    """Connect, retrying until the socket exists or timeout seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return Telemetry(file_prefix, path=path)
        except TelemetryError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


# ---------------------------------------------------------------- tables

def human_rate(bps):
    try:
        v = float(bps)
    except (TypeError, ValueError):
        return str(bps)
    for unit, div in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if v >= div:
            return f"{v / div:g}{unit}"
    return f"{v:g}"


def table(headers, rows, out=sys.stdout):
    """Print rows under headers; numbers right-aligned, text left-aligned."""
    cells = [[("" if c is None else str(c)) for c in r] for r in rows]
    widths = [len(h) for h in headers]
    for r in cells:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], len(c))
    numeric = [bool(rows) and all(isinstance(r[i], (int, float)) or r[i] is None for r in rows)
               for i in range(len(headers))]

    def fmt(row):
        parts = []
        for i, c in enumerate(row):
            parts.append(c.rjust(widths[i]) if numeric[i] else c.ljust(widths[i]))
        return "  ".join(parts).rstrip()

    print(fmt(headers), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for r in cells:
        print(fmt(r), file=out)
    if not rows:
        print("(none)", file=out)


def _num_key(k):
    try:
        return (0, int(k), "")
    except ValueError:
        return (1, 0, k)


def show_info(d):
    w = max((len(k) for k in d), default=0)
    for k, v in d.items():
        print(f"{k:>{w}}: {v}")


def show_ports(d):
    rows = []
    for name, p in sorted(d.items(), key=lambda kv: kv[1].get("port_id", 0)):
        rows.append([name, p.get("port_id"), p.get("ipv4"), p.get("ipv6") or "-", p.get("mac"),
                     human_rate(p.get("rate_bps")), p.get("rx_pkts"), p.get("rx_bytes"),
                     p.get("tx_pkts"), p.get("tx_bytes"), p.get("tx_drop_pkts")])
    table(["port", "id", "ipv4", "ipv6", "mac", "rate", "rx_pkts", "rx_bytes", "tx_pkts",
           "tx_bytes", "tx_drop"], rows)


SLICE_COLS = ["rx_pkts", "rx_bytes", "fwd_pkts", "fwd_bytes", "exception_pkts", "drop_pkts"]


def show_slices(d):
    rows = []
    for name, s in sorted(d.items(), key=lambda kv: kv[1].get("id", 0)):
        rows.append([name, s.get("id"), s.get("codeopt"), s.get("npe")] + [s.get(c) for c in SLICE_COLS])
    table(["slice", "id", "codeopt", "npe", "rx_pkts", "rx_bytes", "fwd_pkts", "fwd_bytes",
           "exception", "drop"], rows)


def show_drops(d, show_all=False):
    rows = [[k, v] for k, v in d.items() if show_all or v]
    if not rows:
        print("drops: none")
        return
    table(["reason", "pkts"], rows)


def show_slice(name, s, show_all=False):
    print(f"slice {name}: id {s.get('id')}, codeopt {s.get('codeopt')}, npe {s.get('npe')}")
    table(["counter", "value"], [[c, s.get(c)] for c in SLICE_COLS if c in s])
    reasons = s.get("reasons") or {}
    print()
    show_drops(reasons, show_all)


def show_queues(slice_name, d):
    rows = []
    for qid, q in sorted(d.items(), key=lambda kv: _num_key(kv[0])):
        rows.append([qid, q.get("phys"), q.get("port"), q.get("enq_pkts"), q.get("enq_bytes"),
                     q.get("sent_pkts"), q.get("sent_bytes"), q.get("drop_pkts"), q.get("drop_bytes"),
                     q.get("len_pkts"), q.get("len_bytes")])
    print(f"queues of slice {slice_name}:")
    table(["queue", "phys", "port", "enq_pkts", "enq_bytes", "sent_pkts", "sent_bytes", "drop_pkts",
           "drop_bytes", "len_pkts", "len_bytes"], rows)


def show_filters(slice_name, d):
    print(f"filters of slice {slice_name}:")
    table(["position", "hits"], [[k, v] for k, v in sorted(d.items(), key=lambda kv: _num_key(kv[0]))])


def show_endpoints(d):
    rows = []
    for eid, e in sorted(d.items(), key=lambda kv: _num_key(kv[0])):
        rows.append([eid, e.get("slice"), e.get("port"), e.get("ipv4"), e.get("udp_port"),
                     e.get("rx_pkts"), e.get("rx_bytes"), e.get("tx_pkts"), e.get("tx_bytes")])
    table(["endpoint", "slice", "port", "ipv4", "udp", "rx_pkts", "rx_bytes", "tx_pkts", "tx_bytes"], rows)


def show_neighbors(d):
    """{"<port>": ["address mac kind", ...]} (telemetry keys cannot hold addresses); IPv4
    before IPv6, each in address order."""
    rows = []
    for port, entries in sorted(d.items()):
        for e in entries if isinstance(entries, list) else []:
            rows.append([port] + (e.split() + ["", "", ""])[:3])
    def address(text):
        try:
            a = ipaddress.ip_address(text)
            return (a.version, int(a))
        except ValueError:
            return (0, 0)

    rows.sort(key=lambda r: (r[0], address(r[1])))
    table(["port", "address", "mac", "kind"], rows)


def main(argv=None):
    # Behave in pipelines (sp_telemetry.py ports | head): exit quietly on a closed pipe.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    ap = argparse.ArgumentParser(
        description="Show slicepathd counters (DPDK telemetry).",
        epilog="commands: info, ports, slices, slice NAME, drops, residence, queues SLICE, "
               "filters SLICE, "
               "endpoints, neighbors, arp, summary, raw CMD")
    ap.add_argument("-p", "--prefix", default=DEFAULT_PREFIX,
                    help="the daemon's EAL --file-prefix (default: %(default)s)")
    ap.add_argument("-s", "--socket", help="telemetry socket path (overrides --prefix)")
    ap.add_argument("--json", action="store_true", help="print the JSON reply instead of a table")
    ap.add_argument("--all", action="store_true", help="drops: list reasons with zero counts too")
    ap.add_argument("command", nargs="?", default="info")
    ap.add_argument("arg", nargs="?")
    a = ap.parse_args(argv)

    needs_arg = {"slice", "queues", "filters", "raw"}
    simple = {"info", "ports", "slices", "drops", "residence", "endpoints", "neighbors", "arp",
              "summary"}
    if a.command in needs_arg and not a.arg:
        ap.error(f"'{a.command}' needs an argument")
    if a.command not in needs_arg | simple:
        ap.error(f"unknown command '{a.command}'")

    try:
        with Telemetry(a.prefix, path=a.socket) as t:
            if a.command == "raw":
                print(json.dumps(t.raw(a.arg), indent=2))
                return 0
            if a.command == "summary":
                ports, slices, drops = (t.cmd("/slicepath/ports"), t.cmd("/slicepath/slices"),
                                        t.cmd("/slicepath/drops"))
                queues = {s: t.cmd(f"/slicepath/queues,{s}") for s in slices}
                if a.json:
                    print(json.dumps({"ports": ports, "slices": slices, "drops": drops,
                                      "queues": queues}, indent=2))
                    return 0
                show_ports(ports)
                print()
                show_slices(slices)
                print()
                show_drops(drops, a.all)
                for s, q in queues.items():
                    print()
                    show_queues(s, q)
                return 0
            cmd = {
                "info": "/slicepath/info",
                "ports": "/slicepath/ports",
                "slices": "/slicepath/slices",
                "drops": "/slicepath/drops",
                "residence": "/slicepath/residence",
                "endpoints": "/slicepath/endpoints",
                "neighbors": "/slicepath/neighbors",
                "arp": "/slicepath/arp",
                "slice": f"/slicepath/slice,{a.arg}",
                "queues": f"/slicepath/queues,{a.arg}",
                "filters": f"/slicepath/filters,{a.arg}",
            }[a.command]
            d = t.cmd(cmd)
    except TelemetryError as e:
        print(f"sp_telemetry: {e}", file=sys.stderr)
        return 1

    if a.json:
        print(json.dumps(d, indent=2))
    elif a.command in ("info", "residence", "arp"):
        show_info(d)
    elif a.command == "ports":
        show_ports(d)
    elif a.command == "slices":
        show_slices(d)
    elif a.command == "drops":
        show_drops(d, a.all)
    elif a.command == "slice":
        show_slice(a.arg, d, a.all)
    elif a.command == "queues":
        show_queues(a.arg, d)
    elif a.command == "filters":
        show_filters(a.arg, d)
    elif a.command == "endpoints":
        show_endpoints(d)
    elif a.command == "neighbors":
        show_neighbors(d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
