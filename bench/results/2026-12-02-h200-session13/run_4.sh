#!/usr/bin/env bash
# H200 call 4 (session 13): the tree with the per-subgroup segmented reduce, counts copied inside the pass, cached
# histogram edges and the warm-up by batches. (1) The whole suite. (2) Segmented reduce by algorithm at 2^20..2^28.
# (3) The table of call 1 and 3 (CUB and wgprim, 2^24 and 2^28, K = 10).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
. bench/h200/suite.sh
cat $OUT/gtest_*.log $OUT/cli.log > $OUT/suite.log; rm -f $OUT/gtest_*.log $OUT/cli.log
timeout 90 $B/wgprim bench --json --reps 7 --warmup 2 --batch 10 --min-log2 20 --max-log2 28 --primitives segmented_reduce > /tmp/seg.json
python3 bench/h200/rows.py /tmp/seg.json | grep -v scan-gather > $OUT/seg.txt; cat $OUT/seg.txt
timeout 100 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 \
  --primitives reduce,inclusive_scan,arg_max,select_if,unique,histogram_even,reduce_by_key,run_length_encode,segmented_reduce,sort_keys,sort_pairs,copy \
  > $OUT/cub.jsonl; echo cub rc=$?
P=reduce,inclusive_scan,arg_max,select_if,unique,histogram_even,reduce_by_key,run_length_encode,segmented_reduce,sort_keys,sort_pairs
for k in 24 28; do
  timeout 150 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives $P > /tmp/w_$k.json; echo bench $k rc=$?
done
python3 bench/h200/merge_bench.py $OUT/wgprim.json /tmp/w_24.json /tmp/w_28.json
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --command "bench/results/2026-12-02-h200-session13/run_4.sh" > $OUT/compare.md 2>&1
grep -E "^## |^\| 2\^(24|28)" $OUT/compare.md | grep -v "CUB only\| seed \| render \|scan-gather\|bitmap\| f64 \| i64 \|reduce-then-scan\| single " | cut -c1-150
