#!/usr/bin/env python3
"""Merges the JSON documents of several `wgprim bench --json` runs (one per size) into one: the first document's
header fields and every document's results. usage: merge_bench.py OUT.json IN.json... (unreadable inputs are
named and left out)."""
import json
import sys

docs = []
for f in sys.argv[2:]:
    try:
        docs.append(json.load(open(f)))
    except Exception as e:  # a run that failed or timed out: say so, keep the others
        print(f, "unreadable:", e)
merged = {k: v for k, v in docs[0].items() if k != "results"} if docs else {}
merged["results"] = [r for d in docs for r in d.get("results", [])]
json.dump(merged, open(sys.argv[1], "w"))
