#!/usr/bin/env bash
# H200 call 3 (session 11): the final tree. (1) The whole suite (bench/h200/suite.sh). (2) wgprim_calls (queued
# calls, pipeline replay and encode) beside the floor. (3) Sort rows against CUB from the same run (K = 10, median
# of 5) at 2^20, 2^24, 2^28: keys, bits 0:16, merge sort `a > b`, segmented sort (16 and ~1000), the chain.
# (4) Segmented sort GPU time by segment length at 2^24 (timestamps, median of 5), around the short path's new edge.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
. bench/h200/suite.sh
timeout 30 $B/wgprim_floor --json --calls 200 > $OUT/floor.jsonl; echo floor rc=$?
grep -E '"floor": "dispatch_read_(spin|block)"' $OUT/floor.jsonl | cut -c1-200
timeout 120 $B/wgprim_calls --sizes 10,16,20,24 --calls 1000 --batch 20 --reps 7 --json > $OUT/calls.jsonl; echo calls rc=$?
grep -v adapter $OUT/calls.jsonl | cut -c1-120
timeout 200 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 --primitives sort,chain > $OUT/cub.jsonl; echo cub rc=$?
for k in 20 24 28; do
  timeout 120 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k \
    --primitives sort_keys,segmented_sort_keys,chain --sort-bits 0:16 > $OUT/bench_$k.json; echo bench $k rc=$?
done
python3 bench/h200/merge_bench.py $OUT/wgprim.json $OUT/bench_*.json; rm -f $OUT/bench_*.json
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --floor $OUT/floor.jsonl \
  --command "bench/results/2026-12-02-h200-session11/run_3.sh" > $OUT/compare.md 2>&1; echo compare rc=$?
grep -E "^## |^\| 2\^" $OUT/compare.md | grep -v "reduce-then-scan\|Floor\|copy" | cut -c1-150
n=$((1<<24))
for len in 16 64 65 128 256 257 1000; do
  python3 bench/h200/offsets_npy.py $n $len /tmp/offs.npy
  timeout 60 $B/wgprim sort --generate uniform:$n --type u32 --segments /tmp/offs.npy --no-check --repeat 5 --json 2>&1 \
    | tail -1 | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps({"n":j["n"],"len":int(sys.argv[1]),"gpu_ms":j["gpu_ms"],"timer":j.get("gpu_timer")}))' $len
done
