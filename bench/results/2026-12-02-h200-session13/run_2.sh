#!/usr/bin/env bash
# H200 call 2 (session 13). (1) The CLI checks that failed in call 1 (plots, Ctrl-C) with their messages.
# (2) Histogram shapes (WGPRIM_HISTOGRAM_AB) at 2^24 and 2^28, 256 and 4096 bins. (3) The decoupled rows whose GPU
# time exceeded their batched time in call 1 (reduce-by-key, segmented reduce), with 50 ms and 1000 ms of warm-up.
# (4) wgprim tune --dry-run (every family's candidates).
set -u
. devbuild/setup.sh
T=$(mktemp -d)
{ echo "== plot"; $B/wgprim reduce --generate prices:100000 --plot $T/r.png > /dev/null; echo rc=$?; file $T/r.png
  $B/wgprim bench --max-log2 17 --reps 2 --warmup 0 --batch 2 --json --output $T/b.json --plot $T/b.png > /dev/null; echo rc=$?
  $B/wgprim bench --from $T/b.json --plot $T/b2.png; echo rc=$?
  echo "== cli"; timeout 200 bash tests/cli_test.sh $B/wgprim 2>&1 | grep -E "^FAIL|passed"; } > $OUT/cli.txt 2>&1
rm -rf $T
H="$B/wgprim bench --json --reps 7 --warmup 2 --batch 10 --primitives histogram_even"
for v in default merge merge,step2 merge,step8 nomerge,step8 nomerge,step1 merge,scalar; do
  for k in 24 28; do
    if [ $v = default ]; then e=; else e=$v; fi
    WGPRIM_HISTOGRAM_AB=$e timeout 40 $H --min-log2 $k --max-log2 $k > /tmp/hist_${v/,/_}.json
    python3 bench/h200/rows.py /tmp/hist_${v/,/_}.json
  done
done > $OUT/hist.txt 2>&1
for w in 50 1000; do
  for k in 24 28; do
    timeout 60 $B/wgprim bench --json --reps 7 --warmup 2 --batch 10 --warm-ms $w --min-log2 $k --max-log2 $k \
      --primitives reduce_by_key,segmented_reduce --algorithm decoupled > /tmp/warm_$w.json
    python3 bench/h200/rows.py /tmp/warm_$w.json
  done
done > $OUT/warm.txt 2>&1
timeout 240 $B/wgprim tune --dry-run > $OUT/tune.txt 2>&1; echo tune rc=$? >> $OUT/tune.txt
cat $OUT/cli.txt $OUT/hist.txt $OUT/warm.txt; tail -60 $OUT/tune.txt
