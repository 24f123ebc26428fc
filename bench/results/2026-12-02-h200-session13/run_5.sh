#!/usr/bin/env bash
# H200 call 5 (session 13): the 256-bin histogram at 2^28 took 1.4-1.9 ms (GPU) in the full table's process and
# 0.34 ms alone (call 3). Which earlier case slows it: the same rows after different predecessors.
set -u
. devbuild/setup.sh
for prims in histogram_even arg_max,histogram_even reduce,histogram_even sort_pairs,histogram_even select_if,unique,histogram_even; do
  timeout 80 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 28 --max-log2 28 --primitives $prims > /tmp/h.json
  python3 bench/h200/rows.py /tmp/h.json | grep histogram | sed "s/^h /after $prims: /"
done | tee $OUT/order.txt
