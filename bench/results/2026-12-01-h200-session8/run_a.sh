#!/usr/bin/env bash
# H200 call A (session 7): the whole GoogleTest suite and the CLI scripts on the NVIDIA adapter, while the six
# libFuzzer harnesses run on the CPU cores (2 workers each, 300 s: an hour of fuzzing), then the native soak.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -14; date -u; nproc; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
tar -xJf devbuild/fuzz.tar.xz -C /tmp
( FUZZ_SECONDS=300 FUZZ_JOBS=2 bash scripts/soak_fuzz.sh /tmp/fz > $OUT/fuzz.txt 2>&1; echo "fuzz rc=$?" >> $OUT/fuzz.txt ) &
fz=$!
{ echo "=== gtest (all suites)"; timeout 420 $B/wgprim_tests --gtest_brief=1 2>&1 | grep -v "^\[ *OK\|^\[ RUN" | tail -60; echo "gtest rc=${PIPESTATUS[0]}"
  echo "=== cli"; timeout 150 bash tests/cli_test.sh $B/wgprim 2>&1 | tail -8
  echo "=== cli_reliability"; timeout 90 bash tests/cli_reliability_test.sh $B/wgprim 2>&1 | tail -6
  echo "=== cli_run"; timeout 60 bash tests/cli_run_test.sh $B/wgprim 2>&1 | tail -6; } > $OUT/suite.log 2>&1
wait $fz
tail -9 $OUT/fuzz.txt
SOAK_CASES=2000000 SOAK_SHARDS=15 SOAK_BACKENDS=native SOAK_SEED=20261207 timeout 200 bash scripts/soak.sh $B > $OUT/soak_native.txt 2>&1
echo "soak rc=$?" >> $OUT/soak_native.txt
tail -40 $OUT/suite.log; tail -4 $OUT/soak_native.txt
for f in /tmp/fz/fuzz-long-*.log; do tail -3 $f; done > $OUT/fuzz_logs_tail.txt 2>&1
