#!/usr/bin/env bash
# H200, session 23, with little device time left (every earlier try found no machine): the key rows of the
# onesweep sweep (default against 2 scatter rounds with 8 subgroup histograms), then the test suites whose GPU code
# changed since the last H200 suite run (sort, select / partition / unique, run-length encoding, histogram, views,
# reduce), three shards at once, then the whole suite if time is left.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
summary='import json,sys
try:
  d=json.load(sys.stdin); print(sys.argv[1], "%.4f ms" % d["gpu_ms"])
except Exception as e: print(sys.argv[1], "ERR", e)'
for rep in 1 2; do for n in 16777216 67108864; do
  for cfg in "default X=1" "rounds2_slots8 WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8"; do
    set -- $cfg; label=$1; shift
    env "$@" timeout 30 $B/wgprim sort --generate uniform:$n --type u32 --algorithm onesweep --repeat 9 --no-check --json \
      2>/dev/null | python3 -c "$summary" "n=$n $label"
  done
done; done | tee $OUT/sweep.txt
F='Sort.*:CountedSort.*:Select*:Partition*:Unique*:RunLength*:Rle*:Histogram*:Views.*:Reduce*:Pipeline*'
for s in 0 1 2; do
  GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$s timeout 150 $B/wgprim_tests --gtest_brief=1 --gtest_filter="$F" > $OUT/gtest_$s.log 2>&1 &
done
wait
for s in 0 1 2; do grep -E "tests from|PASSED|FAILED|Failure" $OUT/gtest_$s.log | head -8; done
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
grep -E "suite wall|PASSED|FAILED|Failure|passed" $OUT/suite.txt | head -30
