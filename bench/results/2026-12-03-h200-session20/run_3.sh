#!/usr/bin/env bash
# H200 call 3 of session 20: the whole suite with unique (direct) and partition (staged, 2 vec4 per invocation) on
# their own policy rows and the raked scan; then the issue-24 family against CUB at 2^24 and 2^28, two rounds.
set -u
. devbuild/setup.sh
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
grep -E "suite wall|PASSED|FAILED|Failure|passed" $OUT/suite.txt
F=inclusive_scan,exclusive_scan,select_if,select_flagged,partition_if,unique,run_length_encode,reduce_by_key
timeout 120 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives $F,copy > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for round in 1 2; do
  for n in 24 28; do
    timeout 150 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives $F,copy \
      --algorithm decoupled > $OUT/fam_${round}_$n.json 2>/dev/null || echo "bench family 2^$n rc=$?"
  done
done
python3 - <<'PY' | tee $OUT/rows.txt
import json, os, glob
out = os.environ['OUT']
cub = {}
for l in open(out + '/cub.jsonl'):
    try: d = json.loads(l)
    except Exception: continue
    if 'primitive' in d: cub[(d['primitive'], d.get('type'), d['n'])] = d
for k, d in sorted(cub.items()): print('cub', k[0], k[1], k[2], 'gpu %.4f call %.4f b %.4f' % (d.get('gpu_ms', 0), d['call_ms'], d.get('batched_ms', 0)))
for path in sorted(glob.glob(out + '/fam_*.json')):
    try: rs = json.load(open(path))['results']
    except Exception as e: print(path, 'no result', e); continue
    for r in rs:
        if r['primitive'] == 'copy' and r.get('algorithm') != 'copy-kernel': continue
        c = cub.get((r['primitive'], r.get('type'), r['n']))
        line = '%s %s %s %d gpu %.4f call %.4f b %.4f' % (os.path.basename(path)[4:-5], r['primitive'], r.get('type'), r['n'], r.get('gpu_ms', 0), r.get('call_ms', 0), r.get('batched_ms', 0))
        if c and r.get('call_ms') and r.get('batched_ms'): line += ' -> %.2f %.2f' % (c['call_ms'] / r['call_ms'], c['batched_ms'] / r['batched_ms'])
        print(line)
PY
