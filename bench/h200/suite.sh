#!/usr/bin/env bash
# The whole test suite on the H200 (device tool), into $OUT: wgprim_tests in three shards at once beside the CLI
# scripts. Sourced by a session's run_N.sh after devbuild/setup.sh (which sets $B, the carried binaries).
t0=$(date +%s)
for s in 0 1 2; do
  GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$s timeout 300 $B/wgprim_tests --gtest_brief=1 > $OUT/gtest_$s.log 2>&1 &
done
{ echo "=== cli"; timeout 200 bash tests/cli_test.sh $B/wgprim 2>&1 | grep -E "^FAIL|passed"
  echo "=== cli_reliability"; timeout 100 bash tests/cli_reliability_test.sh $B/wgprim 2>&1 | tail -3
  echo "=== cli_run"; timeout 60 bash tests/cli_run_test.sh $B/wgprim 2>&1 | tail -3
  echo "=== cli_tune"; timeout 120 bash tests/tune_test.sh $B/wgprim 2>&1 | tail -3; } > $OUT/cli.log 2>&1
wait
echo "suite wall $(( $(date +%s) - t0 )) s"
for s in 0 1 2; do grep -E "PASSED|FAILED|Failure" $OUT/gtest_$s.log | head -12; done
cat $OUT/cli.log
