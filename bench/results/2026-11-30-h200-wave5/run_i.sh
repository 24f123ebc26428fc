#!/usr/bin/env bash
# H200 call (session 5, third): scan look-back window / spin / items sweep at 2^24 and 2^28; reduce A/B with
# immediates + mapped result off.
set -u
. devbuild/setup.sh
date -u > $OUT/date.txt
WGPRIM_SCAN_TUNES=direct:4:8,direct:4:16,direct:4:32,direct:4:64,direct:4:128,direct:4:32:32,direct:4:32:1024,direct:4:32:4096,direct:2:32,direct:3:32,direct:5:32,direct:6:32 timeout 200 $B/wgprim bench --json --reps 5 --warmup 2 --batch 20 --min-log2 24 --max-log2 28 --primitives inclusive_scan --algorithm decoupled > $OUT/scan_tunes.json; echo tunes rc=$?
WGPRIM_IMMEDIATES=0 WGPRIM_MAPPED_RESULT=0 timeout 100 $B/wgprim bench --json --reps 5 --warmup 2 --batch 20 --min-log2 16 --max-log2 28 --primitives reduce --algorithm single > $OUT/off_reduce.json; echo off rc=$?
timeout 100 $B/wgprim bench --json --reps 5 --warmup 2 --batch 20 --min-log2 16 --max-log2 28 --primitives reduce --algorithm single > $OUT/on_reduce.json; echo on rc=$?
python3 - <<'PY'
import json, os
o = os.environ['OUT']
d = json.load(open(o + '/scan_tunes.json'))
for r in d['results']:
    if r['type'] == 'u32' and r['primitive'] == 'inclusive_scan':
        print(r['algorithm'].ljust(28), r['n'].bit_length() - 1, 'gpu %.4f call %.4f' % (r['gpu_ms'], r.get('call_ms', 0)))
for f in ('off_reduce', 'on_reduce'):
    d = json.load(open(o + '/' + f + '.json'))
    for r in d['results']:
        if r['type'] == 'f32' and r['op'] == 'sum':
            print(f, r['n'].bit_length() - 1, 'gpu %.4f call %.4f bat %.4f' % (r['gpu_ms'], r.get('call_ms', 0), r.get('batched_ms', 0)))
PY
