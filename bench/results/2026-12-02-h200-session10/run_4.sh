#!/usr/bin/env bash
# H200 call 4 (session 10): the committed atomic ranking (a) against a diagnostic build wgprim_nr (not committed) that
# compiles the ranking for subgroups of at most 32 lanes (one ballot word: the four-word ballot masks are not live),
# (b) keys per invocation 12-18 and (c) tiles of 512 invocations, per-pass GPU time, u32 keys.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
summary='import json,sys
d=json.load(sys.stdin)
ps=[p["gpu_ms"] for p in d.get("phases",[]) if p["phase"].startswith("pass")]
print(json.dumps({"variant":sys.argv[1],"k":int(sys.argv[2]),"gpu_ms":d["gpu_ms"],"pass_ms":[round(x,4) for x in ps]}))'
one() {  # variant-name k binary items [env...]
  local v=$1 k=$2 bin=$3 it=$4; shift 4
  env "$@" timeout 60 $bin sort --generate uniform:$((1<<k)) --type u32 --algorithm onesweep --phases --items $it \
    --repeat 5 --no-check --json | python3 -c "$summary" $v $k || echo "{\"variant\":\"$v\",\"k\":$k,\"failed\":true}"
}
for k in 28 24; do
  for rep in 1 2; do one main $k $B/wgprim 0; one narrow32 $k $B/wgprim_nr 0; done
  for it in 12 13 14 16 17 18; do one items$it $k $B/wgprim $it; done
  one wg512 $k $B/wgprim 0 WGPRIM_ONESWEEP_WG=512
  one narrow32_items17 $k $B/wgprim_nr 17
done > $OUT/variants.jsonl 2>&1
cat $OUT/variants.jsonl
for t in u32 i32 f32; do for n in 16777217 3841 1; do
  timeout 60 $B/wgprim_nr sort --generate uniform:$n --type $t --algorithm onesweep 2>&1 | grep -E "differ|error" | sed "s/^/nr $t $n: /"
done; done
