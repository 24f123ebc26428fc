#!/usr/bin/env bash
# H200 call 1 (session 10): the onesweep ranking with its keys' steps split into three independent loops
# (WGPRIM_ONESWEEP_RANK=atomic: every key's ballots, then the counts' atomics, then the shuffles) against the
# default ballot ranking (one workgroup barrier per key); a diagnostic build wgprim_rd (not committed) that
# recomputes each key's digit instead of keeping a register array of them; keys per invocation 11/15/21; the sort
# anchor from cub_bench in the same run; checked sorts under the split ranking.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
summary='import json,sys
d=json.load(sys.stdin)
ps=[p["gpu_ms"] for p in d.get("phases",[]) if p["phase"].startswith("pass")]
print(json.dumps({"variant":sys.argv[1],"k":int(sys.argv[2]),"gpu_ms":d["gpu_ms"],"pass_ms":[round(x,4) for x in ps]}))'
for k in 28 24; do for rep in 1 2; do
  for v in ballot atomic rd_ballot rd_atomic atomic_i21 atomic_i11 ballot_i21; do
    bin=$B/wgprim; case $v in rd_*) bin=$B/wgprim_rd;; esac
    r=${v#rd_}; r=${r%%_i*}; it=0; case $v in *_i*) it=${v##*_i};; esac
    WGPRIM_ONESWEEP_RANK=$r timeout 60 $bin sort --generate uniform:$((1<<k)) --type u32 --algorithm onesweep --phases \
      --items $it --repeat 5 --no-check --json | python3 -c "$summary" $v $k || echo "{\"variant\":\"$v\",\"k\":$k,\"failed\":true}"
  done
done; done > $OUT/variants.jsonl 2>&1
cat $OUT/variants.jsonl
for r in ballot atomic; do for t in u32 i32 f32; do for n in 16777217 1000003 3839 3841; do
  WGPRIM_ONESWEEP_RANK=$r timeout 60 $B/wgprim sort --generate uniform:$n --type $t --algorithm onesweep 2>&1 | grep -E "differ|error" | sed "s/^/$r $t $n: /"
  WGPRIM_ONESWEEP_RANK=$r timeout 60 $B/wgprim_rd sort --generate uniform:$n --type $t --algorithm onesweep 2>&1 | grep -E "differ|error" | sed "s/^/rd $r $t $n: /"
done; done; done 2>&1 | tee $OUT/checks.txt | sort | uniq -c | sort -rn | head -20
timeout 120 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives sort_keys > $OUT/cub.jsonl 2>&1; echo cub rc=$?
grep -v '^#' $OUT/cub.jsonl | head -8
