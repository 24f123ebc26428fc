#!/usr/bin/env python3
"""Prints one line per row of `wgprim bench --json` files: label, primitive, n, algorithm, type, op, ms per call,
ms batched, GPU ms (for an H200 call's stdout, which keeps only a few files)."""
import json
import sys

for path in sys.argv[1:]:
    label = path.rsplit("/", 1)[-1].removesuffix(".json")
    for r in json.load(open(path))["results"]:
        print(label, r.get("primitive"), r.get("n"), r.get("algorithm"), r.get("type"), r.get("op"),
              "call %.4f" % r.get("call_ms", 0), "batched %.4f" % r.get("batched_ms", 0), "gpu %.4f" % r.get("gpu_ms", 0))
