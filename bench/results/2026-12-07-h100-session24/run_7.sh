#!/usr/bin/env bash
# Device call 7 of session 24 (H100): with the loops unrolled (call 6: 64-bit keys 15 % faster, 32-bit keys slower
# in 2 rounds but fastest in 1 round with 16 histograms): 1 round / 16 histograms against 2 rounds / 8 for u32 keys
# at 2^24 and 2^26, and bench rows (keys and pairs, every type) at 2^24 and 2^28, A B A B.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
summary='import json,sys
try:
  d=json.load(sys.stdin); print(sys.argv[1], "%.4f ms" % d["gpu_ms"])
except Exception as e: print(sys.argv[1], "ERR", e)'
R1="WGPRIM_ONESWEEP_ROUNDS=1 WGPRIM_ONESWEEP_SLOTS=16"
R2="WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8"
for rep in 1 2; do
  for cfg in "$R1" "$R2"; do
    for n in 16777216 67108864; do
      env $cfg timeout 60 $B/wgprim sort --generate uniform:$n --type u32 --algorithm onesweep --repeat 9 --no-check \
        --json 2>/dev/null | python3 -c "$summary" "n=$n $cfg"
    done
  done
done
for rep in 1 2; do
  for cfg in "$R1" "$R2"; do
    for n in 24 28; do
      env $cfg timeout 90 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n \
        --primitives sort_keys,sort_pairs --algorithm onesweep > $OUT/rows.json 2>/dev/null || echo "rows rc=$?"
      python3 -c '
import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
  if r["primitive"].startswith("sort") and r["type"] != "i64": print(sys.argv[2], r["n"], r["primitive"], r["type"], "gpu %.4f call %.4f b %.4f" % (r["gpu_ms"], r["call_ms"], r["batched_ms"]))' $OUT/rows.json "$cfg"
    done
  done
done
