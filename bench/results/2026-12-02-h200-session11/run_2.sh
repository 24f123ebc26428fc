#!/usr/bin/env bash
# H200 call 2 (session 11): the merged sort_mid (registers + subgroup shuffles) and tiled comparator merge levels,
# and the memoised compositions. (1) Correctness: the sort, segmented and comparator suites and Reduce.* on the
# H200. (2) CUB rows (K = 10, median of 5) at 2^20, 2^24, 2^28 for segmented sort, merge sort, segmented
# reduce/scan, reduce-by-key, RLE, select, arg-max. (3) wgprim rows from the same run: segmented sort with
# WGPRIM_SORT_MID=memory (before) and the default (subgroups); merge sort as before (WGPRIM_COMPARATOR_MERGE=level,
# SORT_MID=memory), tiles only (level -> tile), and both (default); the per-call primitives at the default.
# (4) Segmented sort GPU time by segment length (wgprim sort --segments, timestamps, median of 5) at 2^24, 2^28.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
timeout 200 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort*:Segmented*:Comparator*:Counted*:Reduce.*:Select*:ArgReduce*' \
  > $OUT/gtest.log 2>&1; echo gtest rc=$?
grep -E "tests ran|PASSED|FAILED|Failure" $OUT/gtest.log | head -12
timeout 30 $B/wgprim_floor --json --calls 200 > $OUT/floor.jsonl; echo floor rc=$?
timeout 240 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 \
  --primitives segmented_sort,merge_sort,segmented_reduce,segmented_scan,reduce_by_key,run_length_encode,select_if,unique,arg_max \
  > $OUT/cub.jsonl; echo cub rc=$?
bench() {  # NAME PRIMITIVES [ALGORITHM] (environment from the caller)
  local name=$1 prims=$2 alg=${3:-}
  for k in 20 24 28; do
    timeout 100 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives $prims \
      ${alg:+--algorithm $alg} > $OUT/b_${name}_$k.json; echo "bench $name $k rc=$?"
  done
  python3 bench/h200/merge_bench.py $OUT/w_$name.json $OUT/b_${name}_*.json; rm -f $OUT/b_${name}_*.json
  python3 bench/compare.py $OUT/w_$name.json $OUT/cub.jsonl --floor $OUT/floor.jsonl \
    --command "bench/results/2026-12-02-h200-session11/run_2.sh ($name)" > $OUT/compare_$name.md 2>&1
  echo "### $name"; grep -E "^## |^\| 2\^" $OUT/compare_$name.md | grep -v "Floor\|copy" | cut -c1-150
}
WGPRIM_SORT_MID=memory bench segsort_memory segmented_sort_keys
bench segsort_new segmented_sort_keys
WGPRIM_SORT_MID=memory WGPRIM_COMPARATOR_MERGE=level bench merge_old sort_keys merge
WGPRIM_SORT_MID=memory bench merge_tile_only sort_keys merge
bench merge_new sort_keys merge
bench percall segmented_reduce,segmented_scan,reduce_by_key,run_length_encode,select_if,unique,arg_max
# GPU time by segment length (one submission: binning, short and mid sorts, counts back)
for lg in 24 28; do
  n=$((1<<lg))
  for len in 1 2 4 16 64 65 256 1000 2048; do
    python3 bench/h200/offsets_npy.py $n $len /tmp/offs.npy
    for mid in memory ""; do
      WGPRIM_SORT_MID=$mid timeout 60 $B/wgprim sort --generate uniform:$n --type u32 --segments /tmp/offs.npy --no-check \
        --repeat 5 --json 2>&1 | tail -1 | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps({"n":j["n"],"len":int(sys.argv[1]),"mid":sys.argv[2] or "default","gpu_ms":j["gpu_ms"],"timer":j.get("gpu_timer")}))' $len "$mid" \
        >> $OUT/seglen.jsonl 2>&1 || echo "len $len failed" >> $OUT/seglen.jsonl
    done
  done
done
cat $OUT/seglen.jsonl
