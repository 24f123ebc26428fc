#!/usr/bin/env bash
# The fuzzers of record (issue 29): the six libFuzzer harnesses at once, each for FUZZ_SECONDS with FUZZ_JOBS
# workers (libFuzzer's -fork), seeded by fuzz/corpus and growing build-fuzz/corpus-<harness>.
#   scripts/soak_fuzz.sh [FUZZ_BUILD_DIR]      (make fuzz-long builds the harnesses and runs it)
# Environment: FUZZ_SECONDS (default 600), FUZZ_JOBS (workers per harness, default 1: six cores in all),
# FUZZ_HARNESSES (default "npy text generate expr unary arrays").
# Prints one line per harness (executions, crashes) and the total fuzzing time (harnesses x workers x seconds);
# exits 1 when a harness found something (its log and crash file are named).
set -u
dir=${1:-build-fuzz}
seconds=${FUZZ_SECONDS:-600}
jobs=${FUZZ_JOBS:-1}
harnesses=${FUZZ_HARNESSES:-npy text generate expr unary arrays}
case $seconds$jobs in *[!0-9]*) echo "soak_fuzz: FUZZ_SECONDS and FUZZ_JOBS are whole numbers"; exit 2;; esac
[ "$jobs" -ge 1 ] || { echo "soak_fuzz: FUZZ_JOBS must be at least 1"; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
t0=$(date +%s)
pids=()
for h in $harnesses; do
  [ -x "$dir/fuzz_$h" ] || { echo "soak_fuzz: $dir/fuzz_$h is missing (make fuzz-long builds it)"; exit 2; }
  mkdir -p "$dir/corpus-$h" "$dir/artifacts-$h"
  fork=()
  [ "$jobs" -gt 1 ] && fork=(-fork="$jobs")
  "$dir/fuzz_$h" "${fork[@]}" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$dir/artifacts-$h/" "$dir/corpus-$h" "$here/fuzz/corpus/$h" >"$dir/fuzz-long-$h.log" 2>&1 &
  pids+=("$!:$h")
done
bad=0 execs_all=0
for ph in "${pids[@]}"; do
  pid=${ph%%:*} h=${ph#*:}
  wait "$pid"
  rc=$?
  # executions: the final stats (one process) or the last status line's "#N" (fork mode)
  execs=$(grep -E '^stat::number_of_executed_units:' "$dir/fuzz-long-$h.log" | tail -1 | awk '{print $2}')
  [ -n "$execs" ] || execs=$(grep -oE '^#[0-9]+' "$dir/fuzz-long-$h.log" | tail -1 | tr -d '#')
  execs=${execs:-0}
  found=$(ls "$dir/artifacts-$h" 2>/dev/null | grep -cE '^(crash|leak|timeout|oom)-')
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    echo "soak_fuzz: $h: exit $rc, $found findings in $dir/artifacts-$h: $dir/fuzz-long-$h.log"
    tail -5 "$dir/fuzz-long-$h.log"
    bad=$((bad + 1))
  else
    echo "soak_fuzz: $h: $execs executions, no findings"
  fi
  execs_all=$((execs_all + execs))
done
n=${#pids[@]}
echo "soak_fuzz: $n harnesses x $jobs workers x $seconds s = $((n * jobs * seconds)) s of fuzzing ($(awk -v s=$((n * jobs * seconds)) 'BEGIN{printf "%.2f", s/3600}') h) in $(( $(date +%s) - t0 )) s, $execs_all executions, $bad harnesses with findings"
[ "$bad" -eq 0 ]
