#!/usr/bin/env bash
# H200 call 3 (run in session 17): call 2 (phases, A B A B against session 15's binary, CUB rows, the suite), then the
# f32 sum's accuracy modes at 2^28 and the replay figure that call 1 also had.
set -u
. bench/results/2026-12-03-h200-session16/run_2.sh
timeout 60 $B/wgprim bench --accuracy --min-log2 28 --max-log2 28 > $OUT/accuracy_28.txt 2>&1; echo accuracy rc=$?
cat $OUT/accuracy_28.txt
timeout 90 $B/wgprim_calls --sizes 10,16,20,24 --calls 1000 --batch 20 --reps 7 > $OUT/calls.txt 2>&1; echo calls rc=$?
cat $OUT/calls.txt
