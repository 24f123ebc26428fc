#!/usr/bin/env bash
# Session 28, after the suite (run_1.sh; ~380 s, most important first: the call may end early). NVIDIA's row (match
# ranking, histograms cut beside the words). 1. The three ways of clearing the match words (leader: three subgroup
# barriers per key; own: two; pair: one, two words per digit), A B, u32 2^26 GPU ms. 2. CUB against wgprim, wall clock
# per call and K = 10 batched: the sorts (every key type, pairs, bits 0:16), the chain (select's count now written by
# its pass: 12 dispatches), the select family (one dispatch fewer per call), at 2^20 / 2^24 / 2^28; ratios by
# bench/h200/vs_cub.py. 3. The exact sum's keys per invocation and workgroups (2^28 mixed, GPU ms), the fast sum.
# 4. Keys per invocation, keys held, tiles of 256 with fewer keys (u32 2^26).
set -u
. devbuild/setup.sh
mkdir -p $OUT
export XDG_CACHE_HOME=/tmp/wgprim-cache
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } 2>&1 | tee $OUT/env.txt
$B/wgprim info --json | grep -E '"sort\.(rank_match|slots|wg_size)'
for rep in A B; do
  for cl in leader own pair; do
    WGPRIM_ONESWEEP_MATCH_CLEAR=$cl timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --algorithm onesweep \
      --repeat 7 --json 2>/dev/null |
      python3 -c 'import json,sys; d=json.load(sys.stdin); print("clear", sys.argv[1], sys.argv[2], "u32 2^26 %.4f ms" % d["gpu_ms"], "mismatches", d.get("mismatches"))' $cl $rep
  done
done | tee $OUT/clear.txt
# The sorts against CUB below run with the fastest clear of the two rounds (its mean), if it sorted right.
best=$(python3 - $OUT/clear.txt <<'PY'
import sys, collections
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 8 and f[0] == "clear" and f[-1] == "0":
        t[f[1]].append(float(f[5]))
print(min(t, key=lambda k: sum(t[k]) / len(t[k])) if t else "leader")
PY
)
export WGPRIM_ONESWEEP_MATCH_CLEAR=$best
echo "sorts below with WGPRIM_ONESWEEP_MATCH_CLEAR=$best"
for cl in leader pair; do
  WGPRIM_ONESWEEP_MATCH_CLEAR=$cl timeout 60 $B/wgprim bench --json --quiet --reps 5 --min-log2 24 --max-log2 24 \
    --primitives sort_pairs --algorithm onesweep 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin)["results"][0]; print("clear", sys.argv[1], "u32 pairs 2^24 %.4f ms" % d["gpu_ms"])' $cl
done
timeout 150 $B/cub_bench --json --no-check --sizes 20,24,28 --k 10 --reps 3 \
  --primitives sort_keys,sort_pairs,chain,select_if,select_flagged,partition_if,unique > $OUT/cub.jsonl 2>&1
echo "cub rc=$?"
for n in 20 24 28; do
  timeout 110 $B/wgprim bench --json --quiet --reps 3 --batch 10 --min-log2 $n --max-log2 $n \
    --primitives sort_keys,sort_pairs --sort-bits 0:16 --algorithm onesweep > $OUT/w_$n.json 2>/dev/null || echo "2^$n rc=$?"
  timeout 60 $B/wgprim bench --json --quiet --reps 3 --batch 10 --min-log2 $n --max-log2 $n \
    --primitives chain,select_if,select_flagged,partition_if,unique > $OUT/w_c$n.json 2>/dev/null || echo "chain 2^$n rc=$?"
done
python3 - "$OUT" <<'PY'
import json, sys, os
out = sys.argv[1]; rows = []
for name in ("w_20", "w_24", "w_28", "w_c20", "w_c24", "w_c28"):
    try:
        rows += json.load(open(os.path.join(out, name + ".json")))["results"]
    except (OSError, ValueError, KeyError):
        pass
json.dump({"results": rows}, open(os.path.join(out, "w.json"), "w"))
PY
rm -f $OUT/w_*.json
python3 bench/h200/vs_cub.py $OUT/cub.jsonl $OUT/w.json --short | tee $OUT/ratios.txt
python3 - "$OUT/w.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["primitive"] in ("select_if", "unique", "chain") or r["n"] == 1 << 24:
        print("w", r["primitive"], r["type"], r["algorithm"], r["n"], "gpu %.4f call %.4f batched %.4f" % (r["gpu_ms"], r.get("call_ms", 0), r.get("batched_ms", 0)))
PY
for it in 8 4 12 16 24 8; do
  timeout 40 $B/wgprim reduce --generate mixed:268435456 --accuracy reproducible --repeat 9 --items $it --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("exact items", sys.argv[1], "gpu %.4f" % d["gpu_ms"], d.get("matches_cpu"))' $it
done
for wg in 256 512 2048 4096 1024; do
  timeout 40 $B/wgprim reduce --generate mixed:268435456 --accuracy reproducible --repeat 9 --workgroups $wg --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("exact workgroups", sys.argv[1], "gpu %.4f" % d["gpu_ms"], d.get("matches_cpu"))' $wg
done
timeout 40 $B/wgprim reduce --generate mixed:268435456 --repeat 9 --json 2>/dev/null |
  python3 -c 'import json,sys; d=json.load(sys.stdin); print("fast sum gpu %.4f" % d["gpu_ms"])'
for it in 18 16 20 21 18; do
  timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --algorithm onesweep --repeat 7 --no-check --items $it \
    --json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print("sort items", sys.argv[1], "u32 2^26 %.4f ms" % d["gpu_ms"])' $it
done
for rl in 0 1 0 1; do
  WGPRIM_ONESWEEP_RELOAD=$rl timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --algorithm onesweep --repeat 7 \
    --no-check --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("sort reload", sys.argv[1], "u32 2^26 %.4f ms" % d["gpu_ms"])' $rl
done
for it in 18 14 12; do
  WGPRIM_ONESWEEP_WG=256 VK_LAYER_PATH=$PWD/devbuild/vkstats VK_INSTANCE_LAYERS=VK_LAYER_WGPRIM_stats XDG_CACHE_HOME=$(mktemp -d) \
    timeout 60 $B/wgprim sort --generate uniform:100000 --type u32 --algorithm onesweep --items $it 2>&1 |
    grep -E "^vkstats onesweep.*(Register|Shared)" | sed "s/^/[256 x $it] /"
  WGPRIM_ONESWEEP_WG=256 timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --algorithm onesweep --repeat 7 \
    --no-check --items $it --json 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print("sort 256 x", sys.argv[1], "u32 2^26 %.4f ms" % d["gpu_ms"])' $it
done
