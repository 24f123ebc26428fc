#!/usr/bin/env bash
# H200 call 2 (session 14): the onesweep with the keys read again for the scatter and the digits packed meanwhile
# (WGPRIM_ONESWEEP_RELOAD=1: the keys hold no registers while the tile ranks) against the keys in registers (0),
# alternated A B A B, sort keys / pairs at 2^24 and 2^28 and 16-bit keys, beside CUB's sorts in the same call;
# the Sort suites with RELOAD=1; the bench warm-up's new 500 ms floor (the 256-bin histogram alone at 2^28); and the
# distributed sort on the GPU (one process, 1, 2 and 4 contexts on the one H200: --adapters) against the earlier
# host steps (WGPRIM_DIST_SORT=host), u32 keys, 2^24 and 2^27 in all, median of 3.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
WGPRIM_ONESWEEP_RELOAD=1 timeout 240 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort.*:CountedSort.*:SegmentedSort.*:Reduce.*:Exact.*:ArgReduce.*:Scan.*:Select.*:Multi*' > $OUT/gtest.log 2>&1
echo gtest rc=$?; grep -E "PASSED|FAILED|Failure" $OUT/gtest.log | head
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives sort_keys,sort_pairs > $OUT/cub.jsonl; echo cub rc=$?
for round in 1 2; do
  for r in 0 1; do
    for k in 24 28; do
      WGPRIM_ONESWEEP_RELOAD=$r timeout 90 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k \
        --primitives sort_keys,sort_pairs --algorithm onesweep --sort-bits 0:16 > /tmp/s_${r}_${k}_$round.json
      python3 bench/h200/rows.py /tmp/s_${r}_${k}_$round.json | sed "s/^/reload=$r round $round: /"
    done
  done
done 2>&1 | tee $OUT/ab.txt
python3 bench/h200/merge_bench.py $OUT/wgprim_reload1.json /tmp/s_1_24_2.json /tmp/s_1_28_2.json
python3 bench/h200/merge_bench.py $OUT/wgprim_reload0.json /tmp/s_0_24_2.json /tmp/s_0_28_2.json
for r in 0 1; do
  python3 bench/compare.py $OUT/wgprim_reload$r.json $OUT/cub.jsonl --command "bench/results/2026-12-02-h200-session14/run_2.sh" > $OUT/compare_reload$r.md 2>&1
done
grep -E "^## |^\| 2\^(24|28)" $OUT/compare_reload1.md | cut -c1-160
for run in a b; do
  timeout 40 $B/wgprim bench --json --reps 7 --warmup 2 --batch 10 --min-log2 28 --max-log2 28 --primitives histogram_even > /tmp/h.json
  python3 bench/h200/rows.py /tmp/h.json | sed "s/^/hist $run: /"
done 2>&1 | tee $OUT/hist.txt
for lg in 24 27; do
  for p in H200 H200,H200 H200,H200,H200,H200; do
    for mode in device host; do
      WGPRIM_DIST_SORT=$mode timeout 120 $B/wgprim sort --generate uniform:$((1 << lg)) --type u32 --adapters $p --json --repeat 3 --no-check > /tmp/d.json 2>&1
      python3 -c "import json,sys; d=json.load(open('/tmp/d.json')); print('dist sort 2^$lg', d['ranks'], 'ranks', '$mode', 'ms %.2f' % d['ms'], 'local', ['%.2f' % r['local_ms'] for r in d['per_rank']], 'comm', ['%.2f' % r['comm_ms'] for r in d['per_rank']])" 2>&1 || head -c 300 /tmp/d.json
    done
  done
done 2>&1 | tee $OUT/dist.txt
