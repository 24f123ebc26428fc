#!/usr/bin/env bash
# H200 call 2 (session 16; call 1 trimmed to fit the session's last minutes): (1) the segmented sort's phases (`wgprim sort --segments F --phases`, new this session)
# with segments of 16 and of 1,000 at 2^24 and 2^28; (2) A B A B: the bench rows of the segmented sort by the binary
# before this session (wgprim_old: the short segments ranked by two loops, tiles of 1,024 keys), wgprim_single (one
# loop), wgprim_u2 (the loop unrolled by two) and wgprim (one loop, keys-only tiles of 2,048), beside CUB's rows;
# (3) the whole suite on this session's GPU code; (4) the f32 sum's accuracy modes at 2^28 (issue 24: reproducible
# >= 0.8x of fast) and the replay figure (issue 27), which session 15's call 5 could not take.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
for lg in 24 28; do
  n=$((1 << lg))
  for len in 16 1000; do
    python3 bench/h200/offsets_npy.py $n $len /tmp/off_${len}_$lg.npy
    timeout 40 $B/wgprim sort --generate uniform:$n --type u32 --segments /tmp/off_${len}_$lg.npy --phases --repeat 5 --no-check > $OUT/phases_${len}_$lg.txt 2>&1
    echo "phases len $len 2^$lg rc=$?"; cat $OUT/phases_${len}_$lg.txt
  done
done
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives segmented_sort,reduce > $OUT/cub.jsonl; echo cub rc=$?
for round in 1 2; do
  for bin in wgprim_old wgprim; do
    for lg in 24 28; do
      timeout 40 $B/$bin bench --json --reps 5 --warmup 2 --batch 10 --min-log2 $lg --max-log2 $lg --primitives segmented_sort_keys > /tmp/b.json
      python3 -c "
import json
for r in json.load(open('/tmp/b.json'))['results']:
    print('$bin round $round', r['op'], r['n'], 'gpu %.4f call %.4f batched %s' % (r['gpu_ms'], r.get('call_ms', 0), r.get('batched_ms')))
" | tee -a $OUT/ab.txt
    done
  done
done
python3 -c "
import json
for l in open('$OUT/cub.jsonl'):
    d=json.loads(l)
    if 'primitive' in d: print('cub', d['primitive'], d['type'], d.get('op',''), d['n'], {k: round(v,4) for k,v in d.items() if k.endswith('_ms')})
"
. bench/h200/suite.sh
