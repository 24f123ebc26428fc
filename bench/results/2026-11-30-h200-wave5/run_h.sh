#!/usr/bin/env bash
# H200 call (session 5, second): floor, CUB and wgprim bench with K = 20 (immediates, mapped result, kept pass,
# in-pass state clear), scan tile layouts via WGPRIM_SCAN_TUNES, A/B with immediates + mapped result off, then
# the whole GoogleTest suite.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -8; date -u; } > $OUT/env.txt 2>&1
timeout 40 $B/wgprim_floor --json --calls 300 > $OUT/floor.jsonl; echo floor rc=$?
timeout 120 $B/cub_bench --json --sizes 16,20,24,28 --primitives reduce,scan,memcpy --k 20 --reps 5 > $OUT/cub.jsonl; echo cub rc=$?
WGPRIM_SCAN_TUNES=direct:4,raked:2,raked:4,raked:8 timeout 240 $B/wgprim bench --json --reps 5 --warmup 2 --batch 20 --min-log2 16 --max-log2 28 --primitives reduce,inclusive_scan,copy > $OUT/on.json; echo on rc=$?
WGPRIM_IMMEDIATES=0 WGPRIM_MAPPED_RESULT=0 timeout 100 $B/wgprim bench --json --reps 5 --warmup 2 --batch 20 --min-log2 16 --max-log2 28 --primitives reduce,inclusive_scan --algorithm single > $OUT/off_reduce.json; echo off rc=$?
python3 bench/compare.py $OUT/on.json $OUT/cub.jsonl --floor $OUT/floor.jsonl > $OUT/compare_on.md 2>&1; echo compare rc=$?
{ echo "=== gtest (all suites)"; timeout 300 $B/wgprim_tests --gtest_brief=1 2>&1 | grep -v "^\[ *OK\|^\[ RUN" | tail -30; echo "gtest rc=${PIPESTATUS[0]}"; } > $OUT/suite.log 2>&1
tail -8 $OUT/suite.log
