#!/usr/bin/env bash
# H200 call 3 (session 9): the onesweep ranking A/B, ballot (a workgroup barrier after every key's step) against
# atomic (the same ballots; each digit's running count bumped with a workgroup atomicAdd whose old value is the
# rank base, no barrier per key): per-phase GPU time of u32 and f32 keys at 2^24 and 2^28, the sort suites under
# both, and checked sorts past many tiles.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
summary='import json,sys
d=json.load(sys.stdin)
print(json.dumps({"rank":sys.argv[1],"type":sys.argv[2],"k":int(sys.argv[3]),"gpu_ms":d["gpu_ms"],
                  "phases":[(p["phase"],round(p["gpu_ms"],4)) for p in d.get("phases",[])]}))'
for k in 24 28; do for t in u32 f32; do for rank in ballot atomic; do
  WGPRIM_ONESWEEP_RANK=$rank timeout 60 $B/wgprim sort --generate uniform:$((1<<k)) --type $t --algorithm onesweep \
    --phases --repeat 7 --no-check --json | python3 -c "$summary" $rank $t $k || echo "{\"rank\":\"$rank\",\"k\":$k,\"failed\":true}"
done; done; done > $OUT/ab.jsonl 2>&1
cat $OUT/ab.jsonl
for rank in ballot atomic; do
  WGPRIM_ONESWEEP_RANK=$rank timeout 120 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort.*' > $OUT/tests_$rank.txt 2>&1
  echo "Sort.* $rank: rc $? $(grep -E '^\[  (PASSED|FAILED)  \]' $OUT/tests_$rank.txt | tr '\n' ' ')"
  for t in u32 i32 f32; do
    WGPRIM_ONESWEEP_RANK=$rank timeout 60 $B/wgprim sort --generate uniform:16777217 --type $t --algorithm onesweep --repeat 1 2>&1 | grep -E "differ" | sed "s/^/$rank $t 2^24+1: /"
  done
done
