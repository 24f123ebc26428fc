#!/usr/bin/env bash
# H200 call 4 of session 21: where run-length encoding's "heads" starts to beat the one by-key pass (call 3: slower
# at 2^24, faster at 2^28), rows of both at 2^25, 2^26 and 2^27 against CUB.
set -u
. devbuild/setup.sh
mkdir -p $OUT
timeout 60 $B/cub_bench --json --sizes 25,26,27 --k 10 --reps 5 --primitives run_length_encode > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for n in 25 26 27; do
  timeout 100 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n \
    --primitives run_length_encode > $OUT/rle_$n.json 2>/dev/null || echo "bench 2^$n rc=$?"
done
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/rle_25.json $OUT/rle_26.json $OUT/rle_27.json 2>&1 | grep -v tiles | cut -c1-230
