#!/usr/bin/env python3
"""Prints `wgprim bench --json` rows next to bench/cub's rows of the same primitive, type and n, with the ratios
CUB / wgprim (above 1: wgprim faster) per call and batched, for an H200 call's stdout (which keeps few files).

usage: vs_cub.py CUB.jsonl WGPRIM.json... [--cub] [--short]
  --cub    print CUB's own rows first
  --short  only the rows with a CUB match, as: label primitive type algorithm n [op] call RATIO batched RATIO"""
import json
import os
import sys


def shape(primitive, op):
    """What must agree besides primitive, type and n: the bins of a histogram, the segment shape of a segmented op
    (wgprim's plain "sum" row has segments of ~1000), the operator of a reduce, the bits of a sort; other ops are named differently by
    the two benches and describe the same data."""
    op = op or ""
    if primitive.startswith("histogram"):
        return op.split(" ")[0]
    if primitive.startswith("segmented"):
        return "one" if "one segment" in op else "16" if "segments of 16" in op else "4" if "segments of 4" in op else "1000"
    if primitive == "reduce":
        return "max" if "max" in op else "sum"
    if primitive in ("sort_keys", "sort_pairs") and "bits" in op:
        return op[op.index("bits"):].split(",")[0]  # CUB's "bits 0:16" rows are not its full sorts
    return ""


def sort_bits(r):
    """A wgprim sort row's bit range as CUB names it: `--sort-bits LO:HI` rows carry it in the algorithm
    ("onesweep/bits0:16"), not in the op ("-")."""
    alg = r.get("algorithm") or ""
    if r["primitive"] in ("sort_keys", "sort_pairs") and "/bits" in alg:
        return "bits " + alg.split("/bits", 1)[1]
    return None


def counterpart(r):
    """The CUB row's primitive and type for a wgprim row: the comparator sort (sort_keys, algorithm merge) is CUB's
    merge sort, the segmented sort CUB's segmented sort; CUB's segmented scan is timed on u32, the same bytes as
    wgprim's f32 row."""
    p, t = r["primitive"], r.get("type")
    if p == "sort_keys" and r.get("algorithm") == "merge":
        return "merge_sort", t
    if p == "segmented_sort_keys":
        return "segmented_sort", t
    if p == "segmented_scan" and t == "f32":
        return p, "u32"
    return p, t


def main(args):
    show_cub = "--cub" in args
    short = "--short" in args
    paths = [a for a in args if a not in ("--cub", "--short")]
    if len(paths) < 2:
        sys.exit(__doc__)
    cub = {}
    for line in open(paths[0]):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if "primitive" in d:
            cub[(d["primitive"], d.get("type"), d["n"], shape(d["primitive"], d.get("op")))] = d
    if show_cub:
        for k, d in sorted(cub.items()):
            print("cub", k[0], k[1], k[2], k[3], "gpu %.4f call %.4f b %.4f" % (d.get("gpu_ms", 0), d["call_ms"], d.get("batched_ms", 0)))
    for path in paths[1:]:
        label = os.path.basename(path).removesuffix(".json")
        try:
            rows = json.load(open(path))["results"]
        except (OSError, ValueError, KeyError) as e:
            print(label, "no result:", e)
            continue
        for r in rows:
            line = "%s %s %s %s %d gpu %.4f call %.4f b %.4f" % (label, r["primitive"], r.get("type"), r.get("algorithm", ""), r["n"],
                                                               r.get("gpu_ms", 0), r.get("call_ms", 0), r.get("batched_ms", 0))
            p, t = counterpart(r)
            c = cub.get((p, t, r["n"], sort_bits(r) or shape(p, r.get("op"))))
            if short:
                if c and r.get("call_ms"):
                    b = c.get("batched_ms", 0) / r["batched_ms"] if r.get("batched_ms") else 0
                    print("%s %s %s %s %d [%s] call %.2f batched %.2f" % (label, r["primitive"], r.get("type"), r.get("algorithm", ""),
                                                                       r["n"], r.get("op", "-"), c["call_ms"] / r["call_ms"], b))
                continue
            if c and r.get("call_ms"):
                b = c.get("batched_ms", 0) / r["batched_ms"] if r.get("batched_ms") else 0
                line += " | cub gpu %.4f call %.4f b %.4f -> call %.2f batched %.2f" % (
                    c.get("gpu_ms", 0), c["call_ms"], c.get("batched_ms", 0), c["call_ms"] / r["call_ms"], b)
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
