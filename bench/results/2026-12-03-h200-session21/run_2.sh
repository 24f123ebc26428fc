#!/usr/bin/env bash
# H200 call 2 of session 21: the whole suite on the tree with the 64-bit scan's own policy row (items 2, direct);
# i64/f64 inclusive scans against CUB at 2^24 and 2^28 (wgprim bench rows, and items 3 / 2 by hand); then the
# onesweep's pool-size cliff of call 1 (any pad took a u32 sort at 2^26 from 3.76 to 5.80 ms) in finer steps, at 2^24.
set -u
. devbuild/setup.sh
mkdir -p $OUT
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
gms() { python3 -c 'import json,sys
try:
  j=json.load(sys.stdin); print("%.4f ms" % j["gpu_ms"], "fallbacks", j.get("lookback_fallbacks","-"), "mism", j.get("mismatches","-"))
except Exception as e: print("ERR", e)'; }
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives inclusive_scan > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for n in 24 28; do
  timeout 100 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives inclusive_scan \
    --algorithm decoupled > $OUT/scan_$n.json 2>/dev/null || echo "bench 2^$n rc=$?"
done
{
for t in i64 f64; do for it in 2 3; do
  printf "scan %s 2^28 items %s direct: " $t $it
  timeout 60 $B/wgprim scan --generate uniform:268435456 --type $t --items $it --staged 0 --repeat 7 --json 2>/dev/null | gms
done; done
echo "## onesweep pool (u32 keys 2^24, GPU ms, median of 9; default pool 4608 words)"
for pool in 0 4640 4864 5120 5376 5632 5888 6144; do
  printf "pool %s: " $pool
  WGPRIM_ONESWEEP_POOL=$pool timeout 60 $B/wgprim sort --generate uniform:16777216 --type u32 --repeat 9 --json 2>/dev/null | gms
done
for it in 16 17 19; do
  printf "items %s: " $it
  timeout 60 $B/wgprim sort --generate uniform:16777216 --type u32 --repeat 9 --items $it --json 2>/dev/null | gms
done
} > $OUT/diag.txt 2>&1
grep -E "suite wall|PASSED|FAILED|Failure|passed" $OUT/suite.txt | head -30
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/scan_24.json $OUT/scan_28.json 2>&1 | grep -E "i64|f64|u32" | head -20
cat $OUT/diag.txt
