#!/usr/bin/env python3
"""Puts wgprim's bench beside CUB's and the floor of wgpu-native, from one run, as Markdown.

For every primitive / type / op / n (and every wgprim algorithm) it prints the three timings of both sides and the
ratio CUB time / wgprim time for each (above 1 = wgprim faster):
  call_ms     wall clock per call, result on the host
  batched_ms  wall clock per call of K calls issued back to back, one wait
  gpu_ms      GPU time of one call (wgprim: timestamps; CUB: CUDA events)
and wgprim's call_ms over the floor of a call on wgpu-native (bench/floor: one dispatch + mapped read; the fastest
such variant in the floor file unless --floor-name picks one). A missing figure prints as "-".

Inputs (each either one JSON document with a "results" array, or JSON lines; lines without "primitive" / "floor"
are headers describing the run):
  wgprim  `wgprim bench --json`
  cub     `build/cub_bench --json`           (bench/cub/cub_bench.cu)
  floor   `build/wgprim_floor --json`        (bench/floor/floor.cpp), optional

usage: compare.py WGPRIM.json CUB.jsonl [--floor FLOOR.jsonl] [--floor-name NAME] [--title T] [--command CMD]
       compare.py --to-document LINES.jsonl > DOC.json   (for wgprim bench --plot --cub)
       compare.py --self-test
"""
import argparse
import io
import json
import os
import sys
import tempfile
from collections import defaultdict

TIMINGS = ("call_ms", "batched_ms", "gpu_ms")
# Floor records that are a dispatch + read-back path (the others are diagnostics of what a library adds).
FLOOR_DIAGNOSTICS = ("write_params", "new_bind_group")


def load(path):
    """Returns (header dict, list of records) from a JSON document or JSON lines."""
    with open(path) as f:
        text = f.read()
    text = text.strip()
    if not text:
        raise SystemExit(f"compare.py: '{path}' is empty")
    try:
        doc = json.loads(text)
        if isinstance(doc, dict) and isinstance(doc.get("results"), list):
            header = {k: v for k, v in doc.items() if k != "results"}
            return header, doc["results"]
        docs = [doc]
    except json.JSONDecodeError:
        docs = []
        for i, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            try:
                docs.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise SystemExit(f"compare.py: '{path}' line {i} is not JSON: {e}")
    header, records = {}, []
    for d in docs:
        if not isinstance(d, dict):
            raise SystemExit(f"compare.py: '{path}' holds a JSON value that is not an object")
        if "primitive" in d or "floor" in d:
            records.append(d)
        else:
            header.update(d)
    return header, records


def pick_floor(records, name=None):
    """The floor record used for wgprim call_ms / floor: `name`, else the fastest dispatch + read variant."""
    if name:
        for r in records:
            if r.get("floor") == name:
                return r
        raise SystemExit(f"compare.py: no floor record named '{name}'")
    cands = [r for r in records if str(r.get("floor", "")).startswith("dispatch_read")
             and not any(d in r["floor"] for d in FLOOR_DIAGNOSTICS) and isinstance(r.get("median_us"), (int, float))]
    return min(cands, key=lambda r: r["median_us"]) if cands else None


# Where the two sides name one case differently: (primitive, wgprim op) -> CUB op, and (primitive, wgprim type) ->
# CUB type. segmented_scan: CUB's anchor is InclusiveSumByKey over u32 (an exact check), wgprim's row scans f32: the
# same 4-byte traffic, paired on purpose.
OP_ALIASES = {
    ("segmented_reduce", "sum"): "sum, segments of 1000",
    ("segmented_scan", "sum"): "sum, segments of 1000",
    ("histogram_even", "256 bins"): "256 bins [-500,500)",
    ("histogram_even", "4096 bins"): "4096 bins [-500,500)",
}
TYPE_ALIASES = {("segmented_scan", "f32"): "u32"}


def cub_prim(r):
    """The CUB primitive a wgprim record compares with (the comparator and segmented sorts have their own)."""
    prim, alg = r.get("primitive"), r.get("algorithm", "") or ""
    if prim == "sort_keys" and alg == "merge":
        return "merge_sort"
    return "segmented_sort" if prim == "segmented_sort_keys" else prim


def cub_op(r):
    """The CUB op a wgprim record compares with (sorts: by the algorithm's bit-range suffix)."""
    prim, op, alg = r.get("primitive"), r.get("op", "-"), r.get("algorithm", "") or ""
    if prim == "sort_keys" and alg == "merge":
        return op[len("less: "):] if op.startswith("less: ") else op
    if prim == "segmented_sort_keys":
        return "ascending, " + op
    if prim in ("sort_keys", "sort_pairs"):
        base = "ascending, bits 0:16" if alg.endswith("bits0:16") else "ascending"
        return base + (", u32 values" if prim == "sort_pairs" else "")
    return OP_ALIASES.get((prim, op), op)


def num(r, k):
    v = r.get(k) if r else None
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def build_rows(wgprim, cub, floor_rec):
    """One row per (primitive, type, op, n, wgprim algorithm); CUB-only entries get a row with algorithm None."""
    cub_by = defaultdict(list)  # (primitive, type, n) -> CUB records
    for r in cub:
        cub_by[(r.get("primitive"), r.get("type"), r.get("n"))].append(r)

    def cub_for(r):
        prim, typ, op = cub_prim(r), r.get("type"), r.get("op", "-")
        typ = TYPE_ALIASES.get((prim, typ), typ)
        op = cub_op(r)
        cands = cub_by.get((prim, typ, r.get("n")), [])
        same_op = [c for c in cands if c.get("op", "-") == op]
        if same_op:
            return same_op[0]
        # Ops are named differently on the two sides where there is only one (copy: "-" vs "copy-kernel").
        return cands[0] if len(cands) == 1 else None

    floor_ms = floor_rec["median_us"] / 1000.0 if floor_rec else None
    rows, used = [], set()
    for r in wgprim:
        c = cub_for(r)
        if c is not None:
            used.add(id(c))
        row = {"primitive": r.get("primitive"), "type": r.get("type"), "op": r.get("op", "-"), "n": r.get("n"),
               "algorithm": r.get("algorithm", "-")}
        for t in TIMINGS:
            w, cb = num(r, t), num(c, t)
            row["wgprim_" + t] = w
            row["cub_" + t] = cb
            row["ratio_" + t] = cb / w if w and cb else None
        w = num(r, "call_ms")
        row["call_over_floor"] = w / floor_ms if w and floor_ms else None
        rows.append(row)
    for c in cub:
        if id(c) in used:
            continue
        row = {"primitive": c.get("primitive"), "type": c.get("type"), "op": c.get("op", "-"), "n": c.get("n"),
               "algorithm": None, "call_over_floor": None}
        for t in TIMINGS:
            row["wgprim_" + t] = None
            row["cub_" + t] = num(c, t)
            row["ratio_" + t] = None
        rows.append(row)
    return rows


def fmt(v, digits):
    return "-" if v is None else f"{v:.{digits}f}"


def size(n):
    if isinstance(n, int) and n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def render(rows, w_head, c_head, f_head, floor_rec, floor_records, title, command, out):
    p = lambda s="": print(s, file=out)
    p(f"# {title}\n")
    p(f"- wgprim: {w_head.get('adapter', '?')} ({w_head.get('backend', '?')}), GPU timer {w_head.get('timer', '?')}")
    p(f"- CUB: {c_head.get('adapter', '?')}, timer {c_head.get('timer', '?')}, K = {c_head.get('k', '?')}, "
      f"median of {c_head.get('reps', '?')} rounds")
    if floor_rec:
        p(f"- floor: {f_head.get('adapter', '?')}, wgpu-native {f_head.get('wgpu_native', '?')}, "
          f"`{floor_rec['floor']}` median {floor_rec['median_us']:.1f} us over {floor_rec.get('calls', '?')} calls")
    if command:
        p(f"- command: `{command}`")
    p("- times in ms; ratio = CUB time / wgprim time (above 1 = wgprim faster); "
      "call/floor = wgprim call_ms / the floor's dispatch + mapped read\n")
    groups = defaultdict(list)
    for r in rows:
        groups[(r["primitive"], r["type"], r["op"])].append(r)
    head = ["n", "algorithm", "wgprim call", "CUB call", "call ratio", "wgprim batched", "CUB batched",
            "batched ratio", "wgprim gpu", "CUB gpu", "gpu ratio", "call/floor"]
    for key in sorted(groups, key=lambda k: tuple(str(x) for x in k)):
        p(f"## {key[0]} {key[1]} {key[2]}\n")
        p("| " + " | ".join(head) + " |")
        p("|" + "---|" * len(head))
        for r in sorted(groups[key], key=lambda r: (r["n"] if isinstance(r["n"], int) else 0, str(r["algorithm"]))):
            cells = [size(r["n"]), r["algorithm"] or "(CUB only)"]
            for t in TIMINGS:
                cells += [fmt(r["wgprim_" + t], 4), fmt(r["cub_" + t], 4), fmt(r["ratio_" + t], 2)]
            cells.append(fmt(r["call_over_floor"], 2))
            p("| " + " | ".join(cells) + " |")
        p()
    if floor_records:
        p("## Floor of a call on wgpu-native (bench/floor)\n")
        p("| floor | median us | p10 us | p90 us |")
        p("|---|---|---|---|")
        for r in floor_records:
            p(f"| {r['floor']} | {fmt(num(r, 'median_us'), 1)} | {fmt(num(r, 'p10_us'), 1)} | "
              f"{fmt(num(r, 'p90_us'), 1)} |")
        p()


def run(args, out):
    w_head, w = load(args.wgprim)
    c_head, c = load(args.cub)
    f_head, f = load(args.floor) if args.floor else ({}, [])
    floor_rec = pick_floor(f, args.floor_name) if f else None
    rows = build_rows(w, c, floor_rec)
    render(rows, w_head, c_head, f_head, floor_rec, f, args.title, args.command, out)
    return rows


def self_test():
    """Synthetic inputs with known ratios; fails loudly on any difference."""
    wgprim = {"adapter": "Fake GPU", "backend": "vulkan", "timer": "timestamps", "reps": 3, "warmup": 1, "results": [
        {"primitive": "reduce", "algorithm": "fast", "type": "f32", "op": "sum", "n": 1024,
         "call_ms": 0.1, "batched_ms": 0.02, "gpu_ms": 0.01, "gbps": 1.0},
        {"primitive": "reduce", "algorithm": "seed", "type": "f32", "op": "sum", "n": 1024,
         "gpu_ms": 0.02, "gbps": 1.0},  # no call_ms / batched_ms yet: "-"
        {"primitive": "reduce", "algorithm": "fast", "type": "f32", "op": "max", "n": 1024,
         "call_ms": 0.2, "batched_ms": 0.04, "gpu_ms": 0.01},
        {"primitive": "copy", "algorithm": "wgsl-copy", "type": "u32", "op": "-", "n": 1024,
         "call_ms": 0.05, "batched_ms": 0.01, "gpu_ms": 0.005},
        {"primitive": "inclusive_scan", "algorithm": "decoupled", "type": "u32", "op": "sum", "n": 2048,
         "call_ms": 0.08, "batched_ms": 0.0, "gpu_ms": 0.01},  # a zero time is treated as missing
        {"primitive": "sort_keys", "algorithm": "merge", "type": "u32", "op": "less: a > b", "n": 1024,
         "call_ms": 0.2, "batched_ms": 0.1, "gpu_ms": 0.05},  # CUB's merge_sort row
        {"primitive": "segmented_sort_keys", "algorithm": "segmented", "type": "u32", "op": "segments of 16",
         "n": 1024, "call_ms": 0.1, "batched_ms": 0.05, "gpu_ms": 0.02},  # CUB's segmented_sort row
    ]}
    cub_lines = [
        {"adapter": "Fake GPU", "backend": "cuda", "timer": "wall and cuda-events", "k": 50, "reps": 7},
        {"primitive": "reduce", "algorithm": "cub", "type": "f32", "op": "sum", "n": 1024,
         "call_ms": 0.025, "batched_ms": 0.01, "gpu_ms": 0.02, "gbps": 1},
        {"primitive": "reduce", "algorithm": "cub", "type": "f32", "op": "max", "n": 1024,
         "call_ms": 0.05, "batched_ms": 0.04, "gpu_ms": 0.01},
        {"primitive": "copy", "algorithm": "cub", "type": "u32", "op": "copy-kernel", "n": 1024,
         "call_ms": 0.02, "batched_ms": 0.02, "gpu_ms": 0.01},
        {"primitive": "memcpy", "algorithm": "cub", "type": "u32", "op": "cudaMemcpyDeviceToDevice", "n": 1024,
         "call_ms": 0.02, "batched_ms": 0.01, "gpu_ms": 0.01},
        {"primitive": "inclusive_scan", "algorithm": "cub", "type": "u32", "op": "sum", "n": 2048,
         "call_ms": 0.04, "batched_ms": 0.01, "gpu_ms": 0.02},
        {"primitive": "sort_keys", "algorithm": "cub", "type": "u32", "op": "ascending", "n": 1024,
         "call_ms": 0.03, "batched_ms": 0.02, "gpu_ms": 0.015},
        {"primitive": "merge_sort", "algorithm": "cub", "type": "u32", "op": "a > b", "n": 1024,
         "call_ms": 0.1, "batched_ms": 0.05, "gpu_ms": 0.05},
        {"primitive": "segmented_sort", "algorithm": "cub", "type": "u32", "op": "ascending, segments of 1000",
         "n": 1024, "call_ms": 0.3, "batched_ms": 0.3, "gpu_ms": 0.3},
        {"primitive": "segmented_sort", "algorithm": "cub", "type": "u32", "op": "ascending, segments of 16",
         "n": 1024, "call_ms": 0.05, "batched_ms": 0.1, "gpu_ms": 0.01},
    ]
    floor_lines = [
        {"adapter": "Fake GPU", "wgpu_native": "29.0.1.1", "calls": 500},
        {"floor": "empty_submit_spin", "median_us": 13.0, "p10_us": 12.0, "p90_us": 15.0, "calls": 500},
        {"floor": "dispatch_read_spin", "median_us": 59.0, "p10_us": 55.0, "p90_us": 70.0, "calls": 500},
        {"floor": "dispatch_read_block", "median_us": 91.0, "p10_us": 85.0, "p90_us": 99.0, "calls": 500},
        {"floor": "dispatch_read_write_params_spin", "median_us": 20.0, "calls": 500},  # diagnostic: never the floor
        {"floor": "dispatch_read_primary_spin", "median_us": 50.0, "p10_us": 45.0, "p90_us": 60.0, "calls": 500},
    ]
    failures = []

    def expect(what, got, want):
        ok = (got is None and want is None) or (got is not None and want is not None and abs(got - want) < 1e-9)
        if not ok:
            failures.append(f"{what}: got {got}, want {want}")

    with tempfile.TemporaryDirectory() as d:
        wp, cp, fp, oldp = (os.path.join(d, x) for x in ("w.json", "c.jsonl", "f.jsonl", "old.json"))
        with open(wp, "w") as f:
            json.dump(wgprim, f, indent=1)  # a multi-line document, as `wgprim bench --output` writes
        with open(cp, "w") as f:
            f.write("\n".join(json.dumps(x) for x in cub_lines) + "\n")
        with open(fp, "w") as f:
            f.write("\n".join(json.dumps(x) for x in floor_lines) + "\n")
        with open(oldp, "w") as f:  # the previous cub_bench format: one document, gpu_ms only
            json.dump({"adapter": "Old", "results": [{"primitive": "reduce", "algorithm": "cub", "type": "f32",
                                                      "op": "sum", "n": 1024, "gpu_ms": 0.04}]}, f)
        ns = argparse.Namespace(wgprim=wp, cub=cp, floor=fp, floor_name=None, title="self-test", command="")
        out = open(os.devnull, "w")
        rows = run(ns, out)
        by = {(r["primitive"], r["type"], r["op"], r["n"], r["algorithm"]): r for r in rows}
        fast = by[("reduce", "f32", "sum", 1024, "fast")]
        expect("reduce fast call ratio", fast["ratio_call_ms"], 0.25)
        expect("reduce fast batched ratio", fast["ratio_batched_ms"], 0.5)
        expect("reduce fast gpu ratio", fast["ratio_gpu_ms"], 2.0)
        expect("reduce fast call/floor (primary spin, 50 us)", fast["call_over_floor"], 2.0)
        seed = by[("reduce", "f32", "sum", 1024, "seed")]
        expect("seed call ratio missing", seed["ratio_call_ms"], None)
        expect("seed batched ratio missing", seed["ratio_batched_ms"], None)
        expect("seed gpu ratio", seed["ratio_gpu_ms"], 1.0)
        expect("seed call/floor missing", seed["call_over_floor"], None)
        expect("max matched by op", by[("reduce", "f32", "max", 1024, "fast")]["ratio_call_ms"], 0.25)
        expect("copy matched across op names", by[("copy", "u32", "-", 1024, "wgsl-copy")]["ratio_call_ms"], 0.4)
        scan = by[("inclusive_scan", "u32", "sum", 2048, "decoupled")]
        expect("zero batched time is missing", scan["ratio_batched_ms"], None)
        expect("scan call ratio", scan["ratio_call_ms"], 0.5)
        expect("CUB-only sort row", by[("sort_keys", "u32", "ascending", 1024, None)]["cub_call_ms"], 0.03)
        expect("CUB-only memcpy row", by[("memcpy", "u32", "cudaMemcpyDeviceToDevice", 1024, None)]["cub_gpu_ms"], 0.01)
        expect("merge sort matched to CUB's merge_sort", by[("sort_keys", "u32", "less: a > b", 1024, "merge")]["ratio_call_ms"], 0.5)
        seg = by[("segmented_sort_keys", "u32", "segments of 16", 1024, "segmented")]
        expect("segmented sort matched by segment length", seg["ratio_batched_ms"], 2.0)
        expect("rows", len(rows), 10)
        ns.floor_name = "dispatch_read_spin"
        rows = run(ns, out)
        fast = [r for r in rows if r["algorithm"] == "fast" and r["op"] == "sum"][0]
        expect("--floor-name picks the spin floor", fast["call_over_floor"], 0.1 / 0.059)
        ns.cub, ns.floor, ns.floor_name = oldp, None, None
        rows = run(ns, out)
        fast = [r for r in rows if r["algorithm"] == "fast" and r["op"] == "sum"][0]
        expect("old CUB document: gpu ratio", fast["ratio_gpu_ms"], 4.0)
        expect("old CUB document: call ratio missing", fast["ratio_call_ms"], None)
        expect("no floor file: call/floor missing", fast["call_over_floor"], None)
        # The rendered table puts "-" where a figure is missing.
        ns.cub, ns.floor = cp, fp
        buf = io.StringIO()
        run(ns, buf)
        text = buf.getvalue()
        seed_line = [l for l in text.splitlines() if l.startswith("| 2^10 | seed |")]
        if len(seed_line) != 1 or seed_line[0].count(" - ") < 5:
            failures.append(f"seed row does not show '-' for missing figures: {seed_line}")
        if "| 2^10 | fast | 0.1000 | 0.0250 | 0.25 |" not in text:
            failures.append("rendered fast reduce row not found")
        if "| dispatch_read_primary_spin | 50.0 | 45.0 | 60.0 |" not in text:
            failures.append("floor table not rendered")
        buf = io.StringIO()
        to_document(cp, buf)
        doc = json.loads(buf.getvalue())
        if doc.get("k") != 50 or len(doc.get("results", [])) != len(cub_lines) - 1:
            failures.append(f"--to-document: {doc}")
        out.close()
    if failures:
        for f in failures:
            print("FAIL:", f, file=sys.stderr)
        return 1
    print("compare.py self-test: ok")
    return 0


def to_document(path, out):
    """JSON lines (cub_bench, wgprim_floor) as one document {header..., "results": [...]}, the shape that
    `wgprim bench --plot F --cub CUB.json` reads."""
    header, records = load(path)
    json.dump(dict(header, results=records), out)
    out.write("\n")


def main():
    if "--self-test" in sys.argv[1:]:
        sys.exit(self_test())
    if len(sys.argv) == 3 and sys.argv[1] == "--to-document":
        to_document(sys.argv[2], sys.stdout)
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("wgprim")
    ap.add_argument("cub")
    ap.add_argument("--floor", help="wgprim_floor --json output")
    ap.add_argument("--floor-name", help="floor record to divide by (default: the fastest dispatch_read_*)")
    ap.add_argument("--title", default="wgprim vs CUB, caller-visible")
    ap.add_argument("--command", default="")
    run(ap.parse_args(), sys.stdout)


if __name__ == "__main__":
    main()
