#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A client for slicepathd's management socket (JSON-RPC 2.0, one object per line;
docs/api.md).

As a module:

    from sp_rpc import Rpc, RpcError
    with Rpc("/run/slicepath/slicepathd.sock") as r:
        r.call("filter.insert", slice="alpha", position=0, key="...", mask="...",
               result={"endpoint": 1, "queue": 0, "next_hop": "10.1.0.2:7001"})

As a command (python3 standard library only):

    tools/sp_rpc.py [-s SOCKET] METHOD [JSON_PARAMS]
    tools/sp_rpc.py state.dump
    tools/sp_rpc.py filter.list '{"slice": "alpha"}'
"""

import argparse
import itertools
import json
import socket
import sys

DEFAULT_SOCKET = "/run/slicepath/slicepathd.sock"


class RpcError(Exception):
    """The server answered with an error object (code from slicepath/proto.h)."""

    def __init__(self, code, message):
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message


class Rpc:
    """One connection; calls are answered in order."""

    def __init__(self, path=DEFAULT_SOCKET, timeout=60.0):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(str(path))
        self.file = self.sock.makefile("rwb")
        self.ids = itertools.count(1)

    def send_line(self, line):
        """Send raw bytes as one line (tests use it for malformed requests)."""
        self.file.write(line if line.endswith(b"\n") else line + b"\n")
        self.file.flush()

    def read_reply(self):
        line = self.file.readline()
        if not line:
            raise ConnectionError("slicepathd closed the management connection")
        return json.loads(line)

    def call(self, method, **params):
        """The result, or RpcError."""
        rid = next(self.ids)
        self.send_line(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method,
                                   "params": params}).encode())
        reply = self.read_reply()
        if reply.get("id") != rid:
            raise ConnectionError(f"answer to request {reply.get('id')}, expected {rid}")
        if "error" in reply:
            raise RpcError(reply["error"]["code"], reply["error"]["message"])
        return reply["result"]

    def close(self):
        self.file.close()
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-s", "--socket", default=DEFAULT_SOCKET, help="management socket path")
    ap.add_argument("method")
    ap.add_argument("params", nargs="?", default="{}", help="parameters as a JSON object")
    args = ap.parse_args()
    try:
        params = json.loads(args.params)
    except json.JSONDecodeError as e:
        sys.exit(f"sp_rpc: the parameters are not JSON: {e}")
    if not isinstance(params, dict):
        sys.exit("sp_rpc: the parameters must be a JSON object")
    try:
        with Rpc(args.socket) as r:
            print(json.dumps(r.call(args.method, **params), indent=2))
    except RpcError as e:
        sys.exit(f"sp_rpc: {e}")
    except OSError as e:
        sys.exit(f"sp_rpc: cannot reach slicepathd on {args.socket}: {e}")


if __name__ == "__main__":
    main()
