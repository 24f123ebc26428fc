#!/usr/bin/env bash
# H200 call 6 (session 14): `wgprim bench` with its defaults, timed again (call 5: 152 s for 902 rows), now that a
# case run right after another (the GPU busy less than a second ago) warms with one run instead of windows.
set -u
. devbuild/setup.sh
t0=$(date +%s.%N)
timeout 170 $B/wgprim bench --json --output $OUT/bench_default.json > /dev/null 2> $OUT/bench_default.err
echo "bench default rc=$? wall $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s, $(python3 -c "import json; print(len(json.load(open('$OUT/bench_default.json'))['results']))") rows"
