#!/usr/bin/env bash
# Prepared for the next session with device time (not run yet; name `kind: "nvidia-h200"` for the issue's H200
# figures): every row of issue 24's targets, the sorts of issue 25 and issue 27's chain against CUB in one call,
# wall clock per call and K = 10 batched, ratios by bench/h200/vs_cub.py (rows matched on primitive, type, n, and
# the bins / segment shape / reduce operator). ~400 s; the tool returns 8 files at most, so the JSON goes into 4.
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1 | tee $OUT/env.txt
F=inclusive_scan,exclusive_scan,select_if,select_flagged,partition_if,unique,run_length_encode,reduce_by_key,histogram_even,segmented_reduce,segmented_scan,reduce,arg_max,copy
S=sort_keys,sort_pairs,segmented_sort_keys,chain
# FAMILY_SIZES (log2, space-separated; default 16 20 24 28): the family's sizes (session 25 ran 20 24 28).
FAMILY_SIZES=${FAMILY_SIZES:-16 20 24 28}
timeout 150 $B/cub_bench --json --sizes $(echo $FAMILY_SIZES | tr ' ' ,) --k 10 --reps 5 --primitives $F,$S,merge_sort,segmented_sort > $OUT/cub.jsonl 2>&1
echo "cub rc=$?"
for n in $FAMILY_SIZES; do
  timeout 120 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives $F \
    > $OUT/fam_$n.json 2>/dev/null || echo "family 2^$n rc=$?"
done
for n in 20 24 28; do
  timeout 150 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives $S \
    > $OUT/sort_$n.json 2>/dev/null || echo "sorts 2^$n rc=$?"
done
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]
for group in ("fam", "sort"):
    rows = []
    for name in sorted(os.listdir(out)):
        if name.startswith(group + "_") and name.endswith(".json"):
            try:
                rows += json.load(open(os.path.join(out, name)))["results"]
            except (OSError, ValueError, KeyError) as e:
                print(name, "unreadable:", e)
            os.remove(os.path.join(out, name))
    json.dump({"results": rows}, open(os.path.join(out, group + ".json"), "w"))
PY
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/fam.json $OUT/sort.json --short 2>&1 | grep -v -E " (seed|render) " \
  | tee $OUT/ratios.txt
timeout 100 $B/wgprim bench --accuracy --json --quiet > $OUT/accuracy.json 2>/dev/null || echo "accuracy rc=$?"
