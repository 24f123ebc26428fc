#!/usr/bin/env bash
# H200 call 1 of session 17: why the exact (reproducible) f32 sum runs at 0.21x of the fast sum at 2^28.
# `wgprim reduce` on generated data at 2^24 and 2^28, fast against reproducible with the policy's knobs swept
# (register window on/off, items per invocation, workgroups); GPU time by timestamps, median of 9.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
$B/wgprim info > $OUT/info.txt 2>&1; grep -i -E "binding|buffer|subgroup|workgroup" $OUT/info.txt | head -20
for lg in 24 28; do
  for data in prices mixed; do
    g="--generate $data:$((1 << lg)) --type f32 --repeat 9 --no-check"
    r=$(timeout 60 $B/wgprim reduce $g 2>&1 | grep "GPU time"); echo "2^$lg $data fast: $r"
    for win in 0 1; do
      for items in 4 8 16; do
        for wg in 0 2048; do
          r=$(timeout 60 $B/wgprim reduce $g --accuracy reproducible --exact-window $win --items $items --workgroups $wg 2>&1 | grep -E "GPU time|rror")
          echo "2^$lg $data repro window $win items $items workgroups $wg: $r"
        done
      done
    done
  done
done 2>&1 | tee $OUT/grid.txt
