#!/usr/bin/env bash
# H200 call 4 (session 11, diagnostic): sort_mid's workgroup size (WGPRIM_SORT_MID_WG = 64, 128, 256) for segments
# of 257 .. 2048 keys at 2^24 and 2^28 (GPU time, timestamps, median of 5), and the comparator sort `a > b` (whose
# block sort is the same kernel) at 2^24 and 2^28.
set -u
. devbuild/setup.sh
for lg in 24 28; do
  n=$((1<<lg))
  for len in 257 512 1000 2048; do
    python3 bench/h200/offsets_npy.py $n $len /tmp/offs.npy
    for wg in 64 128 256; do
      WGPRIM_SORT_MID_WG=$wg timeout 60 $B/wgprim sort --generate uniform:$n --type u32 --segments /tmp/offs.npy --no-check \
        --repeat 5 --json 2>&1 | tail -1 | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps({"n":j["n"],"len":int(sys.argv[1]),"wg":int(sys.argv[2]),"gpu_ms":j["gpu_ms"]}))' $len $wg
    done
  done
  for wg in 64 128 256; do
    WGPRIM_SORT_MID_WG=$wg timeout 60 $B/wgprim sort --generate uniform:$n --type u32 --less 'a > b' --no-check --repeat 5 --json 2>&1 \
      | tail -1 | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps({"n":j["n"],"less":"a > b","wg":int(sys.argv[1]),"gpu_ms":j["gpu_ms"]}))' $wg
  done
done
