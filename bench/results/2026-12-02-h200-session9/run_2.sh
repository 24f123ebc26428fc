#!/usr/bin/env bash
# H200 call 2 (session 9): the soak of record (issue 29 item 5). scripts/soak.sh in chunks, 16 shards each, with
# seeds from the clock: WebGPU on the H200 until 1,000,000 cases, then the native backend on the host's 16 cores
# until 10,000,000 cases or the call's time runs short. Every chunk's line is kept (soak_webgpu.txt, soak_native.txt).
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
start=$(date +%s); budget=${BUDGET_S:-570}
left() { echo $(( budget - ($(date +%s) - start) )); }
chunk() {  # backend cases: one soak.sh run, its lines appended to $OUT/soak_<backend>.txt; prints its seconds
  local t0=$(date +%s)
  SOAK_BACKENDS=$1 SOAK_CASES=$2 SOAK_SHARDS=16 SOAK_SEED=$((t0 * 100)) timeout $(( $(left) - 5 )) \
    scripts/soak.sh devbuild/bin >> $OUT/soak_$1.txt 2>&1
  echo "rc=$? ($1 $2 cases, $(( $(date +%s) - t0 )) s)" >> $OUT/soak_$1.txt
  echo $(( $(date +%s) - t0 ))
}
done_w=0; size=50000
while (( done_w < 1000000 )); do
  s=$(chunk webgpu $size); done_w=$((done_w + size))
  per=$(( (s * 1000000 / size) + 1 ))          # seconds per million
  next=$(( 1000000 - done_w )); (( next > 250000 )) && next=250000
  (( next <= 0 )) && break
  (( next * per / 1000000 + 20 < $(left) )) || break
  size=$next
done
done_n=0; size=500000
while (( done_n < 10000000 )) && (( $(left) > 40 )); do
  s=$(chunk native $size); done_n=$((done_n + size))
  per=$(( (s * 1000000 / size) + 1 ))
  next=$(( 10000000 - done_n )); (( next > 4000000 )) && next=4000000
  (( next <= 0 )) && break
  while (( next > 0 && next * per / 1000000 + 15 > $(left) )); do next=$((next - 500000)); done
  (( next > 0 )) || break
  size=$next
done
for b in webgpu native; do echo "== $b"; grep -E "^soak: (webgpu|native)|rc=|mismatch|did not" $OUT/soak_$b.txt; done
cp -r devbuild/bin/soak $OUT/soak_logs_tail 2>/dev/null; find $OUT/soak_logs_tail -name '*.log' -size +200k -delete 2>/dev/null
echo "call wall $(( $(date +%s) - start )) s"
