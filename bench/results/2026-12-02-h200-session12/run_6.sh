#!/usr/bin/env bash
# H200 call 6 (session 12), if call 5 could not be made (machines were not started; device time short): the whole
# test suite alone (bench/h200/suite.sh).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
. bench/h200/suite.sh
cat $OUT/gtest_*.log $OUT/cli.log > $OUT/suite.log; rm -f $OUT/gtest_*.log $OUT/cli.log
