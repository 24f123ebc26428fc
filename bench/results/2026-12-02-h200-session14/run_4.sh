#!/usr/bin/env bash
# H200 call 4 (session 14): (1) the whole suite on the final code. (2) Per-call time at 2^20 and 2^24, A B A B:
# `wgprim_pre` (the CLI before the pipeline merge: branch dist-gpu, 8da32a2) against `wgprim` (the final tree), to
# tell whether this session's recorder changes cost the host-returning call (call 3 read 25-40 us more per call than
# session 13; call 1, before any of them, read more already).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
. bench/h200/suite.sh
cat $OUT/gtest_*.log $OUT/cli.log > $OUT/suite.log; rm -f $OUT/gtest_*.log $OUT/cli.log
for round in 1 2; do
  for bin in wgprim_pre wgprim; do
    for pa in "reduce fast" "inclusive_scan,select_if,reduce_by_key decoupled"; do
      set -- $pa
      timeout 60 $B/$bin bench --json --reps 7 --warmup 2 --batch 10 --min-log2 20 --max-log2 24 --primitives $1 --algorithm $2 > /tmp/p.json
      python3 bench/h200/rows.py /tmp/p.json | grep -E " (1048576|16777216) " | sed "s/^/$bin round $round: /"
    done
  done
done 2>&1 | tee $OUT/percall.txt
