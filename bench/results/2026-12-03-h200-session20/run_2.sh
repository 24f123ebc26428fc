#!/usr/bin/env bash
# H200 call 2 of session 20: the decoupled select's policy (layout x items, from a tuned policy file) for unique,
# select_if, partition_if and select_flagged at 2^24 and 2^28: where the select family loses to CUB (call 1:
# unique 0.686 ms GPU at 2^28 for a read-mostly pass, the scan 0.660 for read + write).
set -u
. devbuild/setup.sh
export XDG_CACHE_HOME=/tmp/wgprim-cache
P=$($B/wgprim info | sed -n 's/.*no tuned file at \([^ ]*\.json\).*/\1/p' | sed "s|^[^ ]*/wgprim/|$XDG_CACHE_HOME/wgprim/|")
mkdir -p $(dirname "$P"); echo "policy file: $P"
for n in 28 24; do
  for cfg in "2 4" "2 2" "2 8" "0 4" "0 2" "0 8" "1 4" "1 2"; do
    set -- $cfg
    echo "{\"wgprim_policy\": 1, \"knobs\": {\"select.layout\": $1, \"select.items\": $2}}" > "$P"
    $B/wgprim info | grep -E "^ *select " | tr -s ' ' | sed "s/^/cfg $1 $2: /"
    timeout 60 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $n --max-log2 $n \
      --primitives unique,select_if,partition_if,select_flagged > $OUT/s.json 2>$OUT/err.txt || { echo "rc=$?"; tail -2 $OUT/err.txt; }
    python3 -c "
import json,sys
for r in json.load(open('$OUT/s.json'))['results']:
    print('layout $1 items $2', r['primitive'], r['n'], 'gpu %.4f call %.4f batched %.4f' % (r.get('gpu_ms',0), r.get('call_ms',0), r.get('batched_ms',0)))
"
  done
done
rm -f "$P"
