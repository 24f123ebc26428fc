#!/usr/bin/env bash
# H200 call 2 of session 17: the exact f32 sum with the floating register window (--exact-window 2, sa_fwindow)
# against columns only (0) and the four-limb window (1), items per invocation swept, fast beside; then
# `wgprim bench --accuracy` at 2^28 (each case now runs until its time settles) and the exact tests.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
for lg in 24 28; do
  for data in prices mixed; do
    g="--generate $data:$((1 << lg)) --type f32 --repeat 15 --no-check"
    r=$(timeout 60 $B/wgprim reduce $g 2>&1 | grep "GPU time"); echo "2^$lg $data fast: $r"
    for win in 0 2; do
      for items in 8 16 29; do
        r=$(timeout 60 $B/wgprim reduce $g --accuracy reproducible --exact-window $win --items $items 2>&1 | grep -E "GPU time|rror|CPU twin")
        echo "2^$lg $data repro window $win items $items: $r"
      done
    done
  done
done 2>&1 | tee $OUT/grid.txt
timeout 120 $B/wgprim bench --accuracy --min-log2 28 --max-log2 28 > $OUT/accuracy_28.txt 2>&1; echo accuracy rc=$?
cat $OUT/accuracy_28.txt
timeout 120 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Exact*:*Exact*:*exact*' 2>&1 | tail -5
