#!/usr/bin/env bash
# H200 call 5 (session 9): the merged main. (1) The whole suite: wgprim_tests in three shards at once beside the CLI
# scripts. (2) wgprim against CUB, same run (K = 10, median of 5), for the rows this session changed: the chain
# (counted sort on the device count), segmented sort (short segments per workgroup), segmented scan and reduce.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
t0=$(date +%s)
for s in 0 1 2; do
  GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$s timeout 300 $B/wgprim_tests --gtest_brief=1 > $OUT/gtest_$s.log 2>&1 &
done
{ echo "=== cli"; timeout 200 bash tests/cli_test.sh $B/wgprim 2>&1 | tail -3
  echo "=== cli_reliability"; timeout 100 bash tests/cli_reliability_test.sh $B/wgprim 2>&1 | tail -3
  echo "=== cli_run"; timeout 60 bash tests/cli_run_test.sh $B/wgprim 2>&1 | tail -3
  echo "=== cli_tune"; timeout 120 bash tests/tune_test.sh $B/wgprim 2>&1 | tail -3; } > $OUT/cli.log 2>&1
wait
echo "suite wall $(( $(date +%s) - t0 )) s"
for s in 0 1 2; do grep -E "PASSED|FAILED|Failure" $OUT/gtest_$s.log | head -12; done
cat $OUT/cli.log
P=${P:-chain,segmented_sort_keys,segmented_scan,segmented_reduce}
timeout 30 $B/wgprim_floor --json --calls 200 > $OUT/floor.jsonl; echo floor rc=$?
timeout 120 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 --primitives ${CUBP:-chain,segmented_sort,segmented_scan,segmented_reduce} > $OUT/cub.jsonl; echo cub rc=$?
for k in 20 24 28; do
  WGPRIM_SORT_BITS=0:16 timeout 90 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives $P > $OUT/wgprim_$k.json; echo bench $k rc=$?
done
python3 - $OUT <<'PY'
import json, sys, glob
out = sys.argv[1]; docs = []
for f in sorted(glob.glob(f"{out}/wgprim_*.json")):
    try: docs.append(json.load(open(f)))
    except Exception as e: print(f, "unreadable:", e)
d = {kk: v for kk, v in docs[0].items() if kk != "results"} if docs else {}
d["results"] = [r for x in docs for r in x.get("results", [])]
json.dump(d, open(f"{out}/wgprim.json", "w"))
PY
rm -f $OUT/wgprim_*.json
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --floor $OUT/floor.jsonl --command "bench/results/2026-12-02-h200-session9/run_5.sh" > $OUT/compare.md 2>&1; echo compare rc=$?
grep -E "^## |^\| 2\^" $OUT/compare.md | cut -c1-160
# (3) Diagnostic for the onesweep bound (occupancy): keys per invocation 4, 8, 15 (default), 24 at 2^28 and 2^24,
# u32 keys, batched; fewer keys per invocation means fewer registers and more workgroups per SM.
for k in 24 28; do
  timeout 60 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives sort_keys \
    --algorithm onesweep --sort-tunes 4:1,8:1,15:1,24:1 > $OUT/items_$k.json; echo items $k rc=$?
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [print(r.get("algorithm"), r.get("n"), r.get("batched_ms", r.get("batch_ms")), r.get("gpu_ms")) for r in d["results"]]' $OUT/items_$k.json
done
