#!/usr/bin/env bash
# H200 call 1 (session 9): the whole suite of main (the CPU twin renamed wgprim::reference, the Policy and tune
# fixes of session 8) in three gtest shards at once beside the CLI scripts, then the onesweep phase ablation
# (WGPRIM_ONESWEEP_ABLATE: per-pass GPU time with the rank, look-back and scatter phases left out in turn).
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
for s in 0 1 2; do grep -E "tests ran|PASSED|FAILED" $OUT/gtest_$s.log | head -8; done
cat $OUT/cli.log
summary='import json,sys
d=json.load(sys.stdin)
print(json.dumps({"ablate":sys.argv[1],"k":int(sys.argv[2]),"gpu_ms":d["gpu_ms"],
                  "phases":[(p["phase"],round(p["gpu_ms"],4)) for p in d.get("phases",[])]}))'
for k in 24 28; do
  for a in none rank lookback scatter rank,lookback scatter,lookback rank,scatter rank,lookback,scatter; do
    v=$a; [ $a = none ] && v=
    WGPRIM_ONESWEEP_ABLATE=$v timeout 60 $B/wgprim sort --generate uniform:$((1<<k)) --type u32 --algorithm onesweep \
      --phases --repeat 7 --no-check --json | python3 -c "$summary" $a $k || echo "{\"ablate\":\"$a\",\"k\":$k,\"failed\":true}"
  done
done > $OUT/ablate.jsonl 2>&1
cat $OUT/ablate.jsonl
