#!/usr/bin/env bash
# H200 run B: floor, CUB and wgprim bench (call / batched / gpu) at 2^20..2^28, sort tunes, the primitives at 2^24.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
mkdir -p /tmp/libs && for f in .gl/libs/*.deb; do dpkg -x $f /tmp/libs; done
export LD_LIBRARY_PATH=/tmp/libs/usr/lib/x86_64-linux-gnu:/tmp/libs/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
B=devbuild
date -u > $OUT/date.txt
timeout 40 $B/wgprim_floor --json --calls 300 > $OUT/floor.jsonl; echo floor rc=$?
timeout 100 $B/cub_bench --json --sizes 20,24,28 --k 20 --reps 5 > $OUT/cub.jsonl; echo cub rc=$?
timeout 150 $B/wgprim bench --json --reps 5 --warmup 1 --batch 10 --min-log2 20 --max-log2 28 --primitives reduce,inclusive_scan,copy > $OUT/rs.json; echo rs rc=$?
WGPRIM_SORT_TUNES=15:1,15:8,20:4,24:4 timeout 150 $B/wgprim bench --json --reps 3 --warmup 1 --batch 3 --min-log2 24 --max-log2 28 --primitives sort_keys,sort_pairs > $OUT/sort.json; echo sort rc=$?
timeout 100 $B/wgprim bench --json --reps 3 --warmup 1 --batch 5 --min-log2 24 --max-log2 24 --primitives select_if,select_flagged,partition_if,unique,histogram_even,arg_max,transform_reduce,segmented_reduce,reduce_by_key,run_length_encode > $OUT/prims24.json; echo prims rc=$?
for f in rs sort prims24; do python3 bench/compare.py $OUT/$f.json $OUT/cub.jsonl --floor $OUT/floor.jsonl > $OUT/compare_$f.md 2>&1; echo compare $f rc=$?; done
head -c 5000 $OUT/compare_rs.md; head -c 3000 $OUT/compare_sort.md
