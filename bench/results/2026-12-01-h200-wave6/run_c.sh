#!/usr/bin/env bash
# H200 call C (session 6): histogram shapes A/B (GPU default: cached edges + four values per step; atomic-plain:
# the earlier kernel), the CLI script again (row 1 compares native with the GPU), and a differential soak.
set -u
. devbuild/setup.sh
for k in 24 26 28; do for bins in 256 4096; do for alg in atomic atomic-plain; do
  printf "hist n=2^%s bins=%s %-13s " $k $bins $alg
  timeout 60 $B/wgprim histogram --generate uniform:$((1<<k)):5 --type f32 --bins $bins --range 0:1 --algorithm $alg --repeat 5 --json 2>&1 | python3 -c 'import json,sys; t=sys.stdin.read(); j=json.loads(t) if t.startswith("{") else None; print(j["gpu_ms"] if j else t[:200])'
done; done; done | tee $OUT/hist_ab.txt
timeout 120 bash tests/cli_test.sh $B/wgprim 2>&1 | tail -5 | tee $OUT/cli.txt
( time WGPRIM_DIFF_CASES=${CASES:-200000} timeout 300 $B/wgprim_tests --gtest_filter='Differential.*' --gtest_brief=1 ) > $OUT/soak.txt 2>&1
tail -8 $OUT/soak.txt
