#!/usr/bin/env bash
# H200 call 3 (session 12): the 256- and 4096-bin histogram's shape (WGPRIM_HISTOGRAM_AB: values per step, no run
# merging, and with no atomics as a floor) at 2^24 and 2^28, after a warm-up so that the GPU clocks are up (call 2's
# first sizes ran cold). K = 10, median of 7.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
timeout 60 $B/wgprim bench --json --reps 20 --warmup 5 --batch 10 --min-log2 28 --max-log2 28 --primitives copy > /dev/null
for v in default step8 nomerge step8,nomerge step4 step4,nomerge noatomic step8,noatomic default; do
  for lg in 24 28; do
    ab=$v; [ $v = default ] && ab=
    WGPRIM_HISTOGRAM_AB=$ab timeout 60 $B/wgprim bench --json --reps 7 --warmup 3 --batch 10 --min-log2 $lg --max-log2 $lg \
      --primitives histogram_even > $OUT/h_$v.json 2>/dev/null
    python3 bench/h200/rows.py $OUT/h_$v.json
  done
done | tee $OUT/hist_ab.txt
rm -f $OUT/h_*.json
