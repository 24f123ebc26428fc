#!/usr/bin/env bash
# H200 call 1 (session 15): (1) the comparator (merge) sort's phases at 2^24 and 2^28 (`wgprim sort --less --phases`,
# new this session) beside CUB's merge sort, with the policy's merge.items 8, 16 and 32; (2) 64-bit keys: the new sort_keys i64 rows of `wgprim bench` and
# bench/cub at 2^24, 2^27 and 2^28 beside u32, the onesweep holding 64-bit keys (default) and reading them again
# (WGPRIM_ONESWEEP_RELOAD=1), A B A B.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
timeout 100 $B/cub_bench --json --sizes 24,27,28 --k 10 --reps 5 --primitives sort_keys,merge_sort > $OUT/cub.jsonl; echo cub rc=$?
python3 -c "
import json
for l in open('$OUT/cub.jsonl'):
    d=json.loads(l)
    if 'primitive' in d: print('cub', d['primitive'], d['type'], d.get('op',''), d['n'], {k: round(v,4) for k,v in d.items() if k.endswith('_ms')})
"
# merge.items 8 / 16 / 32 (policy files under per-run XDG_CACHE_HOME), the merge's front keys held in registers.
for items in 8 16 32; do
  export XDG_CACHE_HOME=/tmp/xdg$items
  f=$($B/wgprim info --json | python3 -c "import json,sys; print(json.load(sys.stdin)['policy']['file'])")
  mkdir -p $(dirname $f) && echo "{\"wgprim_policy\": 1, \"knobs\": {\"merge.items\": $items}}" > $f
  for lg in 24 28; do
    timeout 150 $B/wgprim sort --generate uniform:$((1 << lg)) --type u32 --less 'a > b' --phases --repeat 3 --no-check > $OUT/merge_phases_${items}_$lg.txt 2>&1; echo merge items=$items 2^$lg rc=$?
    grep -E "time|blocks|level (1|5|10|14|16) |copy|sum" $OUT/merge_phases_${items}_$lg.txt
  done
done
unset XDG_CACHE_HOME
for round in 1 2; do
  for rl in 0 1; do
    for lg in 24 27 28; do
    WGPRIM_ONESWEEP_RELOAD=$rl timeout 150 $B/wgprim bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $lg --max-log2 $lg --primitives sort_keys --algorithm onesweep > /tmp/s.json; echo bench reload=$rl 2^$lg rc=$?
    python3 -c "
import json
d=json.load(open('/tmp/s.json'))
for r in d['results']:
    if r['n'] in (1<<24, 1<<27, 1<<28) and r['type'] in ('u32','i64'):
        print('reload=$rl round=$round', r['type'], r['n'], 'gpu %.4f call %.4f batched %s' % (r['gpu_ms'], r.get('call_ms',0), r.get('batched_ms')))
" 2>&1 | tee -a $OUT/sort64.txt
    done
  done
done
