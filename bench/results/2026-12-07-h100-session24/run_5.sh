#!/usr/bin/env bash
# Device call 5 of session 24 (H100): the onesweep's loops over a tile's keys written out by wgsl_compose
# (`//! unroll`, default) against left as loops (WGPRIM_UNROLL=0): u32 sorts at 2^24 and 2^26 (GPU ms), then bench
# rows of every key type and pairs at 2^24, A B A B. Call 6 (run_6.sh) repeats it with the digit packing as before
# (UNROLL=0 then is exactly call 4's kernel) and the rounds / slots rows again with unrolled loops.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
summary='import json,sys
try:
  d=json.load(sys.stdin); print(sys.argv[1], "%.4f ms" % d["gpu_ms"], "compile", d.get("compile_ms"))
except Exception as e: print(sys.argv[1], "ERR", e)'
for rep in 1 2; do
  for u in 0 1; do
    for n in 16777216 67108864; do
      WGPRIM_UNROLL=$u timeout 60 $B/wgprim sort --generate uniform:$n --type u32 --algorithm onesweep --repeat 9 --no-check \
        --json 2>/dev/null | python3 -c "$summary" "n=$n unroll=$u"
    done
  done
done
for u in 0 1 0 1; do
  WGPRIM_UNROLL=$u timeout 60 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 24 --max-log2 24 \
    --primitives sort_keys,sort_pairs --algorithm onesweep > $OUT/rows_$u.json 2>/dev/null || echo "rows $u rc=$?"
  python3 -c '
import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
  if r["primitive"].startswith("sort"): print("unroll", sys.argv[2], r["primitive"], r["type"], "gpu %.4f b %.4f compile %.0f" % (r["gpu_ms"], r["batched_ms"], r.get("compile_ms", 0)))' $OUT/rows_$u.json $u
done
