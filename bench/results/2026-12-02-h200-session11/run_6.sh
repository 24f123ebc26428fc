#!/usr/bin/env bash
# H200 call 6 (session 11): the final tree (sort_mid in two size classes). (1) The whole suite. (2) Segmented sort
# and merge sort rows against CUB from the same run (K = 10, median of 5) at 2^20, 2^24, 2^28. (3) Segmented sort
# GPU time by segment length at 2^24 and 2^28 (timestamps, median of 5).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
. bench/h200/suite.sh
timeout 30 $B/wgprim_floor --json --calls 200 > $OUT/floor.jsonl; echo floor rc=$?
timeout 150 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 --primitives segmented_sort,merge_sort > $OUT/cub.jsonl; echo cub rc=$?
for k in 20 24 28; do
  timeout 120 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k \
    --primitives segmented_sort_keys > $OUT/bench_$k.json; echo bench $k rc=$?
  timeout 120 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k \
    --primitives sort_keys --algorithm merge > $OUT/bench_m$k.json; echo bench merge $k rc=$?
done
python3 bench/h200/merge_bench.py $OUT/wgprim.json $OUT/bench_*.json; rm -f $OUT/bench_*.json
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --floor $OUT/floor.jsonl \
  --command "bench/results/2026-12-02-h200-session11/run_6.sh" > $OUT/compare.md 2>&1; echo compare rc=$?
grep -E "^## |^\| 2\^" $OUT/compare.md | grep -v "Floor\|copy\|CUB only" | cut -c1-150
for lg in 24 28; do
  n=$((1<<lg))
  for len in 257 512 1000 1024 1025 2048; do
    python3 bench/h200/offsets_npy.py $n $len /tmp/offs.npy
    timeout 60 $B/wgprim sort --generate uniform:$n --type u32 --segments /tmp/offs.npy --no-check --repeat 5 --json 2>&1 \
      | tail -1 | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps({"n":j["n"],"len":int(sys.argv[1]),"gpu_ms":j["gpu_ms"]}))' $len
  done
done
