#!/usr/bin/env bash
# H200 call 4 (session 9): (a) early counts A/B: WGPRIM_ONESWEEP_EARLY=0 (counts published after ranking, as
# before) against 1 (before ranking, CUB's early counts; the new GPU default), u32 and f32 keys at 2^24 and 2^28,
# per-pass GPU time, and the sort suites and checked sorts under both. (b) What the ranking loop's time is made of:
# diagnostic builds of the CLI (wgprim_<v>, not committed; onesweep.wgsl of the commit before early counts, edited
# in one place each): b4 / b1 four / one ballot per key instead of eight (wrong ranks: timing only), noshfl no
# subgroupShuffle of the rank base; compared with EARLY=0 of the main binary (the same shader otherwise).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
summary='import json,sys
d=json.load(sys.stdin)
ps=[p["gpu_ms"] for p in d.get("phases",[]) if p["phase"].startswith("pass")]
print(json.dumps({"variant":sys.argv[1],"type":sys.argv[2],"k":int(sys.argv[3]),"gpu_ms":d["gpu_ms"],"pass_ms":[round(x,4) for x in ps]}))'
for k in 28 24; do for t in u32 f32; do for e in 0 1 0 1; do
  WGPRIM_ONESWEEP_EARLY=$e timeout 60 $B/wgprim sort --generate uniform:$((1<<k)) --type $t --algorithm onesweep --phases \
    --repeat 7 --no-check --json | python3 -c "$summary" early$e $t $k || echo "{\"variant\":\"early$e\",\"k\":$k,\"failed\":true}"
done; done; done > $OUT/early.jsonl 2>&1
cat $OUT/early.jsonl
for e in 0 1; do
  WGPRIM_ONESWEEP_EARLY=$e timeout 120 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort.*' > $OUT/tests_early$e.txt 2>&1
  echo "Sort.* early=$e: rc $? $(grep -E '^\[  (PASSED|FAILED)  \]' $OUT/tests_early$e.txt | tr '\n' ' ')"
  for t in u32 i32 f32; do
    WGPRIM_ONESWEEP_EARLY=$e timeout 60 $B/wgprim sort --generate uniform:16777217 --type $t --algorithm onesweep --repeat 1 2>&1 | grep -E "differ" | sed "s/^/early=$e $t 2^24+1: /"
  done
done
for k in 28; do for v in base b4 b1 noshfl; do
  bin=$B/wgprim_$v; [ $v = base ] && bin=$B/wgprim
  WGPRIM_ONESWEEP_EARLY=0 timeout 60 $bin sort --generate uniform:$((1<<k)) --type u32 --algorithm onesweep --phases --repeat 5 --no-check --json \
    | python3 -c "$summary" $v u32 $k || echo "{\"variant\":\"$v\",\"k\":$k,\"failed\":true}"
done; done > $OUT/variants.jsonl 2>&1
cat $OUT/variants.jsonl
