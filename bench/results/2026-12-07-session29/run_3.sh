#!/usr/bin/env bash
# Prepared for a later session (~150 s; carry [".gl", "devbuild"]): bigger onesweep tiles on NVIDIA. Call 1 found 21
# keys per invocation 5 % faster than the policy's 18 in 512-invocation tiles (u32 2^26), so the tile's fixed costs
# (zeroing and scanning the subgroup histograms, the look-back of 256 digits, the barriers) weigh. Past 21 keys the
# pool (one word per key) no longer fits 48 KiB; with 2 or 3 scatter rounds it holds a half or a third of the tile,
# while the ranking's counts and match words (32 KiB for 16 subgroups) set its size. Per (keys per invocation,
# rounds): the driver's registers and workgroup memory (bench/vkstats) and u32 2^26 GPU ms under `pair`; then u32
# pairs 2^24 for the rows that fit.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache WGPRIM_ONESWEEP_MATCH_CLEAR=pair
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1
for cfg in 18:1 21:1 24:2 26:2 28:2 30:2 32:2 24:3 30:3 18:1; do
  it=${cfg%:*} r=${cfg#*:}
  WGPRIM_ONESWEEP_ROUNDS=$r VK_LAYER_PATH=$PWD/devbuild/vkstats VK_INSTANCE_LAYERS=VK_LAYER_WGPRIM_stats \
    XDG_CACHE_HOME=$(mktemp -d) timeout 60 $B/wgprim sort --generate uniform:100000 --type u32 --algorithm onesweep \
    --items $it 2>&1 | grep -E "^vkstats onesweep.*(Register|Shared)" | sed "s/^/[512 x $it, $r rounds] /"
  WGPRIM_ONESWEEP_ROUNDS=$r timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --algorithm onesweep \
    --repeat 7 --items $it --json 2>&1 | tail -1 |
    python3 -c 'import json,sys; t=sys.stdin.read()
try:
    d=json.loads(t); print("sort", sys.argv[1], "u32 2^26 %.4f ms" % d["gpu_ms"], "mismatches", d.get("mismatches"))
except ValueError:
    print("sort", sys.argv[1], "refused:", t.strip()[:200])' "$it x $r"
  WGPRIM_ONESWEEP_ROUNDS=$r timeout 60 $B/wgprim bench --json --quiet --reps 3 --min-log2 24 --max-log2 24 \
    --primitives sort_pairs --algorithm onesweep --sort-tunes $it:1 2>/dev/null |
    python3 -c 'import json,sys; [print("sort", sys.argv[1], "u32 pairs 2^24 %.4f ms" % r["gpu_ms"]) for r in json.load(sys.stdin)["results"] if r["type"] == "u32" and "/i" in r["algorithm"]]' "$it x $r"
done
