#!/usr/bin/env bash
# H200 call S1 (session 7): the onesweep branch A/B: the session-6 binary, the new one with 256-invocation tiles
# (the look-back on tile/lookback_core.wgsl alone) and with 512-invocation tiles (the default), look-back windows.
set -u
. devbuild/setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/env.txt 2>&1
date -u >> $OUT/env.txt
run() { # label binary env... args
  local label=$1 bin=$2; shift 2
  for k in 24 28; do
    env "$@" timeout 60 $B/$bin sort --generate uniform:$((1<<k)) --type u32 --phases --repeat 7 --no-check --json \
      | python3 -c "import json,sys; d=json.load(sys.stdin); print(json.dumps({'label':'$label','n':d['n'],'gpu_ms':d['gpu_ms'],'phases':[(p['phase'],round(p['gpu_ms'],4)) for p in d['phases']]}))"
  done
}
{
run s6 wgprim_s6 X=1
run new-wg256 wgprim WGPRIM_ONESWEEP_WG=256
run new-wg512 wgprim WGPRIM_ONESWEEP_WG=512
for w in 1 2 8; do
  for k in 24 28; do
    timeout 60 $B/wgprim sort --generate uniform:$((1<<k)) --type u32 --phases --repeat 7 --no-check --json --lookback-window $w \
      | python3 -c "import json,sys; d=json.load(sys.stdin); print(json.dumps({'label':'new-wg512-window$w','n':d['n'],'gpu_ms':d['gpu_ms'],'phases':[(p['phase'],round(p['gpu_ms'],4)) for p in d['phases']]}))"
  done
done
for t in u32 i32 f32; do timeout 60 $B/wgprim sort --generate uniform:16777217 --type $t --repeat 2 | tail -2; done
timeout 120 $B/wgprim sort --generate uniform:268435456 --type u32 --repeat 3 | tail -3
} > $OUT/sort_ab.jsonl 2>&1
cat $OUT/sort_ab.jsonl
