#!/usr/bin/env bash
# Session 25, call 2: every row of issue 24's targets, the sorts of issue 25 and issue 27's chain against CUB
# (session 24's run_next_family.sh, ~400 s), then issue 27's replay figures with the runs recorded ahead
# (wgprim_calls) beside the floor of a call (wgprim_floor). Packed without the fonts and PLplot data (no --plot here).
set -u
bash bench/results/2026-12-07-h100-session25/family.sh
. devbuild/setup.sh
timeout 90 $B/wgprim_calls --sizes 10,20 --calls 1000 --batch 20 --reps 7 2>&1 | tee $OUT/calls.txt; echo calls rc=$?
timeout 60 $B/wgprim_floor 2>&1 | tail -12
