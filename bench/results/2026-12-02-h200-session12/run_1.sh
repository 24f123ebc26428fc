#!/usr/bin/env bash
# H200 call 1 (session 12): (1) the histogram's estimate shortcut against CUB (K = 10, median of 5) at 2^20, 2^24,
# 2^28, 256 and 4096 bins; (2) the onesweep's key loads and stores by buffer (WGPRIM_ONESWEEP_IO=role) against a
# branch per key (branch), and keys per invocation with role: per-pass GPU time (`sort --phases`, median of 5).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -16; date -u; } > $OUT/env.txt 2>&1
timeout 120 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 --primitives histogram_even,sort_keys,sort_pairs > $OUT/cub.jsonl; echo cub rc=$?
timeout 200 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 20 --max-log2 28 \
  --primitives histogram_even > $OUT/wgprim.json; echo bench rc=$?
python3 bench/compare.py $OUT/wgprim.json $OUT/cub.jsonl --command "bench/results/2026-12-02-h200-session12/run_1.sh" \
  > $OUT/compare.md 2>&1; echo compare rc=$?
grep -E "^\| 2\^|histogram" $OUT/compare.md | grep -v "Floor\|copy\|CUB only" | cut -c1-170
for lg in 24 28; do
  for v in branch:0 role:0 role:12 role:18 role:21; do
    io=${v%%:*}; it=${v##*:}
    WGPRIM_ONESWEEP_IO=$io timeout 90 $B/wgprim sort --generate uniform:$((1<<lg)) --type u32 --phases --repeat 5 \
      --no-check --items $it --json 2>&1 | tail -1 | python3 -c '
import json,sys; j=json.load(sys.stdin); p=[x["gpu_ms"] for x in j["phases"] if x["phase"].startswith("pass")]
print(json.dumps({"lg":int(sys.argv[1]),"io":sys.argv[2],"items":int(sys.argv[3]),"gpu_ms":j["gpu_ms"],"passes":p}))' $lg $io $it
  done
done | tee $OUT/sort_io.jsonl
for io in branch role; do
  WGPRIM_ONESWEEP_IO=$io timeout 150 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 24 --max-log2 28 \
    --primitives sort_keys,sort_pairs --algorithm onesweep > $OUT/bench_$io.json; echo bench $io rc=$?
  python3 -c '
import json,sys
for r in json.load(open(sys.argv[1]))["results"]:
  print(sys.argv[2], r.get("primitive"), r.get("n"), r.get("algorithm"), "call", r.get("call_ms"), "batched", r.get("batched_ms"), "gpu", r.get("gpu_ms"))' $OUT/bench_$io.json $io
done
rm -f $OUT/bench_*.json
WGPRIM_ONESWEEP_IO=role timeout 200 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort*:*Onesweep*:*SortKeys*' 2>&1 | tail -3
