#!/usr/bin/env bash
# H200 A/B of the onesweep ranking (issue 25 item 2): WGPRIM_ONESWEEP_RANK=ballot (eight subgroup ballots per key,
# the default) against counters (each subgroup's digit masks set with atomicOr in workgroup memory). Per variant:
# u32 and f32 keys at 2^24 and 2^28, per-phase GPU times (7 repeats), then the sort test suites on both variants.
# Run from the repository root on the device machine: outputs in $OUT (ab_rank.jsonl, tests_<variant>.txt, env.txt).
# KS="24 28" (the sizes' log2) and CHECK_N (the checked runs' size) may be lowered for a dry run on a CPU adapter.
set -u
. devbuild/setup.sh
OUT=${OUT:-$PWD/ab_rank_out}
mkdir -p "$OUT"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > "$OUT/env.txt" 2>&1
summary='import json,sys
d=json.load(sys.stdin)
print(json.dumps({"rank":sys.argv[1],"type":sys.argv[2],"n":d["n"],"gpu_ms":d["gpu_ms"],
                  "phases":[(p["phase"],round(p["gpu_ms"],4)) for p in d.get("phases",[])]}))'
{
for rank in ballot counters; do
  for k in ${KS:-24 28}; do
    for t in u32 f32; do
      WGPRIM_ONESWEEP_RANK=$rank timeout 120 "$B/wgprim" sort --generate uniform:$((1<<k)) --type $t --algorithm onesweep \
        --phases --repeat 7 --no-check --json | python3 -c "$summary" $rank $t \
        || echo "{\"rank\":\"$rank\",\"type\":\"$t\",\"k\":$k,\"failed\":true}"
    done
  done
done
# Checked runs (the CPU twin compares every key): one size past many tiles per variant and type.
for rank in ballot counters; do
  for t in u32 i32 f32; do
    echo "== $rank $t ${CHECK_N:-16777217} checked"
    WGPRIM_ONESWEEP_RANK=$rank timeout 120 "$B/wgprim" sort --generate uniform:${CHECK_N:-16777217} --type $t \
      --algorithm onesweep --repeat 2 2>&1 | tail -2
  done
done
} > "$OUT/ab_rank.jsonl" 2>&1
cat "$OUT/ab_rank.jsonl"
# The sort suites (both variants): Sort.* holds the onesweep tests (OnesweepRankCounters forces counters itself).
for rank in ballot counters; do
  WGPRIM_ONESWEEP_RANK=$rank timeout 150 "$B/wgprim_tests" --gtest_filter='Sort.*:*Onesweep*:*Stress*' \
    > "$OUT/tests_$rank.txt" 2>&1
  echo "tests $rank: rc $? $(grep -E '^\[  (PASSED|FAILED)  \]' "$OUT/tests_$rank.txt" | tr '\n' ' ')"
done
