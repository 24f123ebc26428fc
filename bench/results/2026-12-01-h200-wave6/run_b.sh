#!/usr/bin/env bash
# H200 call B (session 6): floor, CUB and wgprim bench of every primitive at 2^20, 2^24 and 2^28 (K = 10 on both
# sides, median of 5), and the sort's phase table; one machine, one call.
set -u
. devbuild/setup.sh
P=reduce,inclusive_scan,exclusive_scan,copy,transform_reduce,arg_max,select_if,select_flagged,partition_if,unique,histogram_even,segmented_reduce,segmented_scan,reduce_by_key,run_length_encode,sort_keys,sort_pairs
date -u > $OUT/when.txt
timeout 30 $B/wgprim_floor --json --calls 200 > $OUT/floor.jsonl; echo floor rc=$?
timeout 150 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 > $OUT/cub.jsonl; echo cub rc=$?
for k in 20 24 28; do
  WGPRIM_SORT_BITS=0:16 timeout 150 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $k --max-log2 $k --primitives $P > $OUT/wgprim_$k.json; echo bench $k rc=$?
done
python3 - $OUT <<'PY'
import json, sys, os
out = sys.argv[1]; docs = []
for k in (20, 24, 28):
    try: docs.append(json.load(open(f"{out}/wgprim_{k}.json")))
    except Exception as e: print("bench", k, "unreadable:", e)
d = {kk: v for kk, v in docs[0].items() if kk != "results"} if docs else {}
d["results"] = [r for x in docs for r in x.get("results", [])]
json.dump(d, open(f"{out}/wgprim.json", "w"))
PY
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --floor $OUT/floor.jsonl --command "devbuild/run_b.sh" > $OUT/compare.md 2>&1; echo compare rc=$?
for k in 24 28; do for t in u32 f32; do timeout 60 $B/wgprim sort --generate uniform:$((1<<k)) --type $t --phases --repeat 5 --no-check --json; done; done > $OUT/sort_phases.jsonl 2>&1; echo phases rc=$?
rm -f $OUT/wgprim_2?.json
grep -E "^\| (select|unique|partition|seg|hist|reduce_by|run_len|sort|inclusive|exclusive|copy)" $OUT/compare.md | head -80
