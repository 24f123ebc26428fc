#!/usr/bin/env bash
# H200 call A (session 6): the whole GoogleTest suite and the CLI scripts on the NVIDIA adapter.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -14; date -u; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
{ echo "=== gtest (all suites)"; timeout 420 $B/wgprim_tests --gtest_brief=1 2>&1 | grep -v "^\[ *OK\|^\[ RUN" | tail -60; echo "gtest rc=${PIPESTATUS[0]}"
  echo "=== cli"; timeout 100 bash tests/cli_test.sh $B/wgprim 2>&1 | tail -6
  echo "=== cli_reliability"; timeout 60 bash tests/cli_reliability_test.sh $B/wgprim 2>&1 | tail -6; } > $OUT/suite.log 2>&1
tail -40 $OUT/suite.log
