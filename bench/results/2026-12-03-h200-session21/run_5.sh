#!/usr/bin/env bash
# H200 call 5 of session 21: run-length encoding's heads with its second pass as a grid-stride loop over the run
# count (no counted pass, no indirect dispatch), against the one by-key pass and CUB at 2^24..2^28; its tests.
set -u
. devbuild/setup.sh
mkdir -p $OUT
timeout 60 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Select.Rle*:ReduceByKey*:Kernels*' 2>&1 | tail -3
timeout 60 $B/cub_bench --json --sizes 24,25,26,28 --k 10 --reps 5 --primitives run_length_encode > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for n in 24 25 26 28; do
  timeout 60 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n \
    --primitives run_length_encode > $OUT/rle_$n.json 2>/dev/null || echo "bench 2^$n rc=$?"
done
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/rle_24.json $OUT/rle_25.json $OUT/rle_26.json $OUT/rle_28.json 2>&1 | grep -v tiles | cut -c1-230
