#!/usr/bin/env bash
# H200 call 4 of session 19 (not run: no device time left; for the next session): the raked scan layout as the GPU
# default (call 3: 0.658 against 0.821 ms at 2^28). Build with `tile_layout layout = tile_layout::raked` in
# src/primitives/scan/policy.hpp (CPU adapters: direct in policy.cpp's CPU row) first; then the scan suites run on
# it, and the rows (default, raked:4 and direct:4 as tune rows, each with its batched time) meet CUB at 2^20/24/28.
set -u
. devbuild/setup.sh
timeout 90 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Scan*:*Scan*:Pipeline*:Views*' > $OUT/gtest.txt 2>&1; echo "gtest rc=$?"
grep -E "PASSED|FAILED|Failure" $OUT/gtest.txt | head -20
timeout 60 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 --primitives inclusive_scan,exclusive_scan > $OUT/cub.jsonl 2>&1
for n in 20 24 28; do
  timeout 40 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives inclusive_scan,exclusive_scan,copy \
    --algorithm decoupled --scan-tunes raked:4,direct:4 > $OUT/scan_$n.json 2>/dev/null; echo "bench scan 2^$n rc=$?"
done
python3 - <<'PY' | tee $OUT/rows.txt
import json, os
out = os.environ['OUT']
cub = {}
for l in open(out + '/cub.jsonl'):
    try: d = json.loads(l)
    except Exception: continue
    if 'primitive' in d and d['type'] == 'u32': cub[(d['primitive'], d['n'])] = d
for n in (20, 24, 28):
    try: rs = json.load(open('%s/scan_%d.json' % (out, n)))['results']
    except Exception as e: print(n, 'no result', e); continue
    for r in rs:
        if r.get('type') not in ('u32',): continue
        c = cub.get((r['primitive'], r['n']))
        line = '%s %s %s %d gpu %.4f call %.4f batched %.4f' % (r['primitive'], r.get('type'), r.get('algorithm', ''), r['n'], r['gpu_ms'], r.get('call_ms', 0), r.get('batched_ms', 0))
        if c: line += ' | cub gpu %.4f call %.4f batched %.4f -> call %.2f batched %.2f' % (c.get('gpu_ms', 0), c['call_ms'], c.get('batched_ms', 0), c['call_ms'] / r['call_ms'], c.get('batched_ms', 0) / r['batched_ms'] if r.get('batched_ms') else 0)
        print(line)
PY
