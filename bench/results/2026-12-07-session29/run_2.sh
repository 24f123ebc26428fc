#!/usr/bin/env bash
# Session 29, call 2 (~230 s, or LIMIT; carry [".gl", "devbuild"]). Call 1 (run_1.sh of session 28) found on the H100: the
# `pair` clear of the match words 1 % faster than `leader` (u32 2^26 3.116 / 3.145 ms, both rounds), and 21 keys per
# invocation 5 % faster than the policy's 18 (2.967 / 3.136 ms, u32 2^26, one round). 1. Keys per invocation swept
# (onesweep rows, every key type, keys and pairs, 2^24 and 2^28, pair clear). 2. The exact sum's items 8 / 16 again.
# 3. With the best items in the policy file: CUB against wgprim sorts (2^20 / 2^24 / 2^28, per call and batched).
# 4. The sort suites under that policy. 5. Session 28's run_3.sh (the look-back passes at 2^24).
set -u
LIMIT=${LIMIT:-230}  # seconds: the CUB ratios and session 28's run_3.sh run only while they fit (LIMIT=550 for all)
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1
export WGPRIM_ONESWEEP_MATCH_CLEAR=pair
for lg in 24 28; do
  timeout $((lg == 24 ? 60 : 90)) $B/wgprim bench --json --quiet --reps 3 --batch $((lg == 24 ? 10 : 2)) --min-log2 $lg --max-log2 $lg \
    --primitives $([ $lg = 24 ] && echo sort_keys,sort_pairs || echo sort_keys) --algorithm onesweep --sort-tunes 20:1,21:1,22:1 > $OUT/items_$lg.json \
    2>$OUT/items_$lg.err || echo "items 2^$lg rc=$?"
done
best=$(python3 - $OUT <<'PY'
import json, sys, collections
rows = []
for lg in (24, 28):
    try:
        rows += json.load(open(f"{sys.argv[1]}/items_{lg}.json"))["results"]
    except (OSError, ValueError, KeyError):
        pass
score = collections.defaultdict(float)  # the sum of each items' time over the policy's (18: 1 a row)
base = {}
for r in rows:
    print("items", r["primitive"], r["type"], r["algorithm"], r["n"], "gpu %.4f call %.4f batched %.4f" % (r["gpu_ms"], r.get("call_ms", 0), r.get("batched_ms") or 0), file=sys.stderr)
    if r["algorithm"] == "onesweep":  # the policy's 18 keys per invocation
        base[(r["primitive"], r["type"], r["n"])] = r["gpu_ms"]
for r in rows:
    a = r["algorithm"]
    if r["type"] in ("u32", "f32") and (r["primitive"], r["type"], r["n"]) in base:
        score[a.split("/i")[1].split("w")[0] if "/i" in a else "18"] += r["gpu_ms"] / base[(r["primitive"], r["type"], r["n"])]
for k in sorted(score, key=score.get):
    print("items score", k, "%.4f" % score[k], file=sys.stderr)
print(min(score, key=score.get) if score else 18)
PY
)
echo "best sort.items: $best"
cat $OUT/items_*.err; rm -f $OUT/items_*  # the rows are in the output above (the device tool returns few files)
for it in 8 16 8 16; do
  for lg in 28; do
    timeout 40 $B/wgprim reduce --generate mixed:$((1 << lg)) --accuracy reproducible --repeat 9 --items $it --json 2>/dev/null |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print("exact 2^%s items" % sys.argv[2], sys.argv[1], "gpu %.4f" % d["gpu_ms"], d.get("matches_cpu"))' $it $lg
  done
done
for lg in 28; do
  timeout 40 $B/wgprim reduce --generate mixed:$((1 << lg)) --repeat 9 --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("fast sum 2^%s gpu %.4f" % (sys.argv[1], d["gpu_ms"]))' $lg
done
f=$($B/wgprim info --json | python3 -c "import json,sys; print(json.load(sys.stdin)['policy']['file'])")
mkdir -p $(dirname $f) && echo "{\"wgprim_policy\": 1, \"knobs\": {\"sort.items\": $best, \"sort.match_clear\": 2}}" > $f
$B/wgprim info --json | grep -E '"sort\.(items|match_clear)"'
timeout 70 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort.*:CountedSort*:Policy.Sort*' > $OUT/gtest_sort.log 2>&1
echo "sort tests under items $best, pair: rc=$?"
grep -E "PASSED|FAILED|Failure" $OUT/gtest_sort.log | head -20
[ $SECONDS -lt $((LIMIT - 80)) ] && {
timeout 40 $B/cub_bench --json --no-check --sizes 24,28 --k 10 --reps 3 --primitives sort_keys,sort_pairs > $OUT/cub.jsonl 2>&1
echo "cub rc=$?"
for n in 24 28; do
  timeout $((n == 28 ? 80 : 40)) $B/wgprim bench --json --quiet --reps 3 --batch 10 --min-log2 $n --max-log2 $n \
    --primitives sort_keys,sort_pairs --sort-bits 0:16 --algorithm onesweep > $OUT/w_$n.json 2>/dev/null || echo "2^$n rc=$?"
done
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]; rows = []
for name in ("w_20", "w_24", "w_28"):
    try:
        rows += json.load(open(os.path.join(out, name + ".json")))["results"]
    except (OSError, ValueError, KeyError):
        pass
json.dump({"results": rows}, open(os.path.join(out, "w.json"), "w"))
PY
rm -f $OUT/w_*.json
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/w.json --short 
}
rm -f $f
unset WGPRIM_ONESWEEP_MATCH_CLEAR
echo "at $SECONDS s"
[ $SECONDS -lt $((LIMIT - 80)) ] && timeout $((LIMIT - SECONDS)) bash bench/results/2026-12-07-session28/run_3.sh 2>&1 | grep -v "^NVIDIA\|UTC" 
