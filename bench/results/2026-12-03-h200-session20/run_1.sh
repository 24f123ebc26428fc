#!/usr/bin/env bash
# H200 call 1 of session 20: the raked scan layout as the GPU default (session 19, call 3: 0.658 against 0.821 ms
# at 2^28). (1) the whole suite on it; (2) the scans' rows (default = raked, and direct:4 as a tune row) against CUB
# at 2^20/24/28, with session 19's binary (direct default) as wgprim_old, A B A B; (3) the issue-24 family against
# CUB at 2^24 and 2^28 (wall clock per call and K=10 batched) for the issue's table.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
cat $OUT/suite.txt
F=inclusive_scan,exclusive_scan,select_if,select_flagged,partition_if,unique,run_length_encode,reduce_by_key,histogram_even,segmented_reduce,segmented_scan,reduce,arg_max
timeout 120 $B/cub_bench --json --sizes 20,24,28 --k 10 --reps 5 --primitives $F,copy > $OUT/cub.jsonl 2>&1; echo "cub rc=$?"
for round in 1 2; do
  for bin in wgprim_old wgprim; do
    for n in 20 24 28; do
      timeout 40 $B/$bin bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives inclusive_scan,exclusive_scan,copy \
        --algorithm decoupled --scan-tunes direct:4 > $OUT/scan_${bin}_${round}_$n.json 2>/dev/null || echo "bench $bin scan 2^$n rc=$?"
    done
  done
done
for n in 24 28; do
  timeout 150 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives $F > $OUT/fam_$n.json 2>/dev/null || echo "bench family 2^$n rc=$?"
done
python3 - <<'PY' | tee $OUT/rows.txt
import json, os, glob
out = os.environ['OUT']
cub = {}
for l in open(out + '/cub.jsonl'):
    try: d = json.loads(l)
    except Exception: continue
    if 'primitive' in d: cub[(d['primitive'], d.get('type'), d['n'])] = d
for path in sorted(glob.glob(out + '/scan_*.json')) + sorted(glob.glob(out + '/fam_*.json')):
    try: rs = json.load(open(path))['results']
    except Exception as e: print(path, 'no result', e); continue
    for r in rs:
        c = cub.get((r['primitive'], r.get('type'), r['n']))
        line = '%s %s %s %s %d gpu %.4f call %.4f batched %.4f' % (os.path.basename(path)[:-5], r['primitive'], r.get('type'), r.get('algorithm', ''), r['n'], r.get('gpu_ms', 0), r.get('call_ms', 0), r.get('batched_ms', 0))
        if c and r.get('call_ms'):
            line += ' | cub gpu %.4f call %.4f batched %.4f -> call %.2f batched %.2f' % (c.get('gpu_ms', 0), c['call_ms'], c.get('batched_ms', 0), c['call_ms'] / r['call_ms'], c.get('batched_ms', 0) / r['batched_ms'] if r.get('batched_ms') else 0)
        print(line)
PY
