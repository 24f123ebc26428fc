#!/usr/bin/env bash
# Prepared for the next session with device time (not run yet): the onesweep with its loops written out (the
# default since session 24) re-tuned, since writing the loops out changed its registers: keys per invocation 14-24,
# 2 vs 1 rounds at the larger tiles, 8 vs 16 slots, tiles of 512 invocations, keys held instead of read again; then the per-phase split (ablations:
# rank, look-back, scatter skipped in turn; the output is then not sorted) at 2^26. GPU ms per u32 sort, A B A B.
# Carry [".gl","devbuild"] after `bash bench/h200/pack.sh`; ~120 s.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1
summary='import json,sys
try:
  d=json.load(sys.stdin); print(sys.argv[1], "%.4f ms" % d["gpu_ms"])
except Exception as e: print(sys.argv[1], "ERR", e)'
row() {  # label, items (0: the policy's), then env assignments
  local label=$1 items=$2; shift 2
  for n in 16777216 67108864; do
    env "$@" timeout 60 $B/wgprim sort --generate uniform:$n --type u32 --algorithm onesweep --repeat 9 --no-check \
      --json --items $items 2>/dev/null | python3 -c "$summary" "n=$n $label"
  done
}
# The driver's own figures per variant (registers, shared and local memory, spills: bench/vkstats), when packed.
if [ -f devbuild/vkstats/libvkstats_layer.so ]; then
  for cfg in "X=1" "WGPRIM_UNROLL=0" "WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8" \
             "WGPRIM_UNROLL=0 WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8" "WGPRIM_ONESWEEP_RELOAD=0"; do
    env $cfg VK_LAYER_PATH=$PWD/devbuild/vkstats VK_INSTANCE_LAYERS=VK_LAYER_WGPRIM_stats XDG_CACHE_HOME=$(mktemp -d) \
      timeout 60 $B/wgprim sort --generate uniform:100000 --type u32 --algorithm onesweep 2>&1 |
      grep -E "^vkstats(:| onesweep)" | sed "s/^/[$cfg] /"
  done
fi
for rep in 1 2; do
  row "default" 0 X=1
  for it in 14 16 20 22 24; do row "items$it" $it X=1; done
  row "items24 rounds2" 24 WGPRIM_ONESWEEP_ROUNDS=2
  row "items22 rounds2 slots8" 22 WGPRIM_ONESWEEP_ROUNDS=2 WGPRIM_ONESWEEP_SLOTS=8
  row "slots8" 0 WGPRIM_ONESWEEP_SLOTS=8
  row "wg512" 0 WGPRIM_ONESWEEP_WG=512
  row "loops" 0 WGPRIM_UNROLL=0
  # Keys held in registers for the scatter instead of read again: reloading won on the H200 (session 14) while the
  # loops likely kept the arrays in local memory; written out, holding them may pay.
  row "held" 0 WGPRIM_ONESWEEP_RELOAD=0
  row "held items16" 16 WGPRIM_ONESWEEP_RELOAD=0
  row "held items14" 14 WGPRIM_ONESWEEP_RELOAD=0
done
for ab in rank lookback scatter; do row "ablate-$ab" 0 WGPRIM_ONESWEEP_ABLATE=$ab; done
# The select family with its loops written out (select.unroll, off by default) against the loops, at 2^24 and 2^28.
for rep in 1 2; do
  for u in 0 1; do
    for n in 24 28; do
      WGPRIM_UNROLL=$u timeout 60 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n \
        --primitives select_if,select_flagged,partition_if,unique --algorithm decoupled > $OUT/sel.json 2>/dev/null || echo "select rc=$?"
      python3 -c '
import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
  if r["primitive"] != "copy": print("unroll", sys.argv[2], r["n"], r["primitive"], r["type"], r["algorithm"], "gpu %.4f call %.4f b %.4f" % (r["gpu_ms"], r["call_ms"], r["batched_ms"]))' $OUT/sel.json $u
    done
  done
done
