#!/usr/bin/env bash
# H200 call 1 (session 14): (1) the suites of this session's GPU changes (workspaces in scratch buffers, the
# per-subgroup segment cut by subgroup size). (2) reduce-by-key, RLE and segmented scan against CUB at 2^24 and
# 2^28 (the per-call gap). (3) The 256-bin histogram's two speeds at 2^28: SM and memory clocks logged every 20 ms
# (nvidia-smi) beside three processes that run it alone, and batches of 1, 2 and 10 calls per submission.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
timeout 200 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Segmented.*:ReduceByKey.*:SegmentedDifferential.*:Histogram.*' > $OUT/gtest.log 2>&1
echo gtest rc=$?; grep -E "PASSED|FAILED|Failure" $OUT/gtest.log | head
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives reduce_by_key,run_length_encode,segmented_scan,histogram_even > $OUT/cub.jsonl; echo cub rc=$?
for k in 24 28; do
  timeout 80 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k \
    --primitives reduce_by_key,run_length_encode,segmented_scan > /tmp/r_$k.json; echo bench $k rc=$?
  python3 bench/h200/rows.py /tmp/r_$k.json | grep -v "bitmap"
done > $OUT/rbk.txt 2>&1
cat $OUT/rbk.txt
python3 bench/h200/merge_bench.py $OUT/wgprim.json /tmp/r_24.json /tmp/r_28.json
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --command "bench/results/2026-12-02-h200-session14/run_1.sh" > $OUT/compare.md 2>&1
grep -E "^## |^\| 2\^(24|28)" $OUT/compare.md | cut -c1-160
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw,utilization.gpu --format=csv -lms 20 > $OUT/clocks.csv 2>&1 &
SMI=$!
for run in a b c; do
  echo "== run $run $(date +%T.%N)"
  timeout 40 $B/wgprim bench --json --reps 7 --warmup 2 --batch 10 --min-log2 28 --max-log2 28 --primitives histogram_even > /tmp/h.json
  python3 bench/h200/rows.py /tmp/h.json | grep "256 bins"
  for b in 1 2; do
    timeout 40 $B/wgprim bench --json --reps 7 --warmup 2 --batch $b --min-log2 28 --max-log2 28 --primitives histogram_even > /tmp/h.json
    python3 bench/h200/rows.py /tmp/h.json | grep "256 bins" | sed "s/^/batch $b: /"
  done
done 2>&1 | tee $OUT/hist.txt
kill $SMI
