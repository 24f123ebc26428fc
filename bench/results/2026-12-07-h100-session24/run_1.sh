#!/usr/bin/env bash
# H200 call 1 of session 23: the whole suite on the tree with session 22's GPU changes (select REVERSED, rle_heads as
# a grid-stride loop, the histogram's view path) and this session's onesweep scatter rounds (default 1: the kernel
# as before, less wg_start: 22.1 KiB of workgroup memory instead of 23.1); then the onesweep's workgroup-memory
# sweep: GPU ms of a u32 sort by scatter rounds x subgroup histograms (slots) x pool padding x keys per invocation.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
summary='import json,sys
try:
  d=json.load(sys.stdin); print(sys.argv[1], "%.4f ms" % d["gpu_ms"])
except Exception as e: print(sys.argv[1], "ERR", e)'
sweep() {  # label, then env assignments and extra sort options
  local label=$1; shift
  for n in ${SIZES:-67108864}; do
    env "$@" timeout 60 $B/wgprim sort --generate uniform:$n --type u32 --algorithm onesweep --repeat 9 --no-check \
      --json ${ITEMS:+--items $ITEMS} 2>/dev/null | python3 -c "$summary" "n=$n $label"
  done
}
# The key comparison first (the device time left may cut the call short), then the suite, then the rest.
{
  for rep in 1 2; do
    SIZES="16777216 67108864" sweep "default" X=1
    SIZES="16777216 67108864" sweep "rounds2 slots8" WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8
    sweep "rounds2 slots16" WGPRIM_ONESWEEP_ROUNDS=2
    sweep "rounds3 slots8" WGPRIM_ONESWEEP_ROUNDS=3 WGPRIM_ONESWEEP_SLOTS=8
  done
} > $OUT/sweep.txt 2>&1
cat $OUT/sweep.txt
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
grep -E "suite wall|PASSED|FAILED|Failure|passed" $OUT/suite.txt | head -30
{
  sweep "pool4864" WGPRIM_ONESWEEP_POOL=4864
  for pool in 3072 4096 4608; do
    sweep "rounds2 slots8 pool$pool" WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8 WGPRIM_ONESWEEP_POOL=$pool
  done
  for it in 20 22 24; do
    ITEMS=$it sweep "rounds2 slots8 items$it" WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8
  done
  ITEMS=24 sweep "rounds3 slots8 items24" WGPRIM_ONESWEEP_ROUNDS=3 WGPRIM_ONESWEEP_SLOTS=8
  ITEMS=24 sweep "rounds4 slots8 items24" WGPRIM_ONESWEEP_ROUNDS=4 WGPRIM_ONESWEEP_SLOTS=8
} > $OUT/sweep2.txt 2>&1
cat $OUT/sweep2.txt
