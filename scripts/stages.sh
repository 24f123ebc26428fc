#!/usr/bin/env bash
# Runs the stages of `make test` in order, stops at the first that fails, and prints each stage's wall time at
# the end (also when one failed), so that CI's log says where its minutes went.
#   scripts/stages.sh NAME 'COMMAND' [NAME 'COMMAND' ...]
set -uo pipefail
names=(); secs=(); results=()
start_all=$(date +%s)
status=0
while (($# >= 2)); do
  name=$1 cmd=$2; shift 2
  echo "=== stage $name: $cmd"
  t0=$(date +%s)
  bash -c "$cmd"
  rc=$?
  names+=("$name"); secs+=($(( $(date +%s) - t0 )))
  if ((rc == 0)); then results+=(passed); else results+=("FAILED (exit $rc)"); status=$rc; break; fi
done
echo "=== stage times"
for i in "${!names[@]}"; do
  printf '  %-10s %5d s  %s\n' "${names[$i]}" "${secs[$i]}" "${results[$i]}"
done
printf '  %-10s %5d s\n' total $(( $(date +%s) - start_all ))
exit $status
