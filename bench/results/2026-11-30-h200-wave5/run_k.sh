#!/usr/bin/env bash
# H200 call (session 5): the subgroup-walked look-back against the workgroup window walk (decoupled scan), then
# the scan, select, context and differential tests.
set -u
. devbuild/setup.sh
date -u > $OUT/date.txt
WGPRIM_SCAN_TUNES=direct:4:32:256:0,direct:4:32:256:1,direct:4:32:1024:1,direct:3:32:256:1,direct:5:32:256:1 timeout 200 $B/wgprim bench --json --reps 7 --warmup 2 --batch 20 --min-log2 20 --max-log2 28 --primitives inclusive_scan,copy --algorithm decoupled > $OUT/sg_lookback.json; echo bench rc=$?
python3 - <<'PY'
import json, os
d = json.load(open(os.environ['OUT'] + '/sg_lookback.json'))
for r in d['results']:
    if r['type'] == 'u32':
        print(r['primitive'][:9], r['algorithm'].ljust(30), r['n'].bit_length() - 1, 'gpu %.4f call %.4f bat %.4f' % (r['gpu_ms'], r.get('call_ms', 0), r.get('batched_ms', 0) or 0))
PY
timeout 200 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Scan*:Select*:Context*:Differential*' 2>&1 | grep -v "^\[ *OK\|^\[ RUN" | tail -12
