#!/usr/bin/env bash
# H200 call D (session 6): branch `rank` (onesweep ranking without a barrier per key) against the merged tree.
set -u
. devbuild/setup.sh
R=$PWD/devbuild/rank
cp $B/libwgpu_native.so $R/ 2>/dev/null
echo "=== rank: Sort/Multi/Kernels suites"; timeout 200 $R/wgprim_tests --gtest_filter='Sort.*:Multi.*Sort*:Kernels.*' --gtest_brief=1 2>&1 | tail -5
echo "=== rank: differential 30000 (sorts among the kinds)"; WGPRIM_DIFF_CASES=30000 WGPRIM_DIFF_SEED=7 timeout 150 $R/wgprim_tests --gtest_filter='Differential.*' --gtest_brief=1 2>&1 | tail -4
for bin in $B $R; do for k in 24 28; do
  echo "=== $bin 2^$k"; timeout 60 $bin/wgprim sort --generate uniform:$((1<<k)) --type u32 --phases --repeat 7 --no-check 2>&1 | tail -9
done; done
for bin in $B $R; do timeout 120 $bin/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 24 --max-log2 24 --primitives sort_keys,sort_pairs > $OUT/sort_$(basename $bin).json 2>&1; echo bench rc=$?; done
