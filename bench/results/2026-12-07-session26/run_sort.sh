#!/usr/bin/env bash
# Session 26: session 25's run_3.sh with its 2^28 bench rows replaced by GPU time per sort at 2^26 for u32 and f32
# (`wgprim sort`; i64 and pairs keep `wgprim bench` at 2^24), to fit one call after the suite (~150 s).
# Session 25's header:
# Prepared in session 25 (not run: the device budget was spent; ~200 s): call 1 found the onesweep faster with tiles
# of 512 invocations (u32 2^26 3.408 vs 3.655 ms) and with keys held in registers (3.464), and 28 % of the sort in the
# look-back. Those two, alone and together, and early counts (WGPRIM_ONESWEEP_EARLY=1: tiles publish their digit
# counts before ranking, as CUB's) on every key type through `wgprim bench` (u32 / f32 / i64 keys, u32 pairs at
# 2^24 and 2^28), the driver's registers for each (vkstats), the look-back window under each, then the sort and
# pipeline tests under the winners (env overrides the policy). Then set the NVIDIA row (sort.wg_size,
# sort.reload_keys, sort.early_counts, sort.window) from what wins on every type.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1
for cfg in "WGPRIM_ONESWEEP_WG=512" "WGPRIM_ONESWEEP_WG=512 WGPRIM_ONESWEEP_RELOAD=0" "WGPRIM_ONESWEEP_EARLY=1"; do
  env $cfg VK_LAYER_PATH=$PWD/devbuild/vkstats VK_INSTANCE_LAYERS=VK_LAYER_WGPRIM_stats XDG_CACHE_HOME=$(mktemp -d) \
    timeout 60 $B/wgprim sort --generate uniform:100000 --type u32 --algorithm onesweep 2>&1 |
    grep -E "^vkstats onesweep.*(Register|Shared)" | sed "s/^/[$cfg] /"
done
for rep in 1; do
  for cfg in "X=1" "WGPRIM_ONESWEEP_WG=512" "WGPRIM_ONESWEEP_RELOAD=0" "WGPRIM_ONESWEEP_WG=512 WGPRIM_ONESWEEP_RELOAD=0" \
             "WGPRIM_ONESWEEP_EARLY=1" "WGPRIM_ONESWEEP_EARLY=1 WGPRIM_ONESWEEP_WG=512 WGPRIM_ONESWEEP_RELOAD=0"; do
    for n in 24; do
      env $cfg timeout 90 $B/wgprim bench --json --quiet --reps 3 --batch 5 --min-log2 $n --max-log2 $n \
        --primitives sort_keys,sort_pairs --algorithm onesweep > $OUT/s.json 2>/dev/null || echo "[$cfg] rc=$?"
      python3 -c '
import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
  print("[%s]" % sys.argv[2], r["primitive"], r["type"], r["n"], "gpu %.4f call %.4f b %.4f" % (r["gpu_ms"], r["call_ms"], r["batched_ms"]))' $OUT/s.json "$cfg"
    done
  done
done
rm -f $OUT/s.json
for cfg in "X=1" "WGPRIM_ONESWEEP_WG=512" "WGPRIM_ONESWEEP_RELOAD=0" "WGPRIM_ONESWEEP_WG=512 WGPRIM_ONESWEEP_RELOAD=0" \
           "WGPRIM_ONESWEEP_EARLY=1" "WGPRIM_ONESWEEP_EARLY=1 WGPRIM_ONESWEEP_WG=512 WGPRIM_ONESWEEP_RELOAD=0"; do
  for t in u32 f32; do
    env $cfg timeout 60 $B/wgprim sort --generate uniform:67108864 --type $t --algorithm onesweep --repeat 7 --no-check \
      --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print("[%s] 2^26" % sys.argv[2], sys.argv[1], "%.4f ms" % d["gpu_ms"])' $t "$cfg"
  done
done
# The look-back window, with the default tiles and with 512-invocation tiles and keys held (u32 at 2^26, GPU ms per
# sort), and how many look-backs fell back to counting a predecessor's tile.
for cfg in "X=1" "WGPRIM_ONESWEEP_WG=512 WGPRIM_ONESWEEP_RELOAD=0" "WGPRIM_ONESWEEP_EARLY=1" \
           "WGPRIM_ONESWEEP_EARLY=1 WGPRIM_ONESWEEP_WG=512 WGPRIM_ONESWEEP_RELOAD=0"; do
  for w in 1 2 4 8; do
    env $cfg timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --algorithm onesweep --repeat 7 \
      --no-check --json --lookback-window $w 2>/dev/null |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print("[%s] window" % sys.argv[2], sys.argv[1], "%.4f ms" % d["gpu_ms"], "fallbacks", d.get("lookback_fallbacks"))' $w "$cfg"
  done
done
t0=$(date +%s)
WGPRIM_ONESWEEP_EARLY=1 WGPRIM_ONESWEEP_WG=512 WGPRIM_ONESWEEP_RELOAD=0 timeout 200 $B/wgprim_tests --gtest_brief=1 \
  --gtest_filter='Sort*:CountedSort*:Pipeline*' > $OUT/tests.log 2>&1; echo "tests rc=$? $(( $(date +%s) - t0 )) s"
grep -E "PASSED|FAILED|Failure" $OUT/tests.log | head -20
