#!/usr/bin/env bash
# H200 call 4 (session 15): keys per invocation of the onesweep with 64-bit keys read again (--sort-tunes
# items:window rows, every key type, 2^24 and 2^28), then the sort suites on the final binaries (tile/merge_sort.wgsl
# setting the positions itself) with the best i64 items at 2^28 as the policy file's sort.items_wide.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
for lg in 24 28; do
  timeout 100 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $lg --max-log2 $lg --primitives sort_keys --algorithm onesweep --sort-tunes 12:1,14:1,16:1,18:1 > $OUT/tunes_$lg.json; echo bench 2^$lg rc=$?
done
best=$(python3 - $OUT <<'PY'
import json, sys
rows = []
for lg in (24, 28):
    for r in json.load(open(f"{sys.argv[1]}/tunes_{lg}.json"))["results"]:
        rows.append(r)
        print(r["algorithm"], r["type"], r["n"], "gpu %.4f call %.4f batched %.4f" % (r["gpu_ms"], r.get("call_ms", 0), r.get("batched_ms") or 0), file=sys.stderr)
i64 = [r for r in rows if r["type"] == "i64" and r["n"] == 1 << 28 and "/i" in r["algorithm"]]
b = min(i64, key=lambda r: r["gpu_ms"])
print(b["algorithm"].split("/i")[1].split("w")[0])
PY
)
echo "best sort.items_wide: $best"
export XDG_CACHE_HOME=/tmp/xdg
f=$($B/wgprim info --json | python3 -c "import json,sys; print(json.load(sys.stdin)['policy']['file'])")
mkdir -p $(dirname $f) && echo "{\"wgprim_policy\": 1, \"knobs\": {\"sort.items_wide\": $best}}" > $f
$B/wgprim info | grep -i "items_wide"
timeout 200 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort*:CountedSort*:SegmentedSort*:ComparatorSort*:Multi*:Dist*' > $OUT/gtest_sort.log 2>&1; echo gtest rc=$?
grep -E "PASSED|FAILED|Failure" $OUT/gtest_sort.log | head -20
