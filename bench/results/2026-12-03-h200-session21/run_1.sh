#!/usr/bin/env bash
# H200 call 1 of session 21 (after `bash bench/h200/pack.sh`): session 20's run_6 (`wgprim tune` dry run with the
# scan layouts, unique and partition tunables; the 64-bit scan's look-back fallbacks), then diagnostics:
#  - the 64-bit scan against the same bytes in u32 (2^29) and against a 64-bit reduce (read bandwidth of vec4<i64>);
#  - the onesweep's occupancy: GPU time of a u32 sort at 2^26 with the workgroup pool padded (WGPRIM_ONESWEEP_POOL,
#    fewer workgroups per SM by workgroup memory: 7, 6, 5, 4) and other tile shapes (workgroup x keys per invocation).
set -u
. devbuild/setup.sh
export XDG_CACHE_HOME=/tmp/wgprim-cache
mkdir -p $OUT
gms() { python3 -c 'import json,sys
try:
  j=json.load(sys.stdin); print("%.3f ms" % j["gpu_ms"], "fallbacks", j.get("lookback_fallbacks","-"), "runs", j.get("runs","-"), "mism", j.get("mismatches","-"))
except Exception as e: print("ERR", e)'; }
{
echo "## 64-bit scan"
for t in u32 i64; do for spin in 256 4096; do
  printf "scan %s 2^28 spin %s: " $t $spin
  timeout 60 $B/wgprim scan --generate uniform:268435456 --type $t --repeat 7 --spin-limit $spin --json 2>>$OUT/err.txt | gms
done; done
printf "scan u32 2^29: "; timeout 60 $B/wgprim scan --generate uniform:536870912 --type u32 --repeat 7 --json 2>>$OUT/err.txt | gms
for it in 1 2 8; do for s in 2 0; do
  printf "scan i64 2^28 items %s staged %s: " $it $s
  timeout 60 $B/wgprim scan --generate uniform:268435456 --type i64 --repeat 7 --items $it --staged $s --json 2>>$OUT/err.txt | gms
done; done
for t in u32 i64; do
  printf "reduce %s 2^28: " $t; timeout 60 $B/wgprim reduce --generate uniform:268435456 --type $t --repeat 7 --json 2>>$OUT/err.txt | gms
done
printf "reduce u32 2^29: "; timeout 60 $B/wgprim reduce --generate uniform:536870912 --type u32 --repeat 7 --json 2>>$OUT/err.txt | gms
echo "## onesweep occupancy (u32 keys 2^26, GPU ms, median of 5)"
for pool in 0 6144 7680 9216 10900; do
  printf "pool %s: " $pool
  WGPRIM_ONESWEEP_POOL=$pool timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --repeat 5 --json 2>>$OUT/err.txt | gms
done
for shape in 256:18 256:9 256:12 512:9 512:12 512:6; do
  printf "wg %s items %s: " ${shape%:*} ${shape#*:}
  WGPRIM_ONESWEEP_WG=${shape%:*} timeout 60 $B/wgprim sort --generate uniform:67108864 --type u32 --repeat 5 --items ${shape#*:} --json 2>>$OUT/err.txt | gms
done
} 2>&1 | tee $OUT/diag.txt
echo "## tune dry run"
timeout 100 $B/wgprim tune --primitives scan,unique,partition --dry-run > $OUT/tune.txt 2>&1
grep -v '^ *"' $OUT/tune.txt | tail -25
tail -3 $OUT/err.txt
cat $OUT/diag.txt
