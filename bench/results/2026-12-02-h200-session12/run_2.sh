#!/usr/bin/env bash
# H200 call 2 (session 12): (1) the histogram's shortcut before any key check, against CUB (K = 10, median of 5);
# (2) the onesweep with loads and stores by buffer for keys and values (WGPRIM_ONESWEEP_IO=role), keys per
# invocation 15..20 (`--sort-tunes`), sort_keys and sort_pairs at 2^24 and 2^28, beside CUB from the same run.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
timeout 120 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 --primitives histogram_even,sort_keys,sort_pairs > $OUT/cub.jsonl; echo cub rc=$?
grep -h '"primitive"' $OUT/cub.jsonl | python3 -c '
import json,sys
for l in sys.stdin:
  r=json.loads(l); print("cub", r.get("primitive"), r.get("n"), r.get("type"), r.get("op"), "call %.4f batched %.4f gpu %.4f" % (r.get("call_ms",0), r.get("batched_ms",0), r.get("gpu_ms",0)))'
timeout 150 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 20 --max-log2 28 \
  --primitives histogram_even > $OUT/wgprim.json; echo bench rc=$?
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --command "bench/results/2026-12-02-h200-session12/run_2.sh" \
  > $OUT/compare.md 2>&1; echo compare rc=$?
grep -E "^## |^\| 2\^(20|24|28)" $OUT/compare.md | grep -v "Floor\|copy\|CUB only" | cut -c1-170
for lg in 24 28; do
  WGPRIM_ONESWEEP_IO=role timeout 200 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $lg --max-log2 $lg \
    --primitives sort_keys,sort_pairs --algorithm onesweep --sort-tunes 16:1,17:1,18:1,19:1,20:1 > $OUT/role_$lg.json
  echo bench $lg rc=$?
done
python3 bench/h200/rows.py $OUT/role_24.json $OUT/role_28.json | tee $OUT/sort_role.txt
rm -f $OUT/role_*.json
