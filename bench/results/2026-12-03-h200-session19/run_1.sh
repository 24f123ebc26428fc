#!/usr/bin/env bash
# H200 call 1 of session 19: the whole suite on the tree of cc51cf6 (no GPU code changed since session 17's last
# suite), then the onesweep's phases at 2^24 and 2^28 by ablation (WGPRIM_ONESWEEP_ABLATE), and scan against copy.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
cat $OUT/suite.txt
for n in 24 28; do
  for ab in none rank lookback scatter rank,lookback,scatter; do
    if [ $ab = none ]; then unset WGPRIM_ONESWEEP_ABLATE; else export WGPRIM_ONESWEEP_ABLATE=$ab; fi
    echo "== 2^$n ablate $ab"
    timeout 30 $B/wgprim sort --generate uniform:$((1 << n)) --type u32 --phases --repeat 7 --no-check 2>&1 | grep -E "pass 1|histogram|submission"
  done
done 2>&1 | tee $OUT/phases.txt
unset WGPRIM_ONESWEEP_ABLATE
timeout 60 $B/wgprim bench --json --reps 7 --batch 10 --min-log2 24 --max-log2 28 --primitives inclusive_scan,sort_keys > $OUT/bench.json
python3 - <<'PY'
import json, os
for r in json.load(open(os.environ['OUT'] + '/bench.json'))['results']:
    print(r['primitive'], r.get('algorithm', ''), r['n'], 'gpu %.4f call %.4f batched %.4f' % (r['gpu_ms'], r.get('call_ms', 0), r.get('batched_ms', 0)))
PY
