#!/usr/bin/env bash
# H200 call 2 of session 19: A/B of the sort's upfront histogram (every load of a block before its atomics) and the
# onesweep's narrow ranking (one ballot word, the branch once per tile): wgprim_old = cc51cf6, wgprim = the change.
# Then the keys-per-invocation rows of the new binary, CUB's sort rows, and the sort suites on the new binary.
set -u
. devbuild/setup.sh
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader; date -u; } > $OUT/env.txt 2>&1
timeout 120 $B/wgprim_tests --gtest_brief=1 --gtest_filter='Sort*:CountedSort*:SegmentedSort*:ComparatorSort*:Multi*:Pipeline*' > $OUT/gtest.txt 2>&1; echo "gtest rc=$?"
grep -E "PASSED|FAILED|Failure" $OUT/gtest.txt | head -20
for round in 1 2; do
  for n in 24 28; do
    for bin in wgprim_old wgprim; do
      echo "== $bin 2^$n round $round"
      timeout 30 $B/$bin sort --generate uniform:$((1 << n)) --type u32 --phases --repeat 7 --no-check 2>&1 | grep -E "pass 1|histogram|submission"
    done
  done
done 2>&1 | tee $OUT/phases.txt
timeout 60 $B/cub_bench --json --sizes 24,28 --k 10 --reps 5 --primitives sort_keys > $OUT/cub.jsonl
for items in 16 20 22; do
  echo "== wgprim --items $items"
  timeout 30 $B/wgprim sort --generate uniform:$((1 << 28)) --type u32 --phases --repeat 7 --no-check --items $items 2>&1 | grep -E "pass 1|submission"
done 2>&1 | tee $OUT/items.txt
for n in 24 28; do
  for bin in wgprim_old wgprim; do
    timeout 80 $B/$bin bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n --primitives sort_keys \
      --algorithm onesweep > $OUT/bench_${bin}_$n.json 2> $OUT/bench_${bin}_$n.err; echo "bench $bin 2^$n rc=$?"
  done
done
python3 - <<'PY'
import json, os
out = os.environ['OUT']
cub = {}
for l in open(out + '/cub.jsonl'):
    try: d = json.loads(l)
    except Exception: continue
    if 'primitive' in d: cub[(d['type'], d['op'], d['n'])] = d
for b in ('wgprim_old', 'wgprim'):
    rs = []
    for n in (24, 28):
        try: rs += json.load(open('%s/bench_%s_%d.json' % (out, b, n)))['results']
        except Exception as e: print(b, n, 'no result', e)
    for r in rs:
        if r['n'] not in (1 << 24, 1 << 28) or r.get('type') != 'u32': continue
        c = cub.get((r.get('type'), 'ascending', r['n']))
        line = '%s %s %s %s %d gpu %.4f call %.4f batched %.4f' % (b, r['primitive'], r.get('type'), r.get('algorithm', ''), r['n'], r['gpu_ms'], r.get('call_ms', 0), r.get('batched_ms', 0))
        if c: line += ' | cub call %.4f batched %.4f -> %.2f / %.2f' % (c['call_ms'], c.get('batched_ms', 0), c['call_ms'] / r['call_ms'], c.get('batched_ms', 0) / max(r.get('batched_ms', 1e-9), 1e-9))
        print(line)
PY
