#!/usr/bin/env bash
# H200 call 2 of session 17: the exact f32 sum with the floating register window (--exact-window 2, sa_fwindow)
# against columns only (0) and the four-limb window (1), items per invocation swept, fast beside; then
# `wgprim bench --accuracy` at 2^28 (each case now runs until its time settles) and the exact tests.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
for lg in 24 28; do
  for data in prices mixed; do
    g="--generate $data:$((1 << lg)) --type f32 --repeat 15 --no-check"
    r=$(timeout 60 $B/wgprim reduce $g 2>&1 | grep "GPU time"); echo "2^$lg $data fast: $r"
    for win in 0 2; do
      for items in 8 16 29; do
        r=$(timeout 60 $B/wgprim reduce $g --accuracy reproducible --exact-window $win --items $items 2>&1 | grep -E "GPU time|rror|CPU twin")
        echo "2^$lg $data repro window $win items $items: $r"
      done
    done
  done
done 2>&1 | tee $OUT/grid.txt
timeout 120 $B/wgprim bench --accuracy --min-log2 28 --max-log2 28 > $OUT/accuracy_28.txt 2>&1; echo accuracy rc=$?
cat $OUT/accuracy_28.txt
timeout 120 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Exact*:*Exact*:*exact*' 2>&1 | tail -5
# The segmented sort after the short-tile skip: phases with segments of 16 and of 1,000 at 2^28 (session 16's code,
# call 3 of its scripts: short segments 3.000 and 0.808 ms), and the bench rows beside CUB's.
for len in 16 1000; do
  python3 bench/h200/offsets_npy.py $((1 << 28)) $len /tmp/off_$len.npy
  timeout 60 $B/wgprim sort --generate uniform:$((1 << 28)) --type u32 --segments /tmp/off_$len.npy --phases --repeat 5 --no-check 2>&1 | tail -9
done
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives segmented_sort > /tmp/cub.jsonl
timeout 60 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 24 --max-log2 28 --primitives segmented_sort_keys > /tmp/b.json
python3 - <<'PY'
import json
cub = {}
for l in open('/tmp/cub.jsonl'):
    d = json.loads(l)
    if 'primitive' in d: cub[(d['op'], d['n'])] = d
for r in json.load(open('/tmp/b.json'))['results']:
    c = cub.get((r['op'].replace('segments of', 'ascending, segments of') if 'ascending' not in r['op'] else r['op'], r['n']))
    line = '%s %d gpu %.4f call %.4f batched %s' % (r['op'], r['n'], r['gpu_ms'], r.get('call_ms', 0), r.get('batched_ms'))
    if c: line += ' | cub call %.4f batched %.4f -> call ratio %.2f' % (c['call_ms'], c['batched_ms'], c['call_ms'] / r['call_ms'])
    print(line)
PY
