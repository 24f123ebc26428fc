#!/usr/bin/env bash
# (Not run in session 20: the device budget was spent; for the next session, after `bash bench/h200/pack.sh`.)
# H200 call 6 of session 20: `wgprim tune` with the new tunables (scan layouts, unique, partition) on the GPU: does
# it find the rows this session chose by hand (scan raked 4, unique direct, partition staged 2)? Dry runs only. Then
# the 64-bit scan's look-back fallbacks.
set -u
. devbuild/setup.sh
export XDG_CACHE_HOME=/tmp/wgprim-cache
timeout 100 $B/wgprim tune --primitives scan,select,unique,partition --dry-run 2>&1 | grep -v '^ *"' | head -60
# Where the 64-bit scan's time goes (session 20: i64 at 2^28 3.44 ms, CUB 1.24, u32 0.66): its look-back fallbacks
# (four state words per tile, each a separate atomic) and the spin limit, next to u32.
for t in u32 i64; do for spin in 256 4096; do
  echo "== $t spin $spin"
  timeout 60 $B/wgprim scan --generate uniform:268435456 --type $t --repeat 7 --spin-limit $spin --json 2>/dev/null |
    python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["gpu_ms"], "ms,", j["lookback_fallbacks"], "fallbacks in", j["runs"], "runs, mismatches", j["mismatches"])'
done; done
