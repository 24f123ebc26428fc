#!/usr/bin/env bash
# H200 call 3 of session 19: the whole suite on the final tree (histogram loads first, narrow ranking, the folded
# digit starts, only the slots in use zeroed and scanned, each sorted key read from the pool once), the fold A/B in one binary (WGPRIM_ONESWEEP_FOLD=0|1), tiles of 512 invocations once more, the
# u32 sort's bench row against CUB, and the scan's layouts at 2^24 and 2^28 for the next session.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
. bench/h200/suite.sh > $OUT/suite.txt 2>&1
cat $OUT/suite.txt
{
for round in 1; do
  for n in 24 28; do
    for fold in 0 1 0 1; do
      echo "== fold $fold 2^$n round $round"
      WGPRIM_ONESWEEP_FOLD=$fold timeout 30 $B/wgprim sort --generate uniform:$((1 << n)) --type u32 --phases --repeat 7 --no-check 2>&1 | grep -E "pass 1|submission"
    done
  done
done
for bin in wgprim_old wgprim; do
  echo "== $bin (cc51cf6 / this tree) 2^28"
  timeout 30 $B/$bin sort --generate uniform:$((1 << 28)) --type u32 --phases --repeat 7 --no-check 2>&1 | grep -E "histogram|pass 1|submission"
done
for items in 16 20; do
  echo "== wgprim --items $items 2^28"
  timeout 30 $B/wgprim sort --generate uniform:$((1 << 28)) --type u32 --phases --repeat 7 --no-check --items $items 2>&1 | grep -E "pass 1|submission"
done
echo "== fold 1, tiles of 512 invocations, 2^28"
WGPRIM_ONESWEEP_WG=512 timeout 30 $B/wgprim sort --generate uniform:$((1 << 28)) --type u32 --phases --repeat 7 --no-check 2>&1 | grep -E "pass 1|submission"
} > $OUT/fold.txt 2>&1
cat $OUT/fold.txt
timeout 90 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives sort_keys,inclusive_scan > $OUT/cub.jsonl 2>&1
for n in 24 28; do
  timeout 80 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives sort_keys \
    --algorithm onesweep > $OUT/sort_$n.json 2>/dev/null; echo "bench sort 2^$n rc=$?"
done
for n in 28; do
  timeout 80 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives inclusive_scan,copy \
    --scan-tunes staged:4,raked:4,raked:8,direct:2,direct:8 > $OUT/scan_$n.json 2>/dev/null; echo "bench scan 2^$n rc=$?"
done
python3 - <<'PY' | tee $OUT/rows.txt
import json, os
out = os.environ['OUT']
cub = {}
for l in open(out + '/cub.jsonl'):
    try: d = json.loads(l)
    except Exception: continue
    if 'primitive' in d: cub[(d['primitive'], d['type'], d['op'], d['n'])] = d
for k, d in sorted(cub.items(), key=lambda kv: (kv[0][0], kv[0][3])):
    if d['type'] == 'u32' or k[0] == 'inclusive_scan': print('cub', k, 'call %.4f batched %.4f gpu %.4f' % (d['call_ms'], d.get('batched_ms', 0), d.get('gpu_ms', 0)))
for f in ('sort_24', 'sort_28', 'scan_28'):
    try: rs = json.load(open('%s/%s.json' % (out, f)))['results']
    except Exception as e: print(f, 'no result', e); continue
    for r in rs:
        if r.get('type') not in ('u32', None) and r['primitive'] != 'copy': continue
        c = cub.get((r['primitive'], r.get('type'), 'ascending' if r['primitive'] == 'sort_keys' else r.get('op'), r['n']))
        line = '%s %s %s %s %d gpu %.4f call %.4f batched %.4f' % (r['primitive'], r.get('type'), r.get('algorithm', ''), r.get('op'), r['n'], r['gpu_ms'], r.get('call_ms', 0), r.get('batched_ms', 0))
        if c: line += ' | cub call %.4f batched %.4f -> %.2f / %.2f' % (c['call_ms'], c.get('batched_ms', 0), c['call_ms'] / r['call_ms'], c.get('batched_ms', 0) / max(r.get('batched_ms', 1e-9), 1e-9))
        print(line)
PY
grep -v '^{' $OUT/cub.jsonl | head -5
