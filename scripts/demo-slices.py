#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Create slices through slicectl (slicectld), as an operator would by hand: each slice of
FILE (the "slices" of a config, docs/config.md) with its endpoints, queues and filters,
printing every command it runs.

    scripts/demo-slices.py [-s SOCKET] [--slicectl PATH] FILE
"""

import argparse
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("-s", "--socket", help="slicectld's socket")
    ap.add_argument("--slicectl", default=os.path.join(HERE, "..", "build", "control",
                                                       "slicectl", "slicectl"))
    a = ap.parse_args()
    with open(a.file) as f:
        slices = json.load(f)["slices"]
    base = [a.slicectl] + (["-s", a.socket] if a.socket else [])

    def run(*args, stdin=None):
        print("$ slicectl " + " ".join(shlex.quote(str(x)) for x in args), flush=True)
        r = subprocess.run(base + [str(x) for x in args], input=stdin, text=True)
        if r.returncode != 0:
            sys.exit(f"demo-slices: slicectl exited with {r.returncode}")

    quotas = {"filter_quota": "filters", "queue_quota": "queues", "buffer_quota": "buffers",
              "memory": "memory", "bandwidth": "bandwidth", "npe": "npe"}
    for s in slices:
        name = s["name"]
        extra = [x for k, word in quotas.items() if k in s for x in (word, s[k])]
        run("slice", "create", name, "codeopt", s["codeopt"], *extra)
        for e in s.get("endpoints", []):
            bw = ["bandwidth", e["bandwidth"]] if "bandwidth" in e else []
            run("endpoint", "reserve", name, "port", e["port"], "udp", e["udp_port"], *bw)
        for q in s.get("queues", []):
            opt = [x for k, word in (("threshold", "threshold"), ("threshold_packets", "packets"),
                                     ("share", "share")) if k in q for x in (word, q[k])]
            run("queue", "bind", name, q["id"], "endpoint", q["endpoint"], *opt)
        if s.get("filters"):
            run("filter", "load", name, "-",
                stdin="".join(json.dumps(f) + "\n" for f in s["filters"]))


if __name__ == "__main__":
    main()
