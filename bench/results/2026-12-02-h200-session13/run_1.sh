#!/usr/bin/env bash
# H200 call 1 (session 13): the tree of session 12 (f330423). (1) The whole test suite (bench/h200/suite.sh). (2) After a warm-up, CUB
# and wgprim bench at 2^24 and 2^28 (K = 10 on both sides, median of 5) of the rows this session changed or that
# issue 24 targets (device time was short: failed machine starts took a third of it, so not every row).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
. bench/h200/suite.sh
cat $OUT/gtest_*.log $OUT/cli.log > $OUT/suite.log; rm -f $OUT/gtest_*.log $OUT/cli.log  # at most 8 files come back
P=reduce,inclusive_scan,arg_max,select_if,unique,histogram_even,reduce_by_key,run_length_encode,segmented_reduce,sort_pairs
timeout 20 $B/wgprim bench --json --reps 20 --warmup 5 --batch 10 --min-log2 28 --max-log2 28 --primitives copy > /dev/null
timeout 90 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 \
  --primitives reduce,inclusive_scan,arg_max,select_if,unique,histogram_even,reduce_by_key,run_length_encode,segmented_reduce,sort_keys,sort_pairs,copy \
  > $OUT/cub.jsonl; echo cub rc=$?
for k in 24 28; do
  lim=$(( k == 28 ? 90 : 45 ))
  timeout $lim $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives $P > $OUT/wgprim_$k.json; echo bench $k rc=$?
  timeout 30 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives sort_keys --algorithm onesweep > $OUT/wgprim_sort_$k.json; echo sort $k rc=$?
  # merged after every size, so that a call cut short still returns what it measured (at most 8 files come back)
  python3 bench/h200/merge_bench.py $OUT/acc.json $( [ -f $OUT/wgprim.json ] && echo $OUT/wgprim.json ) $OUT/wgprim_*$k.json
  mv $OUT/acc.json $OUT/wgprim.json; rm -f $OUT/wgprim_*.json
done
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --command "bench/results/2026-12-02-h200-session13/run_1.sh" \
  > $OUT/compare.md 2>&1; echo compare rc=$?
grep -E "^## |^\| 2\^(24|28)" $OUT/compare.md | grep -v "CUB only\| seed \| render \|scan-gather\|bitmap\| f64 \| i64 " | cut -c1-150
