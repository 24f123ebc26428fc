#!/usr/bin/env bash
# H200 call 5 (session 15): (1) the f32 sum's accuracy modes at 2^24 and 2^28 (`wgprim bench --accuracy`: ulps and
# speed relative to the fast sum; issue 24's target: reproducible >= 0.8x of fast at 2^28); (2) wgprim_calls: queued
# (non-waiting) reduces against the encoder overload, a replayed five-step pipeline against its floor (issue 27).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
for lg in 24 28; do
  timeout 90 $B/wgprim bench --accuracy --min-log2 $lg --max-log2 $lg > $OUT/accuracy_$lg.txt 2>&1; echo accuracy 2^$lg rc=$?
  cat $OUT/accuracy_$lg.txt
done
timeout 100 $B/wgprim_calls --sizes 10,16,20,24 --calls 1000 --batch 20 --reps 7 > $OUT/calls.txt 2>&1; echo calls rc=$?
cat $OUT/calls.txt
