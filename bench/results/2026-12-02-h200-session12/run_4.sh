#!/usr/bin/env bash
# H200 call 4 (session 12), after a warm-up: (1) the histogram's vec4 loads (the new default) against its A/B
# variants (loads per step 2 / 8, no run merging, scalar loads) at 2^24 and 2^28; (2) the sort's new defaults
# (loads by buffer, 18 keys per invocation); (3) what recording one call costs the host (record_ms) for the
# scan family at 2^24. K = 10, median of 7.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
timeout 60 $B/wgprim bench --json --reps 20 --warmup 5 --batch 10 --min-log2 28 --max-log2 28 --primitives copy > /dev/null
for v in default step2 step8 nomerge step8,nomerge scalar default; do
  for lg in 24 28; do
    ab=$v; [ $v = default ] && ab=
    WGPRIM_HISTOGRAM_AB=$ab timeout 60 $B/wgprim bench --json --reps 7 --warmup 3 --batch 10 --min-log2 $lg --max-log2 $lg \
      --primitives histogram_even > $OUT/h_$v.json 2>/dev/null
    python3 bench/h200/rows.py $OUT/h_$v.json
  done
done | tee $OUT/hist_ab.txt
rm -f $OUT/h_*.json
for lg in 24 28; do
  timeout 120 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $lg --max-log2 $lg \
    --primitives sort_keys,sort_pairs --algorithm onesweep > $OUT/s_$lg.json
  python3 bench/h200/rows.py $OUT/s_$lg.json
done | tee $OUT/sort.txt
timeout 120 $B/wgprim bench --json --reps 7 --warmup 3 --batch 10 --min-log2 24 --max-log2 24 \
  --primitives inclusive_scan,select_if,unique,run_length_encode,reduce_by_key,segmented_reduce,segmented_scan > $OUT/r24.json
python3 -c '
import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
  print("%-18s %-11s %-4s %-14s rec %.4f batched %.4f call %.4f gpu %.4f" % (r["primitive"], r["algorithm"], r["type"], r["op"][:14], r.get("record_ms",0), r.get("batched_ms",0), r.get("call_ms",0), r["gpu_ms"]))' $OUT/r24.json | tee $OUT/record24.txt
rm -f $OUT/s_*.json $OUT/r24.json
