#!/usr/bin/env bash
# H200 call 2 (session 10): the committed candidate (every key's digit taken again where needed instead of a
# register array; the split atomic ranking with its count packed into ranks[], no second array) against a diagnostic
# build wgprim_pk (not committed): digits packed four to a word and the keys read again from memory for the scatter
# (fewer live registers still). Ballot and atomic ranking of each, u32/f32 keys at 2^24 and 2^28, per-pass GPU time;
# then the sort suites on the H200 under both rankings.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
summary='import json,sys
d=json.load(sys.stdin)
ps=[p["gpu_ms"] for p in d.get("phases",[]) if p["phase"].startswith("pass")]
print(json.dumps({"variant":sys.argv[1],"type":sys.argv[2],"k":int(sys.argv[3]),"gpu_ms":d["gpu_ms"],"pass_ms":[round(x,4) for x in ps]}))'
for k in 28 24; do for t in u32 f32; do for rep in 1 2; do
  for v in ballot atomic pk_ballot pk_atomic; do
    bin=$B/wgprim; case $v in pk_*) bin=$B/wgprim_pk;; esac
    WGPRIM_ONESWEEP_RANK=${v#pk_} timeout 60 $bin sort --generate uniform:$((1<<k)) --type $t --algorithm onesweep --phases \
      --repeat 5 --no-check --json | python3 -c "$summary" $v $t $k || echo "{\"variant\":\"$v\",\"k\":$k,\"failed\":true}"
  done
done; done; done > $OUT/variants.jsonl 2>&1
cat $OUT/variants.jsonl
for v in pk_ballot pk_atomic; do for t in u32 i32 f32; do for n in 16777217 1000003 3839 3841 1; do
  WGPRIM_ONESWEEP_RANK=${v#pk_} timeout 60 $B/wgprim_pk sort --generate uniform:$n --type $t --algorithm onesweep 2>&1 | grep -E "differ|error" | sed "s/^/$v $t $n: /"
done; done; done > $OUT/checks.txt 2>&1; grep -c " 0 elements differ" $OUT/checks.txt; grep -v " 0 elements differ" $OUT/checks.txt | head
for r in ballot atomic; do
  WGPRIM_ONESWEEP_RANK=$r timeout 200 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort*:CountedSort*:SegmentedSort*:Pipeline*:ComparatorSort*' > $OUT/tests_$r.txt 2>&1
  echo "rank=$r: rc $? $(grep -E '^\[  (PASSED|FAILED)  \]' $OUT/tests_$r.txt | tr '\n' ' ')"
done
