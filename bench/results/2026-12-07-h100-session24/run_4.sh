#!/usr/bin/env bash
# Device call 4 of session 24 (H100): the NVIDIA row's onesweep (2 scatter rounds, 8 subgroup histograms for
# 32-bit keys) (1) the sweep rows call 3 lost (its file count passed the tool's 8), (2) the whole suite, (3) sort keys
# and pairs against CUB at 2^24 and 2^28.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
summary='import json,sys
try:
  d=json.load(sys.stdin); print(sys.argv[1], "%.4f ms" % d["gpu_ms"])
except Exception as e: print(sys.argv[1], "ERR", e)'
sweep() {  # label, then env assignments
  local label=$1; shift
  for n in ${SIZES:-67108864}; do
    env "$@" timeout 60 $B/wgprim sort --generate uniform:$n --type u32 --algorithm onesweep --repeat 9 --no-check \
      --json ${ITEMS:+--items $ITEMS} 2>/dev/null | python3 -c "$summary" "n=$n $label"
  done
}
for rep in 1 2; do
  sweep "default(now r2 s8)" X=1
  sweep "rounds1 slots16" WGPRIM_ONESWEEP_ROUNDS=1 WGPRIM_ONESWEEP_SLOTS=16
  sweep "rounds2 slots4" WGPRIM_ONESWEEP_SLOTS=4
  sweep "rounds2 slots8 pool2560" WGPRIM_ONESWEEP_POOL=2560
  sweep "rounds2 slots8 pool2816" WGPRIM_ONESWEEP_POOL=2816
  ITEMS=16 sweep "rounds2 slots8 items16" X=1
  ITEMS=20 sweep "rounds4 slots8 items20" WGPRIM_ONESWEEP_ROUNDS=4
  ITEMS=18 sweep "rounds3 slots8 items18" WGPRIM_ONESWEEP_ROUNDS=3
done
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
grep -E "suite wall|PASSED|FAILED|Failure|passed" $OUT/suite.txt | head -30
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives sort_keys,sort_pairs > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for n in 24 28; do
  timeout 90 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --algorithm onesweep \
    --primitives sort_keys,sort_pairs > $OUT/sort_$n.json 2>/dev/null || echo "bench 2^$n rc=$?"
done
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/sort_24.json $OUT/sort_28.json 2>&1 | cut -c1-230
