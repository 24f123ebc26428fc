#!/usr/bin/env bash
# H200 call 5 (session 10): the final tree. (1) The whole suite: wgprim_tests in three shards at once beside the CLI
# scripts. (2) The sort rows against CUB in the same run (K = 10, median of 5): keys u32/i32/f32, pairs, bits 0:16,
# the chain, segmented sort. (3) The distributed sort with its ranks on this one GPU (mpirun -np 1 and 2, 2^28 keys
# per rank) against the one-process sort of the same keys (2^28, 2^29), wall clock of the host-returning call.
# (4) wgprim_calls: queued reduces vs the encoder overload, a replayed five-step pipeline vs its queued runs.
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
timeout 30 $B/wgprim_floor --json --calls 200 > $OUT/floor.jsonl; echo floor rc=$?
timeout 120 $B/wgprim_calls --sizes 10,16,20,24 --calls 1000 --batch 20 --reps 7 --json > $OUT/calls.jsonl; echo calls rc=$?
cat $OUT/calls.jsonl
grep -E '"floor": "dispatch_read_(spin|block)"' $OUT/floor.jsonl | cut -c1-200
timeout 150 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 --primitives sort,chain > $OUT/cub.jsonl; echo cub rc=$?
for k in 20 24 28; do
  timeout 120 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k \
    --primitives sort_keys,sort_pairs,chain,segmented_sort_keys --sort-bits 0:16 > $OUT/bench_$k.json; echo bench $k rc=$?
done
python3 - $OUT <<'PY'
import json, sys, glob
out = sys.argv[1]; docs = []
for f in sorted(glob.glob(f"{out}/bench_*.json")):
    try: docs.append(json.load(open(f)))
    except Exception as e: print(f, "unreadable:", e)
d = {kk: v for kk, v in docs[0].items() if kk != "results"} if docs else {}
d["results"] = [r for x in docs for r in x.get("results", [])]
json.dump(d, open(f"{out}/wgprim.json", "w"))
PY
rm -f $OUT/bench_*.json
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --floor $OUT/floor.jsonl --command "bench/results/2026-12-02-h200-session10/run_5.sh" > $OUT/compare.md 2>&1; echo compare rc=$?
grep -E "^## |^\| 2\^" $OUT/compare.md | grep -v "reduce-then-scan" | cut -c1-170
# (3) distributed sort, ranks sharing GPU #0 (OpenMPI from unpacked Debian 12 packages in devbuild/mpi)
R=/tmp/mpiroot; for f in devbuild/mpi/*.deb; do dpkg -x $f $R; done
export OPAL_PREFIX=$R/usr PATH=$R/usr/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
       LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu:$R/usr/lib/x86_64-linux-gnu/openmpi/lib:$LD_LIBRARY_PATH
for n in 28 29; do
  timeout 120 $B/wgprim sort --generate uniform:$((1<<n)) --type u32 --adapter '#0' --no-check --json --repeat 3 \
    | tail -1 | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps({"what":"one process","n":j.get("n"),"algorithm":j.get("algorithm"),"gpu_ms_wall":j.get("gpu_ms"),"upload_ms":j.get("upload_ms")}))' || echo "one process 2^$n failed"
done >> $OUT/dist.jsonl 2>&1
for p in 1 2; do
  timeout 200 mpirun.openmpi --oversubscribe -np $p $B/wgprim sort --generate uniform:$((1<<28)) --per-rank --type u32 \
    --adapter "#0" --json --repeat 3 2> $OUT/mpi_$p.err | tail -1 > $OUT/mpi_$p.json; echo "mpi np=$p rc=$?"
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps({"what":"mpi","p":j["ranks"],"n":j["n"],"ms":j["ms"],"per_rank":[{k:r[k] for k in ("local_ms","comm_ms","ms","n_out")} for r in j["per_rank"]]}))' $OUT/mpi_$p.json >> $OUT/dist.jsonl 2>&1 || tail -3 $OUT/mpi_$p.err
done
cat $OUT/dist.jsonl
