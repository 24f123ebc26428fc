#!/usr/bin/env bash
# Session 28 (the prepared call 3 of session 27, with `pair` in the clear A/B; ~430 s): NVIDIA's row with the match ranking (sort.rank_match on; the histograms cut to what fits
# beside the words: 16 for tiles of 512 x 18, 9 for 256 x 18 and 64-bit keys): the sort, pipeline and policy tests,
# the sorts (every key type, pairs, bits 0:16) and the chain (issue 27) against CUB at 2^20 / 2^24 / 2^28, wall
# clock per call and K = 10 batched, ratios by bench/h200/vs_cub.py; then (most important first, the call may end
# early) the two ways of clearing the match words, keys held, keys per invocation, the exact sum's items and
# workgroups, tiles of 256 with fewer keys (u32 2^26 GPU ms).
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1 | tee $OUT/env.txt
$B/wgprim info --json | grep -E '"sort\.(rank_match|slots|wg_size)'
t0=$(date +%s)
timeout 150 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort*:CountedSort*:Pipeline*:Policy*' > $OUT/tests.log 2>&1
echo "tests rc=$? $(( $(date +%s) - t0 )) s"
grep -E "PASSED|FAILED|Failure" $OUT/tests.log | head -20
timeout 120 $B/cub_bench --json --no-check --sizes 20,24,28 --k 10 --reps 3 --primitives sort_keys,sort_pairs,chain \
  > $OUT/cub.jsonl 2>&1
echo "cub rc=$?"
for n in 20 24 28; do
  timeout 110 $B/wgprim bench --json --quiet --reps 3 --batch 10 --min-log2 $n --max-log2 $n \
    --primitives sort_keys,sort_pairs --sort-bits 0:16 --algorithm onesweep > $OUT/w_$n.json 2>/dev/null || echo "2^$n rc=$?"
  timeout 60 $B/wgprim bench --json --quiet --reps 3 --batch 10 --min-log2 $n --max-log2 $n \
    --primitives chain > $OUT/w_c$n.json 2>/dev/null || echo "chain 2^$n rc=$?"
done
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]; rows = []
for name in ("w_20", "w_24", "w_28", "w_c20", "w_c24", "w_c28"):
    try:
        rows += json.load(open(os.path.join(out, name + ".json")))["results"]
    except (OSError, ValueError, KeyError):
        pass
json.dump({"results": rows}, open(os.path.join(out, "w.json"), "w"))
PY
rm -f $OUT/w_*.json
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/w.json --short | tee $OUT/ratios.txt
# How the match words are cleared (WGPRIM_ONESWEEP_MATCH_CLEAR): the lowest peer after a third subgroup barrier, or
# every lane its own bit with no third barrier; A B A B, GPU ms per sort.
for rep in A B; do
  for cl in leader own pair; do
    WGPRIM_ONESWEEP_MATCH_CLEAR=$cl timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --algorithm onesweep \
      --repeat 7 --no-check --json 2>/dev/null |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print("clear", sys.argv[1], sys.argv[2], "u32 2^26 %.4f ms" % d["gpu_ms"])' $cl $rep
  done
done
# Keys per invocation with match words (98 registers; tiles of 512, u32 2^26, GPU ms): fewer tiles, fewer look-backs.
for it in 18 16 20 21 18; do
  timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --algorithm onesweep --repeat 7 --no-check --items $it \
    --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print("sort items", sys.argv[1], "u32 2^26 %.4f ms" % d["gpu_ms"])' $it
done
# Keys held through the pass instead of read again for the scatter (WGPRIM_ONESWEEP_RELOAD=0), with match words.
for rl in 0 1 0 1; do
  WGPRIM_ONESWEEP_RELOAD=$rl timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --algorithm onesweep --repeat 7 \
    --no-check --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("sort reload", sys.argv[1], "u32 2^26 %.4f ms" % d["gpu_ms"])' $rl
done
# The exact sum with its tile loaded first: keys per invocation and workgroups (2^28 mixed f32, GPU ms; the policy:
# items 8, the fast reduce's workgroups), and the fast sum.
for it in 8 4 12 16 24 8; do
  timeout 40 $B/wgprim reduce --generate mixed:268435456 --accuracy reproducible --repeat 9 --items $it --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("exact items", sys.argv[1], "gpu %.4f" % d["gpu_ms"], d.get("matches_cpu"))' $it
done
for wg in 256 512 2048 4096; do
  timeout 40 $B/wgprim reduce --generate mixed:268435456 --accuracy reproducible --repeat 9 --workgroups $wg --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("exact workgroups", sys.argv[1], "gpu %.4f" % d["gpu_ms"], d.get("matches_cpu"))' $wg
done
timeout 40 $B/wgprim reduce --generate mixed:268435456 --repeat 9 --json 2>/dev/null |
  python3 -c 'import json,sys; d=json.load(sys.stdin); print("fast sum gpu %.4f" % d["gpu_ms"])'
# Occupancy: tiles of 256 with fewer keys per invocation (fewer registers: 3 workgroups an SM need <= 85), u32 2^26.
for it in 18 16 14 12; do
  WGPRIM_ONESWEEP_WG=256 VK_LAYER_PATH=$PWD/devbuild/vkstats VK_INSTANCE_LAYERS=VK_LAYER_WGPRIM_stats XDG_CACHE_HOME=$(mktemp -d) \
    timeout 60 $B/wgprim sort --generate uniform:100000 --type u32 --algorithm onesweep --items $it 2>&1 |
    grep -E "^vkstats onesweep.*(Register|Shared)" | sed "s/^/[256 x $it] /"
  WGPRIM_ONESWEEP_WG=256 timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --algorithm onesweep --repeat 7 \
    --no-check --items $it --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("sort 256 x", sys.argv[1], "u32 2^26 %.4f ms" % d["gpu_ms"])' $it
done
