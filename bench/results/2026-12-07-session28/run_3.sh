#!/usr/bin/env bash
# Prepared for a later session (~150 s, after run_1.sh's suite or alone; carry [".gl", "devbuild"]): why the
# look-back passes lose at 2^24 but not at 2^20 or 2^28. H100 session 25, GPU ms (fam.json): inclusive scan u32 2^20
# 0.0164 / 2^24 0.0850 / 2^28 0.761 against the WGSL copy's 0.0161 / 0.0532 / 0.752: ~32 us more than the copy at
# 2^24 only; select_if 2^24 0.099 ms against 0.93 / 16 = 0.058 from its 2^28 time. Suspects: look-back fallbacks in
# the first waves (a predecessor still loading looks stalled after spin_limit polls and is recounted), the tile
# count, the pass's clear. Per log2 n: GPU ms and fallbacks at the policy's spin limit and at 4096 / 65536 polls,
# then tiles of 2 and 8 vec4 per invocation at 2^24, next to the copy kernel.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1
row() {  # label, then the command
  local label=$1; shift
  timeout 40 "$@" --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(sys.argv[1], "gpu %.4f" % d["gpu_ms"], "fallbacks", d.get("lookback_fallbacks"), "mismatches", d.get("mismatches"))' "$label"
}
for lg in 20 21 22 23 24 25 26 28; do
  n=$((1 << lg))
  for spin in 0 4096 65536; do
    row "scan u32 2^$lg spin $spin" $B/wgprim scan --generate uniform:$n --type u32 --repeat 9 --spin-limit $spin
    row "select_if f32 2^$lg spin $spin" $B/wgprim select --generate uniform:$n --type f32 --predicate 'a > 0.5' \
      --repeat 9 --spin-limit $spin
  done
done
for it in 1 2 4 8; do
  row "scan u32 2^24 items $it" $B/wgprim scan --generate uniform:16777216 --type u32 --repeat 9 --items $it
  row "select_if f32 2^24 items $it" $B/wgprim select --generate uniform:16777216 --type f32 --predicate 'a > 0.5' \
    --repeat 9 --items $it
done
timeout 60 $B/wgprim bench --json --quiet --reps 5 --min-log2 20 --max-log2 28 --primitives copy 2>/dev/null |
  python3 -c 'import json,sys; [print("copy", r["n"], "gpu %.4f" % r["gpu_ms"]) for r in json.load(sys.stdin)["results"]]'
