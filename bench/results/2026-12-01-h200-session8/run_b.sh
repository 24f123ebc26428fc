#!/usr/bin/env bash
# H200 call B (session 8): floor, CUB and wgprim bench of every primitive at 2^20, 2^24 and 2^28 (K = 10 on both
# sides, median of 5), with the rows of issues 24/25/27 (segmented sort, comparator merge sort, chain), and the
# sort's phase table; one machine, one call.
set -u
. devbuild/setup.sh
P=reduce,inclusive_scan,exclusive_scan,copy,transform_reduce,arg_max,select_if,select_flagged,partition_if,unique,histogram_even,segmented_reduce,segmented_scan,segmented_sort_keys,reduce_by_key,run_length_encode,sort_pairs,chain
date -u > $OUT/when.txt
timeout 30 $B/wgprim_floor --json --calls 200 > $OUT/floor.jsonl; echo floor rc=$?
timeout 150 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 > $OUT/cub.jsonl; echo cub rc=$?
for k in 20 24 28; do
  lim=$(( k == 28 ? 150 : 70 ))
  WGPRIM_SORT_BITS=0:16 timeout $lim $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives $P > $OUT/wgprim_$k.json; echo bench $k rc=$?
  WGPRIM_SORT_BITS=0:16 timeout 30 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives sort_keys --algorithm onesweep > $OUT/wgprim_sort_$k.json; echo sort $k rc=$?
  timeout 30 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives sort_keys --algorithm merge > $OUT/wgprim_merge_$k.json; echo merge $k rc=$?
done
python3 - $OUT <<'PY'
import json, sys, glob
out = sys.argv[1]; docs = []
for f in sorted(glob.glob(f"{out}/wgprim_*.json")):
    try: docs.append(json.load(open(f)))
    except Exception as e: print(f, "unreadable:", e)
d = {kk: v for kk, v in docs[0].items() if kk != "results"} if docs else {}
d["results"] = [r for x in docs for r in x.get("results", [])]
json.dump(d, open(f"{out}/wgprim.json", "w"))
PY
rm -f $OUT/wgprim_*.json
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --floor $OUT/floor.jsonl --command "devbuild/run_b8.sh" > $OUT/compare.md 2>&1; echo compare rc=$?
for k in 24 28; do for t in u32 f32; do timeout 20 $B/wgprim sort --generate uniform:$((1<<k)) --type $t --phases --repeat 5 --no-check --json; done; done > $OUT/sort_phases.jsonl 2>&1; echo phases rc=$?
grep -E "^\| 2\^(24|28)" $OUT/compare.md | head -5
grep -c "" $OUT/compare.md
# the native soak again after the f32-sum fix (call A of this session found 194 segment sums past the bound)
SOAK_CASES=2000000 SOAK_SHARDS=15 SOAK_BACKENDS=native SOAK_SEED=20261207 timeout 80 bash scripts/soak.sh $B > $OUT/soak_native.txt 2>&1
echo "soak rc=$?" >> $OUT/soak_native.txt; tail -3 $OUT/soak_native.txt; grep -h MISMATCH $B/soak/*.log | head -20 > $OUT/soak_mismatches.txt
