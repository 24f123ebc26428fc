#!/usr/bin/env bash
# H200 call 3 (session 15): the whole suite on this session's GPU code (merge-sort blocks and mid segments, 64-bit
# keys read again by default), then the rows it changed beside CUB in the same call: the segmented sort with the
# mid segments by the merge sort (WGPRIM_SORT_MID=merge, the new GPU default) and by the bitonic network (memory,
# the earlier default), the comparator sort (call: the last key read back), sort keys u32 / i64.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
. bench/h200/suite.sh
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives merge_sort,segmented_sort,sort_keys > $OUT/cub.jsonl; echo cub rc=$?
row() {
  python3 -c "
import json, sys
for r in json.load(open('/tmp/b.json'))['results']:
    print('$1', r['primitive'], r['algorithm'], r['type'], r['op'], r['n'], 'gpu %.4f call %.4f batched %s' % (r['gpu_ms'], r.get('call_ms', 0), r.get('batched_ms')))
" | tee -a $OUT/bench.txt
}
for v in memory merge; do
  for lg in 24 28; do
    WGPRIM_SORT_MID=$v timeout 60 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $lg --max-log2 $lg --primitives segmented_sort_keys > /tmp/b.json; row "SORT_MID=$v"
  done
done
for lg in 24 28; do
  timeout 60 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $lg --max-log2 $lg --primitives sort_keys --algorithm merge > /tmp/b.json; row default
  timeout 90 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $lg --max-log2 $lg --primitives sort_keys --algorithm onesweep > /tmp/b.json; row default
done
python3 -c "
import json
for l in open('$OUT/cub.jsonl'):
    d=json.loads(l)
    if 'primitive' in d: print('cub', d['primitive'], d['type'], d.get('op',''), d['n'], {k: round(v,4) for k,v in d.items() if k.endswith('_ms')})
"
