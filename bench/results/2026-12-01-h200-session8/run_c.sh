#!/usr/bin/env bash
# H200 call C (session 8): the onesweep ranking A/B (bench/results/ab_rank.sh), then the whole suite and the CLI
# scripts of the merged main (backend table, one-submission read-backs, queued calls, zip view, Python pipeline,
# policies / tune).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
{ echo "=== gtest (all suites)"; timeout 330 $B/wgprim_tests --gtest_brief=1 2>&1 | grep -v "^\[ *OK\|^\[ RUN" | tail -40; echo "gtest rc=${PIPESTATUS[0]}"
  echo "=== cli"; timeout 100 bash tests/cli_test.sh $B/wgprim 2>&1 | tail -4
  echo "=== cli_reliability"; timeout 60 bash tests/cli_reliability_test.sh $B/wgprim 2>&1 | tail -4
  echo "=== cli_run"; timeout 40 bash tests/cli_run_test.sh $B/wgprim 2>&1 | tail -4
  [ -f tests/tune_test.sh ] && { echo "=== cli_tune"; timeout 90 bash tests/tune_test.sh $B/wgprim 2>&1 | tail -4; }
  echo "=== tune --quick"; timeout 90 $B/wgprim tune --quick --dry-run 2>&1 | tail -30; } > $OUT/suite.log 2>&1
tail -45 $OUT/suite.log
OUT=$OUT RANKS_TESTED=counters timeout 200 bash bench/results/ab_rank.sh > $OUT/ab_rank_run.log 2>&1; echo "ab_rank rc=$?"
grep -v '^{' $OUT/ab_rank.jsonl | tail -20; tail -3 $OUT/ab_rank_run.log
