#!/usr/bin/env python3
"""Markdown tables from bench/mpi/run.sh's JSON lines: the MPI overhead (P ranks sharing one GPU against one rank),
weak and strong scaling (a GPU per rank), and --adapters all."""
import json
import sys
from collections import defaultdict


def ms(j):
    return j.get("ms", j.get("gpu_ms"))


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    by_part = defaultdict(list)
    for r in rows:
        by_part[r["part"]].append(r)
    out = []
    if by_part["overhead"]:
        out += ["## Ranks sharing one GPU (the same n in all; P = 1 is the baseline)", "",
                "| what | P | ms | vs P=1 | collectives ms (max rank) | note |", "|---|---|---|---|---|---|"]
        base = {}
        for r in by_part["overhead"]:
            key = r["what"].replace(" one process", "").replace(" shared GPU", "").replace(" plain command", "")
            if r.get("p") == 1 and "error" not in r:
                base[key] = ms(r)
        for r in by_part["overhead"]:
            key = r["what"].replace(" shared GPU", "").replace(" plain command", "")
            if "error" in r:
                out.append(f"| {r['what']} | {r['p']} | - | - | - | {r['error']} |")
                continue
            b = base.get(key)
            rel = f"{(ms(r) / b - 1) * 100:+.1f}%" if b else "-"
            comm = max((x["comm_ms"] for x in r.get("per_rank", [])), default=None)
            note = "plain command (gpu_ms)" if r["p"] == 0 else ""
            out.append(f"| {r['what']} | {r['p'] or 'plain'} | {ms(r):.3f} | {rel} | "
                       f"{'-' if comm is None else f'{comm:.3f}'} | {note} |")
        out.append("")
    for part, title in (("weak", "Weak scaling (a GPU per rank)"), ("strong", "Strong scaling (a GPU per rank)"),
                        ("adapters", "One process, --adapters all")):
        if not by_part[part]:
            continue
        out += [f"## {title}", "", "| what | P | ms | GB/s | imbalance | efficiency |", "|---|---|---|---|---|---|"]
        first = {}
        for r in by_part[part]:
            if "error" in r:
                out.append(f"| {r['what']} | {r['p']} | - | - | - | {r['error']} |")
                continue
            if r["p"] == 1 or r["what"] not in first:
                first.setdefault(r["what"], (r["p"], ms(r)))
            p1, t1 = first[r["what"]]
            eff = (t1 / ms(r)) if part == "weak" else (t1 * p1 / (ms(r) * r["p"]))
            out.append(f"| {r['what']} | {r['p']} | {ms(r):.3f} | {r.get('gb_per_s', 0):.1f} | "
                       f"{r.get('imbalance', 1):.3f} | {eff * 100:.0f}% |")
        out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
