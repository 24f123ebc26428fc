#!/usr/bin/env bash
# H200 call 2 (session 15): (1) the comparator sort's blocks by the new merge sort in workgroup memory
# (sort/merge_block.wgsl) against the bitonic network (policy merge.block_network 0 / 1, policy files under
# per-run XDG_CACHE_HOME), phases at 2^24 and 2^28, then `wgprim bench` rows (call, batched) beside CUB's merge sort;
# (2) the segmented sort's mid segments (257..2048 keys) by the same merge sort (WGPRIM_SORT_MID=merge, the new GPU
# default) against the bitonic network in workgroup memory (memory, the earlier default), segmented_sort_keys rows;
# (3) 64-bit keys read again (WGPRIM_ONESWEEP_RELOAD=1) at 12..18 keys per invocation (--sort-tunes), i64 rows.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
timeout 100 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives merge_sort,sort_keys,segmented_sort > $OUT/cub.jsonl; echo cub rc=$?
python3 -c "
import json
for l in open('$OUT/cub.jsonl'):
    d=json.loads(l)
    if 'primitive' in d: print('cub', d['primitive'], d['type'], d.get('op',''), d['n'], {k: round(v,4) for k,v in d.items() if k.endswith('_ms')})
"
for net in 1 0 1 0; do
  export XDG_CACHE_HOME=/tmp/xdg$net
  f=$($B/wgprim info --json | python3 -c "import json,sys; print(json.load(sys.stdin)['policy']['file'])")
  mkdir -p $(dirname $f) && echo "{\"wgprim_policy\": 1, \"knobs\": {\"merge.block_network\": $net}}" > $f
  for lg in 24 28; do
    timeout 150 $B/wgprim sort --generate uniform:$((1 << lg)) --type u32 --less 'a > b' --phases --repeat 3 > $OUT/phases_net${net}_$lg.txt 2>&1; echo blocks network=$net 2^$lg rc=$?
    grep -E "differ|time|blocks|level 1 |copy|sum" $OUT/phases_net${net}_$lg.txt
  done
  timeout 150 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 24 --max-log2 24 --primitives sort_keys --algorithm merge > /tmp/m24.json
  timeout 150 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 28 --max-log2 28 --primitives sort_keys --algorithm merge > /tmp/m28.json
  python3 -c "
import json
for f in ('/tmp/m24.json', '/tmp/m28.json'):
    for r in json.load(open(f))['results']:
        print('bench merge network=$net', r['type'], r['n'], 'gpu %.4f call %.4f batched %s' % (r['gpu_ms'], r.get('call_ms',0), r.get('batched_ms')))
" | tee -a $OUT/merge_bench.txt
done
unset XDG_CACHE_HOME
for v in memory merge memory merge; do
  for lg in 24 28; do
    WGPRIM_SORT_MID=$v timeout 150 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $lg --max-log2 $lg --primitives segmented_sort_keys > /tmp/g.json; echo segsort $v 2^$lg rc=$?
    python3 -c "
import json
for r in json.load(open('/tmp/g.json'))['results']:
    print('segsort $v', r['algorithm'], r['type'], r['op'], r['n'], 'gpu %.4f call %.4f batched %s' % (r['gpu_ms'], r.get('call_ms',0), r.get('batched_ms')))
" | tee -a $OUT/segsort.txt
  done
done
for lg in 24 28; do
  WGPRIM_ONESWEEP_RELOAD=1 timeout 200 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $lg --max-log2 $lg --primitives sort_keys --algorithm onesweep --sort-tunes 14:1,16:1,18:1 > /tmp/s.json; echo bench 2^$lg rc=$?
  python3 -c "
import json
for r in json.load(open('/tmp/s.json'))['results']:
    if r['type'] in ('u32', 'i64'):
        print('reload', r['algorithm'], r['type'], r['n'], 'gpu %.4f call %.4f batched %s' % (r['gpu_ms'], r.get('call_ms',0), r.get('batched_ms')))
" | tee -a $OUT/sort64.txt
done
