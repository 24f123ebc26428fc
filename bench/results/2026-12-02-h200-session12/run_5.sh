#!/usr/bin/env bash
# H200 call 5 (session 12): the final tree. (1) The whole test suite (bench/h200/suite.sh). (2) After a warm-up, floor, CUB and wgprim bench of every primitive at
# 2^20, 2^24 and 2^28 (K = 10 on both sides, median of 5), with the chain, segmented sort and comparator merge
# sort rows (the issue-24 table; bench/run_device.sh's programs, sizes limited to the three).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
. bench/h200/suite.sh
cat $OUT/gtest_*.log $OUT/cli.log > $OUT/suite.log; rm -f $OUT/gtest_*.log $OUT/cli.log  # at most 8 files come back
P=reduce,inclusive_scan,exclusive_scan,copy,transform_reduce,arg_max,select_if,select_flagged,partition_if,unique,histogram_even,segmented_reduce,segmented_scan,segmented_sort_keys,reduce_by_key,run_length_encode,sort_pairs,chain
timeout 30 $B/wgprim bench --json --reps 20 --warmup 5 --batch 10 --min-log2 28 --max-log2 28 --primitives copy > /dev/null
timeout 30 $B/wgprim_floor --json --calls 200 > $OUT/floor.jsonl; echo floor rc=$?
timeout 150 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 > $OUT/cub.jsonl; echo cub rc=$?
for k in 20 24 28; do
  lim=$(( k == 28 ? 120 : 50 ))
  WGPRIM_SORT_BITS=0:16 timeout $lim $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives $P > $OUT/wgprim_$k.json; echo bench $k rc=$?
  WGPRIM_SORT_BITS=0:16 timeout 30 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives sort_keys --algorithm onesweep > $OUT/wgprim_sort_$k.json; echo sort $k rc=$?
  timeout 30 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives sort_keys --algorithm merge > $OUT/wgprim_merge_$k.json; echo merge $k rc=$?
  # merged after every size, so that a call cut short still returns what it measured (at most 8 files come back)
  python3 bench/h200/merge_bench.py $OUT/acc.json $( [ -f $OUT/wgprim.json ] && echo $OUT/wgprim.json ) $OUT/wgprim_*$k.json
  mv $OUT/acc.json $OUT/wgprim.json; rm -f $OUT/wgprim_*.json
done
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --floor $OUT/floor.jsonl \
  --command "bench/results/2026-12-02-h200-session12/run_5.sh" > $OUT/compare.md 2>&1; echo compare rc=$?
grep -E "^## |^\| 2\^(20|24|28)" $OUT/compare.md | grep -v "Floor\|CUB only\| seed \| render \|scan-gather\|bitmap" | cut -c1-150
