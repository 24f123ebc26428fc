#!/usr/bin/env bash
# (Ran on commit e5e2db3, which added select layout 3; reverted in fd3688b after this call: layout 3 lost everywhere.)
# H200 call 4 of session 20: layout 3 (raked loads, writes staged through workgroup memory) for select_if,
# select_flagged and partition_if against the rows' layouts (raked 4; partition staged 2), items 2/4/8; and the
# by-key kernel's items (run_length_encode, reduce_by_key take select.items) at 2^24 and 2^28, from policy files.
set -u
. devbuild/setup.sh
export XDG_CACHE_HOME=/tmp/wgprim-cache
P=$($B/wgprim info | sed -n 's/.*no tuned file at \([^ ]*\.json\).*/\1/p' | sed "s|^[^ ]*/wgprim/|$XDG_CACHE_HOME/wgprim/|")
mkdir -p $(dirname "$P")
run() {  # label, knobs JSON, primitives, n
  echo "{\"wgprim_policy\": 1, \"knobs\": {$2}}" > "$P"
  timeout 60 $B/wgprim bench --json --quiet --reps 5 --batch 10 --min-log2 $4 --max-log2 $4 --primitives $3 > $OUT/s.json 2>$OUT/err.txt \
    || { echo "$1 rc=$?"; tail -2 $OUT/err.txt; }
  python3 -c "
import json
for r in json.load(open('$OUT/s.json'))['results']:
    print('%-22s' % '$1', r['primitive'], r['n'], 'gpu %.4f call %.4f b %.4f' % (r.get('gpu_ms',0), r.get('call_ms',0), r.get('batched_ms',0)))
"
}
for round in 1 2; do
for n in 28 24; do
  S=select_if,select_flagged
  run "select raked 4" '"select.layout": 2' $S $n
  run "select rs 4" '"select.layout": 3' $S $n
  run "select rs 2" '"select.layout": 3, "select.items": 2' $S $n
  run "select rs 8" '"select.layout": 3, "select.items": 8' $S $n
  run "part staged 2" '"select.partition_layout": 1, "select.partition_items": 2' partition_if $n
  run "part rs 4" '"select.partition_layout": 3, "select.partition_items": 4' partition_if $n
  run "part rs 2" '"select.partition_layout": 3, "select.partition_items": 2' partition_if $n
  run "part rs 8" '"select.partition_layout": 3, "select.partition_items": 8' partition_if $n
  [ $round = 1 ] && for it in 4 2 8; do run "bykey items $it" '"select.items": '$it run_length_encode,reduce_by_key $n; done
done
done
rm -f "$P"
