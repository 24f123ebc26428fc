#!/usr/bin/env bash
# Session 26, after the suite and session 25's run_3.sh (~80 s): the exact sum's policy on a GPU (items per
# invocation x the register window, GPU ms at 2^28 against the fast sum: issue 24 wants >= 0.8x), then the
# segmented sort's phases at 2^28 (segments of 16: 0.39x CUB in session 25; where does the time go?).
set -u
. devbuild/setup.sh 2>/dev/null || true
D=bench/results/2026-12-07-session26
for acc in "fast" "reproducible"; do
  for it in 0 16 29; do
    for w in -1 1; do
      [ $acc = fast ] && [ $w = 1 ] && continue
      timeout 60 $B/wgprim reduce --generate mixed:268435456 --accuracy $acc --items $it --exact-window $w --repeat 9 --json 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print("exact", sys.argv[1], "items", sys.argv[2], "window", sys.argv[3], "gpu %.4f" % d["gpu_ms"], "matches_cpu", d.get("matches_cpu"))' $acc $it $w ||
        echo "exact $acc $it $w failed"
    done
  done
done
for seg in 16 1000; do
  python3 $D/offsets_npy.py 268435456 $seg /tmp/off$seg.npy
  timeout 90 $B/wgprim sort --generate uniform:268435456 --type u32 --segments /tmp/off$seg.npy --phases --repeat 5 --no-check --json 2>/dev/null |
    python3 -c '
import json,sys; d=json.load(sys.stdin)
print("segsort", sys.argv[1], "gpu %.4f" % d["gpu_ms"], "; ".join("%s %.4f" % (p["phase"], p["gpu_ms"]) for p in d["phases"] if not p["skipped"]))' $seg ||
    echo "segsort $seg failed"
done
# Occupancy: session 25's driver figures had the loops with 2 rounds and 8 slots at 80 registers and no local
# memory (three workgroups of 256 per SM instead of two), never timed. u32 at 2^26, GPU ms per sort.
for cfg in "X=1" "WGPRIM_UNROLL=0 WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8" \
           "WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8"; do
  for it in 0 12 15 24; do
    timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --algorithm onesweep --repeat 7 --no-check \
      --json --items $it 2>/dev/null |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print("[%s] items" % sys.argv[2], sys.argv[1], "%.4f ms" % d["gpu_ms"])' $it "$cfg"
  done
done
for cfg in "WGPRIM_UNROLL=0 WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8"; do
  for it in 12 24; do
    env $cfg VK_LAYER_PATH=$PWD/devbuild/vkstats VK_INSTANCE_LAYERS=VK_LAYER_WGPRIM_stats XDG_CACHE_HOME=$(mktemp -d) \
      timeout 60 $B/wgprim sort --generate uniform:100000 --type u32 --algorithm onesweep --items $it 2>&1 |
      grep -E "^vkstats onesweep.*(Register|Local)" | sed "s/^/[$cfg items $it] /"
  done
done
