#!/usr/bin/env bash
# Session 26, call 2 (~300 s, right after call 1 on the warm machine): extra.sh (the exact sum's policy, the
# segmented sort's phases, the 80-register onesweep), then `wgprim tune --dry-run` for the primitives below 0.9x
# CUB at 2^28 (reduce, arg_reduce, select, partition): its tables show whether a policy change closes the gap.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1
bash bench/results/2026-12-07-session26/extra.sh
for p in reduce arg_reduce select partition; do
  timeout 90 $B/wgprim tune --primitives $p --dry-run > $OUT/tune_$p.txt 2>&1; echo "tune $p rc=$?"
  grep -v '^{' $OUT/tune_$p.txt | tail -25
done
