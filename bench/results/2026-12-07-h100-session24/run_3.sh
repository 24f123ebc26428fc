#!/usr/bin/env bash
# Device call 3 of session 24 (H100): (1) the onesweep sweep refined: which of "2 scatter rounds" and "8 subgroup
# histograms" makes call 1's winner, where the workgroup-memory edge lies (pool 2,304 -> 2,560 words), and the
# same rows for 64-bit keys and pairs (bench rows, onesweep only); (2) the issue-24 family against CUB at 2^24 and
# 2^28 on this GPU (wall clock per call and K=10 batched).
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
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
{
  for rep in 1 2; do
    sweep "default" X=1
    sweep "rounds1 slots8" WGPRIM_ONESWEEP_SLOTS=8
    sweep "rounds2 slots8" WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8
    sweep "rounds2 slots4" WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=4
    sweep "rounds2 slots8 pool2560" WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8 WGPRIM_ONESWEEP_POOL=2560
    sweep "rounds2 slots8 pool2816" WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8 WGPRIM_ONESWEEP_POOL=2816
    ITEMS=16 sweep "rounds2 slots8 items16" WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8
    ITEMS=20 sweep "rounds4 slots8 items20" WGPRIM_ONESWEEP_ROUNDS=4 WGPRIM_ONESWEEP_SLOTS=8
    ITEMS=18 sweep "rounds3 slots8 items18" WGPRIM_ONESWEEP_ROUNDS=3 WGPRIM_ONESWEEP_SLOTS=8
  done
} > $OUT/sweep.txt 2>&1
cat $OUT/sweep.txt
rows() {  # label, then env assignments: bench rows of the onesweep sort (keys of every type, pairs) at 2^24
  local label=$1; shift
  env "$@" timeout 60 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 24 --max-log2 24 \
    --primitives sort_keys,sort_pairs --algorithm onesweep > $OUT/rows_$label.json 2>/dev/null || echo "rows $label rc=$?"
  python3 -c '
import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
  if r.get("primitive","").startswith("sort"): print(sys.argv[2], r.get("primitive"), r.get("type"), "gpu %.4f" % r.get("gpu_ms",0))' $OUT/rows_$label.json "$label"
}
rows default X=1
rows r2s8 WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8
rows r1s8 WGPRIM_ONESWEEP_SLOTS=8
rows r2s16 WGPRIM_ONESWEEP_ROUNDS=2
F=inclusive_scan,exclusive_scan,select_if,select_flagged,partition_if,unique,run_length_encode,reduce_by_key,histogram_even,segmented_reduce,segmented_scan,reduce,arg_max
timeout 120 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives $F,copy > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for n in 24 28; do
  timeout 100 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives $F,copy \
    > $OUT/fam_$n.json 2>/dev/null || echo "bench 2^$n rc=$?"
done
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/fam_24.json $OUT/fam_28.json 2>&1 | grep -v tiles | cut -c1-200
