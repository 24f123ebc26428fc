#!/usr/bin/env bash
# H200 call 3 (session 14): (1) the issue-24/25 table, CUB and wgprim in one call (2^24 and 2^28, K = 10), with the
# bench's warm-up floor, the onesweep's keys read again and its one-word ballots (sort.max_lanes 32 on NVIDIA), the
# pipeline's counted passes in one compute pass. (2) The distributed sort on the GPU against the earlier host steps
# (one process, 1, 2 and 4 contexts on the one H200: --adapters), u32 keys, 2^22 and 2^25 in all, median of 3.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
P=reduce,inclusive_scan,arg_max,select_if,unique,histogram_even,reduce_by_key,run_length_encode,segmented_reduce,segmented_scan,sort_keys,sort_pairs,chain
timeout 120 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives $P,copy > $OUT/cub.jsonl; echo cub rc=$?
for k in 24 28; do
  timeout 200 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives $P --sort-bits 0:16 > /tmp/w_$k.json; echo bench $k rc=$?
done
python3 bench/h200/merge_bench.py $OUT/wgprim.json /tmp/w_24.json /tmp/w_28.json
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --command "bench/results/2026-12-02-h200-session14/run_3.sh" > $OUT/compare.md 2>&1
grep -E "^## |^\| 2\^(24|28)" $OUT/compare.md | grep -v "CUB only\| seed \| render \|scan-gather\|bitmap\| f64 \| i64 \|reduce-then-scan\| single " | cut -c1-150
for lg in 22 25; do
  for p in H200 H200,H200 H200,H200,H200,H200; do
    for mode in device host; do
      WGPRIM_DIST_SORT=$mode timeout 120 $B/wgprim sort --generate uniform:$((1 << lg)) --type u32 --adapters $p --json --repeat 3 > /tmp/d.json 2>&1
      python3 -c "import json,sys; d=json.load(open('/tmp/d.json')); print('dist sort 2^$lg', d['ranks'], 'ranks', '$mode', 'ms %.2f' % d['ms'], 'local', ['%.2f' % r['local_ms'] for r in d['per_rank']], 'comm', ['%.2f' % r['comm_ms'] for r in d['per_rank']])" 2>/dev/null || head -c 300 /tmp/d.json
    done
  done
done 2>&1 | tee $OUT/dist.txt
