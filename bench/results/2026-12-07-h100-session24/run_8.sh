#!/usr/bin/env bash
# Device call 8 of session 24 (H100): the tree as committed (the onesweep's loops written out on GPUs, 1 scatter
# round, 16 subgroup histograms): the whole suite, then sort keys and pairs against CUB at 2^24 and 2^28.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
grep -E "suite wall|PASSED|FAILED|Failure|passed" $OUT/suite.txt | head -30
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives sort_keys,sort_pairs > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for n in 24 28; do
  timeout 90 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --algorithm onesweep \
    --primitives sort_keys,sort_pairs > $OUT/sort_$n.json 2>/dev/null || echo "bench 2^$n rc=$?"
done
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/sort_24.json $OUT/sort_28.json 2>&1 | cut -c1-230
