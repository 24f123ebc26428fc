#!/usr/bin/env python3
"""Puts a `wgprim bench --json` file beside a CUB file (bench/cub/cub_bench output) and prints, per size, the
GB/s of every wgprim algorithm, the copy kernel, CUB, and the ratios wgprim/CUB and scan/copy, as Markdown.

usage: compare.py WGPRIM.json CUB.json [--title TITLE] [--command CMD] > results.md
"""
import argparse
import json
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wgprim")
    ap.add_argument("cub")
    ap.add_argument("--title", default="wgprim vs CUB")
    ap.add_argument("--command", default="")
    a = ap.parse_args()
    w = json.load(open(a.wgprim))
    c = json.load(open(a.cub))

    rows = defaultdict(dict)  # (primitive, type, op) -> n -> {algorithm: gbps}
    for src in (w, c):
        for r in src["results"]:
            key = (r["primitive"], r["type"], r["op"])
            rows[key].setdefault(r["n"], {})[r["algorithm"]] = r["gbps"]
    copy = {n: v.get("wgsl-copy") for n, v in rows.get(("copy", "u32", "-"), {}).items()}
    memcpy = {n: v.get("cudaMemcpy") for n, v in rows.get(("copy", "u32", "-"), {}).items()}

    print(f"# {a.title}\n")
    print(f"- wgprim: {w['adapter']} ({w['backend']}), timer {w['timer']}, median of {w['reps']} after {w['warmup']} warm-up")
    print(f"- CUB: {c['adapter']}, timer {c['timer']}, median of {c['reps']} after {c['warmup']} warm-up")
    if a.command:
        print(f"- command: `{a.command}`")
    print("- GB/s = bytes moved / GPU time (reduce reads 4n bytes; scan and copy move 8n)\n")
    for key in sorted(rows):
        prim, typ, op = key
        if prim == "copy":
            continue
        algs = sorted({al for v in rows[key].values() for al in v if al != "cub"})
        print(f"## {prim} {typ} {op}\n")
        head = ["n"] + [f"{al} GB/s" for al in algs] + ["CUB GB/s"] + [f"{al}/CUB" for al in algs]
        if "scan" in prim:
            head += ["copy GB/s", "memcpy GB/s"] + [f"{al}/copy" for al in algs]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for n in sorted(rows[key]):
            v = rows[key][n]
            cub = v.get("cub")
            cells = [f"2^{n.bit_length() - 1}"] + [f"{v[al]:.0f}" if al in v else "-" for al in algs]
            cells.append(f"{cub:.0f}" if cub else "-")
            cells += [f"{v[al] / cub:.2f}" if al in v and cub else "-" for al in algs]
            if "scan" in prim:
                cp, mc = copy.get(n), memcpy.get(n)
                cells += [f"{cp:.0f}" if cp else "-", f"{mc:.0f}" if mc else "-"]
                cells += [f"{v[al] / cp:.2f}" if al in v and cp else "-" for al in algs]
            print("| " + " | ".join(cells) + " |")
        print()
    print("## Raw records\n")
    print("wgprim:\n```json")
    print(json.dumps(w))
    print("```\n\nCUB:\n```json")
    print(json.dumps(c))
    print("```")


if __name__ == "__main__":
    main()
