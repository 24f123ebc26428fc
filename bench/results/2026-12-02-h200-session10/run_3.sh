#!/usr/bin/env bash
# H200 call 3 (session 10): the candidate tree (atomic ranking the GPU default; the scatter's sorted digits four to a
# word) (1) against a diagnostic build wgprim_np (not committed: no values path in the kernel, the ceiling of what
# fewer live registers in the scatter can give) and the ballot ranking, per-pass GPU time; (2) the sort rows against
# CUB in the same run (K = 10, median of 5): keys u32/f32, pairs, bits 0:16, chain, segmented sort; (3) the suite.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
summary='import json,sys
d=json.load(sys.stdin)
ps=[p["gpu_ms"] for p in d.get("phases",[]) if p["phase"].startswith("pass")]
print(json.dumps({"variant":sys.argv[1],"type":sys.argv[2],"k":int(sys.argv[3]),"gpu_ms":d["gpu_ms"],"pass_ms":[round(x,4) for x in ps]}))'
for k in 28 24; do for rep in 1 2; do for v in atomic np_atomic ballot; do
  bin=$B/wgprim; case $v in np_*) bin=$B/wgprim_np;; esac
  WGPRIM_ONESWEEP_RANK=${v#np_} timeout 60 $bin sort --generate uniform:$((1<<k)) --type u32 --algorithm onesweep --phases \
    --repeat 5 --no-check --json | python3 -c "$summary" $v u32 $k || echo "{\"variant\":\"$v\",\"k\":$k,\"failed\":true}"
done; done; done > $OUT/variants.jsonl 2>&1
cat $OUT/variants.jsonl
timeout 30 $B/wgprim_floor --json --calls 200 > $OUT/floor.jsonl; echo floor rc=$?
timeout 150 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 --primitives sort,chain > $OUT/cub.jsonl; echo cub rc=$?
for k in 20 24 28; do
  timeout 120 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k \
    --primitives sort_keys,sort_pairs,chain,segmented_sort_keys --sort-bits 0:16 > $OUT/wgprim_$k.json; echo bench $k rc=$?
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
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --floor $OUT/floor.jsonl --command "bench/results/2026-12-02-h200-session10/run_3.sh" > $OUT/compare.md 2>&1; echo compare rc=$?
grep -E "^## |^\| 2\^" $OUT/compare.md | cut -c1-170
t0=$(date +%s)
for s in 0 1 2; do
  GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$s timeout 300 $B/wgprim_tests --gtest_brief=1 > $OUT/gtest_$s.log 2>&1 &
done
{ echo "=== cli"; timeout 200 bash tests/cli_test.sh $B/wgprim 2>&1 | tail -3
  echo "=== cli_tune"; timeout 120 bash tests/tune_test.sh $B/wgprim 2>&1 | tail -3; } > $OUT/cli.log 2>&1
wait
echo "suite wall $(( $(date +%s) - t0 )) s"
for s in 0 1 2; do grep -E "PASSED|FAILED|Failure" $OUT/gtest_$s.log | head -12; done
cat $OUT/cli.log
