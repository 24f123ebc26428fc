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
