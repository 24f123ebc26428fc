#!/usr/bin/env bash
# H200 call 4 of session 17 (call 3 trimmed to the 281 s of device time left): the sort, segmented sort and exact
# tests; the segmented sort's phases at 2^28 in segments of 16 and its bench rows at 2^28 for three binaries:
# wgprim_old (commit 4027209: the rank count, one select per step), wgprim_tiny (ac54e8e: segments of 2..16 keys by
# one invocation each in registers), wgprim (11eaaff: and tiles of tiny segments only end after them); CUB's row.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
timeout 70 $B/wgprim_tests --gtest_brief=1 --gtest_filter='SegmentedSort*:Sort*:Exact*:*Segmented*Sort*' > $OUT/gtest.txt 2>&1; echo "gtest rc=$?"
grep -E "PASSED|FAILED|Failure" $OUT/gtest.txt | head -20
python3 bench/h200/offsets_npy.py $((1 << 28)) 16 /tmp/off16.npy
for bin in wgprim_old wgprim_tiny wgprim; do
  echo "== $bin"; timeout 25 $B/$bin sort --generate uniform:$((1 << 28)) --type u32 --segments /tmp/off16.npy --phases --repeat 5 --no-check 2>&1 | grep -E "short|submission"
done 2>&1 | tee $OUT/phases.txt
timeout 20 $B/cub_bench --json --sizes 28 --k 10 --reps 5 --primitives segmented_sort > $OUT/cub.jsonl
for bin in wgprim_old wgprim_tiny wgprim; do
  timeout 25 $B/$bin bench --json --reps 5 --warmup 2 --batch 10 --min-log2 28 --max-log2 28 --primitives segmented_sort_keys > $OUT/bench_$bin.json
done
python3 - <<'PY'
import json, os
out = os.environ['OUT']
cub = {}
for l in open(out + '/cub.jsonl'):
    d = json.loads(l)
    if 'primitive' in d: cub[d['op']] = d
for b in ('wgprim_old', 'wgprim_tiny', 'wgprim'):
    try: rs = json.load(open('%s/bench_%s.json' % (out, b)))['results']
    except Exception as e: print(b, 'no result', e); continue
    for r in rs:
        c = cub.get('ascending, ' + r['op'])
        line = '%s %s %d gpu %.4f call %.4f' % (b, r['op'], r['n'], r['gpu_ms'], r.get('call_ms', 0))
        if c: line += ' | cub call %.4f gpu %.4f -> call ratio %.2f' % (c['call_ms'], c['gpu_ms'], c['call_ms'] / r['call_ms'])
        print(line)
PY
