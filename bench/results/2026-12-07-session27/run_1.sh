#!/usr/bin/env bash
# Session 27, call 1 (~420 s): the whole suite on the GPU (session 26's commits after 9a31328 and this session's
# match ranking have not run on one), then the onesweep's ranking by match words (WGPRIM_ONESWEEP_MATCH=1: a
# workgroup atomicOr per key and three subgroup barriers instead of eight ballots) against the ballots, A B A B, GPU
# ms per sort: u32 / f32 keys at 2^26 (`wgprim sort`), u32 / i64 keys and u32 pairs at 2^24 (`wgprim bench`), with
# NVIDIA's tiles (512 invocations for 32-bit keys, 256 for 64-bit) and with 256-invocation tiles and 8 histograms;
# the driver's registers and shared memory for each (vkstats); then the sort tests under the match ranking.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1 | tee $OUT/env.txt
. bench/h200/suite.sh
for cfg in "WGPRIM_ONESWEEP_MATCH=0" "WGPRIM_ONESWEEP_MATCH=1" "WGPRIM_ONESWEEP_MATCH=1 WGPRIM_ONESWEEP_WG=256 WGPRIM_ONESWEEP_SLOTS=8"; do
  env $cfg VK_LAYER_PATH=$PWD/devbuild/vkstats VK_INSTANCE_LAYERS=VK_LAYER_WGPRIM_stats XDG_CACHE_HOME=$(mktemp -d) \
    timeout 60 $B/wgprim sort --generate uniform:100000 --type u32 --algorithm onesweep 2>&1 |
    grep -E "^vkstats onesweep.*(Register|Shared)" | sed "s/^/[$cfg] /"
done
for rep in A B; do
  for cfg in "WGPRIM_ONESWEEP_MATCH=0" "WGPRIM_ONESWEEP_MATCH=1" \
             "WGPRIM_ONESWEEP_MATCH=0 WGPRIM_ONESWEEP_WG=256 WGPRIM_ONESWEEP_SLOTS=8" \
             "WGPRIM_ONESWEEP_MATCH=1 WGPRIM_ONESWEEP_WG=256 WGPRIM_ONESWEEP_SLOTS=8"; do
    for t in u32 f32; do
      for n in 67108864; do
        env $cfg timeout 60 $B/wgprim sort --generate uniform:$n --type $t --algorithm onesweep --repeat 7 --no-check \
          --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print("[%s] %s" % (sys.argv[3], sys.argv[4]), sys.argv[1], sys.argv[2], "%.4f ms" % d["gpu_ms"])' $t $n "$cfg" $rep
      done
    done
    env $cfg timeout 90 $B/wgprim bench --json --quiet --reps 3 --batch 5 --min-log2 24 --max-log2 24 \
      --primitives sort_keys,sort_pairs --algorithm onesweep > $OUT/s.json 2>/dev/null || echo "[$cfg] rc=$?"
    python3 -c '
import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
  if r["type"] not in ("u32", "i64"): continue
  print("[%s] %s" % (sys.argv[2], sys.argv[3]), r["primitive"], r["type"], r["n"], "gpu %.4f call %.4f b %.4f" % (r["gpu_ms"], r["call_ms"], r["batched_ms"]))' $OUT/s.json "$cfg" $rep
  done
done
rm -f $OUT/s.json
t0=$(date +%s)
WGPRIM_ONESWEEP_MATCH=1 timeout 150 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort*:CountedSort*:Pipeline*' \
  > $OUT/tests.log 2>&1; echo "tests under MATCH=1 rc=$? $(( $(date +%s) - t0 )) s"
grep -E "PASSED|FAILED|Failure" $OUT/tests.log | head -20
