#!/usr/bin/env bash
# H200 call 3 (session 13): with bench's new warm-up (until the time per run settles). (1) Scan policy A/B through
# a policy file (scan.items / scan.window) at 2^22..2^28. (2) Histogram shapes (WGPRIM_HISTOGRAM_AB). (3) tune
# --dry-run for scan, select, histogram (now warmed). (4) The table of call 1 again (CUB and wgprim, 2^24, 2^28).
set -u
. devbuild/setup.sh
F=nvidia-h200-580-159-04.json
for v in "4 32" "4 8" "2 8" "2 32" "8 8"; do
  set -- $v
  export XDG_CACHE_HOME=/tmp/xdg_$1_$2; mkdir -p $XDG_CACHE_HOME/wgprim
  echo "{\"wgprim_policy\": 1, \"adapter\": \"NVIDIA H200\", \"class\": \"nvidia\", \"knobs\": {\"scan.items\": $1, \"scan.window\": $2}}" > $XDG_CACHE_HOME/wgprim/$F
  timeout 60 $B/wgprim bench --json --reps 7 --warmup 2 --batch 10 --min-log2 22 --max-log2 28 --primitives inclusive_scan > /tmp/scan_i$1_w$2.json
  python3 bench/h200/rows.py /tmp/scan_i$1_w$2.json | grep " u32 "
done > $OUT/scan.txt 2>&1
unset XDG_CACHE_HOME
for v in default merge merge,step2 nomerge,step8; do
  e=$v; [ $v = default ] && e=
  WGPRIM_HISTOGRAM_AB=$e timeout 60 $B/wgprim bench --json --reps 7 --warmup 2 --batch 10 --min-log2 24 --max-log2 28 --primitives histogram_even > /tmp/hist_${v/,/_}.json
  python3 bench/h200/rows.py /tmp/hist_${v/,/_}.json | grep -v "^$"
done > $OUT/hist.txt 2>&1
timeout 120 $B/wgprim tune --dry-run --primitives scan,select,histogram > $OUT/tune.txt 2>&1; echo tune rc=$? >> $OUT/tune.txt
cat $OUT/scan.txt $OUT/hist.txt; head -30 $OUT/tune.txt
timeout 100 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 \
  --primitives reduce,inclusive_scan,arg_max,select_if,unique,histogram_even,reduce_by_key,run_length_encode,segmented_reduce,sort_keys,sort_pairs,copy \
  > $OUT/cub.jsonl; echo cub rc=$?
P=reduce,inclusive_scan,arg_max,select_if,unique,histogram_even,reduce_by_key,run_length_encode,segmented_reduce,sort_keys,sort_pairs
for k in 24 28; do
  timeout 200 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives $P > /tmp/w_$k.json; echo bench $k rc=$?
done
python3 bench/h200/merge_bench.py $OUT/wgprim.json /tmp/w_24.json /tmp/w_28.json
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --command "bench/results/2026-12-02-h200-session13/run_3.sh" > $OUT/compare.md 2>&1
grep -E "^## |^\| 2\^(24|28)" $OUT/compare.md | grep -v "CUB only\| seed \| render \|scan-gather\|bitmap\| f64 \| i64 " | cut -c1-150
