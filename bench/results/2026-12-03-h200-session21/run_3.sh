#!/usr/bin/env bash
# H200 call 3 of session 21: the whole suite on the tree with run-length encoding's "heads" algorithm (unique's pass
# writing where runs start, then one invocation per run: the GPU default); RLE and reduce_by_key against CUB at 2^24
# and 2^28 (every algorithm's row); then `wgprim tune --quick` dry runs of scan_wide and unique (the first tune on
# the H200 since the scan's layouts and the 64-bit row became tunable).
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives run_length_encode,reduce_by_key > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for n in 24 28; do
  timeout 120 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n \
    --primitives run_length_encode,reduce_by_key > $OUT/rle_$n.json 2>/dev/null || echo "bench 2^$n rc=$?"
done
timeout 100 $B/wgprim tune --quick --primitives scan_wide,unique --dry-run > $OUT/tune.txt 2>&1; echo "tune rc=$?"
grep -E "suite wall|PASSED|FAILED|Failure|passed" $OUT/suite.txt | head -30
grep -v '^ *"\|^[{}]' $OUT/tune.txt | tail -16
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/rle_24.json $OUT/rle_28.json 2>&1 | cut -c1-230
