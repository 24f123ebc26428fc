#!/usr/bin/env bash
# H200 call 5 (session 14): (1) the sort and distributed suites on the final code (after call 4: the onesweep's
# 64-bit keys read again word by word when forced, and its test). (2) `wgprim bench` with its defaults, timed (issue
# 24 item 4: under a minute), with the warm-up floor of this session.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
timeout 200 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort.*:CountedSort.*:SegmentedSort.*:ComparatorSort.*:Multi*:Policy.*' > $OUT/gtest.log 2>&1
echo gtest rc=$?; grep -E "PASSED|FAILED|Failure|SKIPPED" $OUT/gtest.log | head
t0=$(date +%s.%N)
timeout 200 $B/wgprim bench --json --output $OUT/bench_default.json > /dev/null 2> $OUT/bench_default.err
echo "bench default rc=$? wall $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s, $(python3 -c "import json; print(len(json.load(open('$OUT/bench_default.json'))['results']))") rows"
