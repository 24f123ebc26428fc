#!/usr/bin/env bash
# H200 call (session 5, last): the final tree (subgroup look-back on by default): whole GoogleTest suite, CLI
# script, and floor + CUB + wgprim bench of reduce, scans and copy (K = 20 both).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -8; date -u; } > $OUT/env.txt 2>&1
{ echo "=== gtest (all suites)"; timeout 300 $B/wgprim_tests --gtest_brief=1 2>&1 | grep -v "^\[ *OK\|^\[ RUN" | tail -30; echo "gtest rc=${PIPESTATUS[0]}"
  echo "=== cli"; timeout 100 bash tests/cli_test.sh $B/wgprim 2>&1 | tail -4; } > $OUT/suite.log 2>&1
timeout 40 $B/wgprim_floor --json --calls 300 > $OUT/floor.jsonl; echo floor rc=$?
timeout 120 $B/cub_bench --json --sizes 16,18,20,22,24,26,28 --primitives reduce,scan,memcpy --k 20 --reps 7 > $OUT/cub.jsonl; echo cub rc=$?
timeout 150 $B/wgprim bench --json --reps 7 --warmup 2 --batch 20 --min-log2 16 --max-log2 28 --primitives inclusive_scan,exclusive_scan,copy --algorithm decoupled > $OUT/wgprim.json; echo bench rc=$?
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --floor $OUT/floor.jsonl --command "devbuild/run_l.sh" > $OUT/compare.md 2>&1; echo compare rc=$?
tail -12 $OUT/suite.log
