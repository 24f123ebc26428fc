#!/usr/bin/env bash
# H200 call prepared in session 22 (which had no device time; NOT RUN yet): the whole suite on the tree with the
# one-pass reversed partition (run_options::rejected) and run-length encoding's heads with a grid-stride second
# pass; then partition_if (stable: count pass + select pass; reversed: one pass, CUB's own order) and
# run_length_encode (heads, decoupled) and histogram_even (its kernel text changed for views) against CUB at
# 2^24, 2^25, 2^26 and 2^28; then the onesweep's 24 KiB edge
# (session 21: a digit pass ~50 % slower as soon as the workgroup's memory passes ~24 KiB, however far past):
# which phase slows (WGPRIM_ONESWEEP_ABLATE leaves one out) and whether it follows the keys read again for the
# scatter (WGPRIM_ONESWEEP_RELOAD 0 / 1), at the pool as it is (4,608 words) and padded past the edge (4,864).
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
timeout 60 $B/cub_bench --json --sizes 24,25,26,28 --k 10 --reps 5 --primitives partition_if,run_length_encode,histogram_even > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for n in 24 25 26 28; do
  timeout 120 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n \
    --primitives partition_if,run_length_encode,histogram_even > $OUT/bench_$n.json 2>/dev/null || echo "bench 2^$n rc=$?"
done
grep -E "suite wall|PASSED|FAILED|Failure|passed" $OUT/suite.txt | head -30
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/bench_24.json $OUT/bench_25.json $OUT/bench_26.json $OUT/bench_28.json 2>&1 | grep -v tiles | cut -c1-230
summary='import json,sys
try:
  d=json.load(sys.stdin); print(sys.argv[1], "%.4f ms" % d["gpu_ms"], [(p["phase"], round(p["gpu_ms"], 4)) for p in d.get("phases", [])][:3])
except Exception as e: print(sys.argv[1], "ERR", e)'
for r in 1 0; do for pool in 0 4864; do for a in none rank lookback scatter; do
  v=$a; [ $a = none ] && v=
  WGPRIM_ONESWEEP_RELOAD=$r WGPRIM_ONESWEEP_POOL=$pool WGPRIM_ONESWEEP_ABLATE=$v timeout 60 $B/wgprim sort \
    --generate uniform:16777216 --type u32 --algorithm onesweep --phases --repeat 7 --no-check --json 2>/dev/null |
    python3 -c "$summary" "reload=$r pool=$pool ablate=$a"
done; done; done > $OUT/edge.txt 2>&1
cat $OUT/edge.txt
