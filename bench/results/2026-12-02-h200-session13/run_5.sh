#!/usr/bin/env bash
# H200 call 5 (session 13): the final tree (per-subgroup segmented scan added). (1) The whole suite. (2) Segmented
# reduce and scan by algorithm at 2^24 and 2^28, CUB's anchors (segmented reduce; inclusive sum by key for the
# scan) in the same call. (3) The 256-bin histogram at 2^28 alone and after arg_max (call 3/4: 0.34 vs 1.4-1.9 ms).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
. bench/h200/suite.sh
cat $OUT/gtest_*.log $OUT/cli.log > $OUT/suite.log; rm -f $OUT/gtest_*.log $OUT/cli.log
timeout 30 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives segmented_reduce,segmented_scan > $OUT/cub.jsonl; echo cub rc=$?
for k in 24 28; do
  timeout 45 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k \
    --primitives segmented_reduce,segmented_scan > /tmp/s_$k.json
  python3 bench/h200/rows.py /tmp/s_$k.json | grep -v "scan-gather\|bitmap"
done > $OUT/seg.txt 2>&1
cat $OUT/seg.txt
python3 - $OUT/cub.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try: r = json.loads(line)
    except Exception: continue
    if isinstance(r, dict) and r.get("primitive", "").startswith("segmented"):
        print("cub", r.get("primitive"), r.get("n"), r.get("op"), {k: r[k] for k in r if k.endswith("_ms")})
PY
for prims in histogram_even arg_max,histogram_even; do
  timeout 40 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 28 --max-log2 28 --primitives $prims > /tmp/h.json
  python3 bench/h200/rows.py /tmp/h.json | grep histogram | sed "s/^h /after $prims: /"
done | tee $OUT/order.txt
