#!/usr/bin/env bash
# H200 call 5 of session 20: 64-bit scans on subgroups (two u32 words per shuffle; the raked tile for them too):
# the whole suite, then i64/f64 inclusive scans at 2^24 and 2^28, default (raked) and direct:4 rows, against CUB.
set -u
. devbuild/setup.sh
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
grep -E "suite wall|PASSED|FAILED|Failure|passed" $OUT/suite.txt | head -30
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives inclusive_scan > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for n in 24 28; do
  timeout 100 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives inclusive_scan \
    --algorithm decoupled --scan-tunes direct:4 > $OUT/scan_$n.json 2>/dev/null || echo "bench 2^$n rc=$?"
done
for t in i64 f64; do for s in 2 0; do
  echo "== $t staged $s 2^28"; timeout 60 $B/wgprim scan --generate uniform:268435456 --type $t --staged $s --repeat 7 2>&1 | grep -E "mismatch|GPU time"
done; done
python3 - <<'PY'
import json, os, glob
out = os.environ['OUT']
cub = {}
for l in open(out + '/cub.jsonl'):
    try: d = json.loads(l)
    except Exception: continue
    if 'primitive' in d: cub[(d['primitive'], d.get('type'), d['n'])] = d
for path in sorted(glob.glob(out + '/scan_*.json')):
    for r in json.load(open(path))['results']:
        c = cub.get((r['primitive'], r.get('type'), r['n']))
        line = '%s %s %s %d gpu %.4f call %.4f b %.4f' % (r['primitive'], r.get('type'), r.get('algorithm'), r['n'], r.get('gpu_ms', 0), r.get('call_ms', 0), r.get('batched_ms', 0))
        if c and r.get('call_ms'): line += ' | cub gpu %.4f call %.4f b %.4f -> %.2f %.2f' % (c.get('gpu_ms', 0), c['call_ms'], c.get('batched_ms', 0), c['call_ms'] / r['call_ms'], c['batched_ms'] / r['batched_ms'] if r.get('batched_ms') else 0)
        print(line)
PY
