#!/usr/bin/env bash
# H200 call 4 (session 9): what the onesweep ranking loop's time is made of. Diagnostic builds of the CLI whose
# onesweep.wgsl differs from main in one place each (not committed; the edits are listed in README.md):
#   b4 / b1: four / one ballot per key instead of eight (wrong ranks: timing only), noshfl: no subgroupShuffle of the
#   rank base, noguard: no `if (ranking)` around each step, narrow: the one-word ballot path chosen at compile time.
# u32 keys, 2^28 and 2^24, per-pass GPU time, --no-check.
set -u
. devbuild/setup.sh
summary='import json,sys
d=json.load(sys.stdin)
ps=[p["gpu_ms"] for p in d.get("phases",[]) if p["phase"].startswith("pass")]
print(json.dumps({"variant":sys.argv[1],"k":int(sys.argv[2]),"gpu_ms":d["gpu_ms"],"pass_ms":[round(x,4) for x in ps]}))'
for k in 28 24; do for v in base b4 b1 noshfl noguard narrow base; do
  bin=$B/wgprim_$v; [ $v = base ] && bin=$B/wgprim
  timeout 60 $bin sort --generate uniform:$((1<<k)) --type u32 --algorithm onesweep --phases --repeat 5 --no-check --json \
    | python3 -c "$summary" $v $k || echo "{\"variant\":\"$v\",\"k\":$k,\"failed\":true}"
done; done > $OUT/variants.jsonl 2>&1
cat $OUT/variants.jsonl
