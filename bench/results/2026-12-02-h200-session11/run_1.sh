#!/usr/bin/env bash
# H200 call 1 (session 11): (1) the suites that the queued calls' shared encoder and the segmented sort's binning
# touch (wgprim_tests filtered). (2) wgprim_calls with WGPRIM_QUEUED_CALLS=1 (each queued call submitted alone, as
# before), 8, 32 (the default) and 128, beside the floor. (3) segmented sort and merge sort rows against CUB from the
# same run (K = 10, median of 5) at 2^20, 2^24, 2^28.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
timeout 200 $B/wgprim_tests --gtest_brief=1 \
  --gtest_filter='Reduce.*:SegmentedSort.*:ComparatorSort.*:Pipeline*:*Count*:Context*:Device*:Errors*:Reliab*' \
  > $OUT/gtest.log 2>&1; echo gtest rc=$?
grep -E "tests ran|PASSED|FAILED|Failure" $OUT/gtest.log | head -12
timeout 30 $B/wgprim_floor --json --calls 200 > $OUT/floor.jsonl; echo floor rc=$?
grep -E '"floor": "dispatch_read_(spin|block)"' $OUT/floor.jsonl | cut -c1-200
for q in 1 8 32 128; do
  WGPRIM_QUEUED_CALLS=$q timeout 120 $B/wgprim_calls --sizes 10,16,20,24 --calls 1000 --batch 20 --reps 7 --json \
    | sed "s/^{\"row\"/{\"queued_calls\": $q, \"row\"/" >> $OUT/calls.jsonl; echo "calls q=$q rc=$?"
done
grep -v adapter $OUT/calls.jsonl | cut -c1-150
timeout 150 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 --primitives sort > $OUT/cub.jsonl; echo cub rc=$?
for k in 20 24 28; do
  timeout 120 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k \
    --primitives segmented_sort_keys,sort_keys > $OUT/bench_$k.json; echo bench $k rc=$?
done
python3 bench/h200/merge_bench.py $OUT/wgprim.json $OUT/bench_*.json; rm -f $OUT/bench_*.json
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --floor $OUT/floor.jsonl \
  --command "bench/results/2026-12-02-h200-session11/run_1.sh" > $OUT/compare.md 2>&1; echo compare rc=$?
grep -E "^## |^\| 2\^" $OUT/compare.md | grep -E "segmented|merge|^## " | grep -v "reduce-then-scan" | cut -c1-170
