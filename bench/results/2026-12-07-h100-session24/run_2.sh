#!/usr/bin/env bash
# Device call 2 of session 24 (H100): partition_if (stable and reversed), run_length_encode (heads, decoupled) and
# sort_keys against CUB at 2^24, 2^25/2^26 (RLE only) and 2^28; then sort_keys with the onesweep's scatter in
# 2 rounds and 8 subgroup histograms (the winner of call 1's sweep) against the same CUB figures.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
timeout 60 $B/cub_bench --json --sizes 24,25,26,28 --k 10 --reps 5 --primitives partition_if,run_length_encode,sort_keys,sort_pairs > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for n in 24 25 26 28; do
  prims=partition_if,run_length_encode,sort_keys,sort_pairs
  [ $n = 25 ] || [ $n = 26 ] && prims=run_length_encode
  lim=90; [ $n = 25 ] || [ $n = 26 ] && lim=30
  timeout $lim $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n \
    --primitives $prims > $OUT/bench_$n.json 2>/dev/null || echo "bench 2^$n rc=$?"
done
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/bench_24.json $OUT/bench_25.json $OUT/bench_26.json $OUT/bench_28.json 2>&1 | grep -v tiles | cut -c1-230
for n in 24 28; do
  WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8 timeout 90 $B/wgprim bench --json --quiet --reps 5 --batch 10 \
    --min-log2 $n --max-log2 $n --primitives sort_keys,sort_pairs > $OUT/r2s8_$n.json 2>/dev/null || echo "r2s8 2^$n rc=$?"
done
echo "--- rounds 2, slots 8"
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/r2s8_24.json $OUT/r2s8_28.json 2>&1 | grep -v tiles | cut -c1-230
