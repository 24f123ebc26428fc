#!/usr/bin/env bash
# Session 26, call 3 (~320 s): the sorts (and u32 keys on bits 0:16, issue 25 item 3) against CUB with NVIDIA's new row (32-bit keys in tiles of 512
# invocations), and the select family at 2^20 / 2^24 after the one-dispatch clear (carry and tile states in one
# workspace), wall clock per call and K = 10 batched, ratios by bench/h200/vs_cub.py.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1 | tee $OUT/env.txt
timeout 120 $B/cub_bench --json --no-check --sizes 20,24,28 --k 10 --reps 3 \
  --primitives sort_keys,sort_pairs,select_if,select_flagged,partition_if,unique > $OUT/cub.jsonl 2>&1
echo "cub rc=$?"
# Merges the bench files so far into w.json (the device tool returns 8 files at most) and prints the ratios.
ratios() {
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]; rows = []
for name in ("w_20", "w_24", "w_28", "w_s20", "w_s24"):
    try:
        rows += json.load(open(os.path.join(out, name + ".json")))["results"]
    except (OSError, ValueError, KeyError):
        pass
json.dump({"results": rows}, open(os.path.join(out, "w.json"), "w"))
PY
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/w.json --short | tee $OUT/ratios.txt
}
for n in 20 24 28; do
  timeout 110 $B/wgprim bench --json --quiet --reps 3 --batch 10 --min-log2 $n --max-log2 $n --primitives sort_keys,sort_pairs --sort-bits 0:16 \
    --algorithm onesweep > $OUT/w_$n.json 2>/dev/null || echo "sort 2^$n rc=$?"
done
ratios
# The exact sum with its tile loaded first (the default since 5a759d1) against the old walk, 2^28, GPU ms.
for lf in 1 0 1; do
  WGPRIM_EXACT_LOAD_FIRST=$lf timeout 60 $B/wgprim reduce --generate mixed:268435456 --accuracy reproducible --repeat 9 \
    --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print("exact load_first", sys.argv[1], "gpu %.4f" % d["gpu_ms"], "matches_cpu", d.get("matches_cpu"))' $lf
done
timeout 60 $B/wgprim reduce --generate mixed:268435456 --repeat 9 --json 2>/dev/null |
  python3 -c 'import json,sys; d=json.load(sys.stdin); print("fast sum gpu %.4f" % d["gpu_ms"])'
# Where a digit pass goes with the 512-invocation tiles (u32 2^26, GPU ms; the output unsorted when ablated).
for ab in none lookback scatter lookback,scatter; do
  env $( [ $ab != none ] && echo WGPRIM_ONESWEEP_ABLATE=$ab ) timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 \
    --algorithm onesweep --repeat 7 --no-check --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("ablate", sys.argv[1], "%.4f ms" % d["gpu_ms"])' $ab
done
# Last (the call may run out of time here): the select family at 2^20 / 2^24.
for n in 20 24; do
  timeout 40 $B/wgprim bench --json --quiet --reps 3 --batch 10 --min-log2 $n --max-log2 $n \
    --primitives select_if,select_flagged,partition_if,unique > $OUT/w_s$n.json 2>/dev/null || echo "select 2^$n rc=$?"
done
ratios
rm -f $OUT/w_*.json
