#!/usr/bin/env bash
# H200 call C (session 8): per-call A/B of the one-submission read-backs and scratch workspaces (wgprim_old =
# 6b1cd3c, wgprim = this main), the onesweep ranking A/B (bench/results/ab_rank.sh, if present), then the whole
# suite of this main.
set -u
. devbuild/setup.sh
P=select_if,select_flagged,partition_if,unique,arg_max,reduce_by_key,run_length_encode,histogram_even,segmented_reduce,segmented_scan,reduce,inclusive_scan
for k in 20 24; do
  for b in wgprim_old wgprim; do
    timeout 60 $B/$b bench --json --reps 7 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives $P > $OUT/percall_${b}_$k.json; echo "$b $k rc=$?"
  done
done
for b in wgprim_old wgprim; do
  timeout 60 $B/$b bench --json --reps 7 --warmup 2 --batch 10 --min-log2 28 --max-log2 28 --primitives histogram_even > $OUT/percall_${b}_28.json; echo "$b 28 rc=$?"
done
python3 - $OUT <<'PY'
import json, sys
out = sys.argv[1]
for k in (20, 24, 28):
    try:
        o = json.load(open(f"{out}/percall_wgprim_old_{k}.json"))["results"]; n = json.load(open(f"{out}/percall_wgprim_{k}.json"))["results"]
    except Exception as e:
        print(k, e); continue
    key = lambda r: (r["primitive"], r["algorithm"], r["op"])
    om = {key(r): r for r in o}
    for r in n:
        a = om.get(key(r))
        if not a: continue
        print(f"2^{k} {r['primitive']:18s} {r['algorithm']:10s} {r['op'][:18]:18s} gpu {a.get('gpu_ms',0):.4f} -> {r.get('gpu_ms',0):.4f} call {a.get('call_ms',0):.4f} -> {r.get('call_ms',0):.4f}  batched {a.get('batched_ms',0):.4f} -> {r.get('batched_ms',0):.4f}  record {a.get('record_ms',0):.4f} -> {r.get('record_ms',0):.4f}")
PY
exit 0
[ -f bench/results/ab_rank.sh ] && timeout 200 bash bench/results/ab_rank.sh > $OUT/ab_rank.log 2>&1; echo "ab_rank rc=$?"; tail -30 $OUT/ab_rank.log 2>/dev/null
{ echo "=== gtest (all suites)"; timeout 330 $B/wgprim_tests --gtest_brief=1 2>&1 | grep -v "^\[ *OK\|^\[ RUN" | tail -40; echo "gtest rc=${PIPESTATUS[0]}"
  echo "=== cli"; timeout 100 bash tests/cli_test.sh $B/wgprim 2>&1 | tail -4
  echo "=== cli_reliability"; timeout 60 bash tests/cli_reliability_test.sh $B/wgprim 2>&1 | tail -4
  echo "=== cli_run"; timeout 40 bash tests/cli_run_test.sh $B/wgprim 2>&1 | tail -4; } > $OUT/suite.log 2>&1
tail -30 $OUT/suite.log
