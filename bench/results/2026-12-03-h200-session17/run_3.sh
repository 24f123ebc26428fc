#!/usr/bin/env bash
# H200 call 3 of session 17: (1) segments of 2..16 keys sorted by one invocation each in registers, then tiles of
# tiny segments only ended early (wgprim, commit 11eaaff), the
# network alone (wgprim_tiny, commit ac54e8e) and the rank count for them (wgprim_old: commit 4027209, its rank step
# by one select), A B C A B C, segmented sort bench rows at 2^24 and 2^28 beside CUB's, and the phases at 2^28 with
# segments of 16; (2) the whole suite.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives segmented_sort > /tmp/cub.jsonl
for round in 1 2; do
  for bin in wgprim_old wgprim_tiny wgprim; do
    for lg in 24 28; do
      timeout 60 $B/$bin bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $lg --max-log2 $lg --primitives segmented_sort_keys > /tmp/b_$lg.json
    done
    python3 -c "import json; print(json.dumps({'results': json.load(open('/tmp/b_24.json'))['results'] + json.load(open('/tmp/b_28.json'))['results']}))" > /tmp/b.json
    BIN=$bin ROUND=$round python3 - <<'PY'
import json, os
cub = {}
for l in open('/tmp/cub.jsonl'):
    d = json.loads(l)
    if 'primitive' in d: cub[(d['op'], d['n'])] = d
for r in json.load(open('/tmp/b.json'))['results']:
    if r['n'] not in (1 << 24, 1 << 28): continue
    c = cub.get(('ascending, ' + r['op'], r['n']))
    line = '%s round %s %s %d gpu %.4f call %.4f' % (os.environ['BIN'], os.environ['ROUND'], r['op'], r['n'], r['gpu_ms'], r.get('call_ms', 0))
    if c: line += ' | cub call %.4f gpu %.4f -> call ratio %.2f' % (c['call_ms'], c['gpu_ms'], c['call_ms'] / r['call_ms'])
    print(line)
PY
  done
done 2>&1 | tee $OUT/ab.txt
python3 bench/h200/offsets_npy.py $((1 << 28)) 16 /tmp/off16.npy
for bin in wgprim_old wgprim_tiny wgprim; do
  echo "== $bin"; timeout 60 $B/$bin sort --generate uniform:$((1 << 28)) --type u32 --segments /tmp/off16.npy --phases --repeat 5 --no-check 2>&1 | tail -8
done 2>&1 | tee $OUT/phases.txt
. bench/h200/suite.sh
