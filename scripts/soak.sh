#!/usr/bin/env bash
# The soak of record (issue 29): the randomized differential test (every primitive against the CPU twin) in
# parallel shards, each a wgprim_tests process with its own seed, their counts summed.
#   scripts/soak.sh [BUILD_DIR]          (make soak runs it)
# Environment:
#   SOAK_CASES     cases per backend, split over the shards (default 2,000,000)
#   SOAK_SHARDS    processes per backend at once (default: the number of cores)
#   SOAK_BACKENDS  which runs, in order: "native" (the CPU backend), "webgpu" (the adapter WGPRIM_ADAPTER picks,
#                  e.g. WGPRIM_ADAPTER=llvmpipe or the GPU's name) or both (default "native webgpu")
#   SOAK_SEED      the first shard's seed (default: the clock); shard k uses SOAK_SEED + k
#   SOAK_OTHER_PERCENT  share of the cases that are not reduce/scan/sort (WGPRIM_DIFF_OTHER_PERCENT, default 20)
#   SOAK_PIN       1: shard k runs on core k (taskset; the default when SOAK_SHARDS <= cores), 0: not pinned
# Prints one line per backend and a total "N cases, M mismatches"; exits 1 on a mismatch or a shard that did not
# finish (its log is named). A mismatch prints its replay command in the shard's log.
set -u
build=${1:-build}
tests=$build/wgprim_tests
[ -x "$tests" ] || { echo "soak: $tests is missing (build the wgprim_tests target first)"; exit 2; }
cases=${SOAK_CASES:-2000000}
shards=${SOAK_SHARDS:-$(nproc)}
backends=${SOAK_BACKENDS:-native webgpu}
seed=${SOAK_SEED:-$(date +%s)}
other=${SOAK_OTHER_PERCENT:-20}
case $cases$shards$seed$other in *[!0-9]*) echo "soak: SOAK_CASES, SOAK_SHARDS, SOAK_SEED and SOAK_OTHER_PERCENT are whole numbers"; exit 2;; esac
[ "$shards" -ge 1 ] || { echo "soak: SOAK_SHARDS must be at least 1"; exit 2; }
ncpu=$(nproc)
# SOAK_PIN=1 (the default when there are at least as many cores as shards and taskset exists): shard k on core k
pin_cores=0
if [ "${SOAK_PIN:-auto}" = 1 ] || { [ "${SOAK_PIN:-auto}" = auto ] && [ "$shards" -le "$ncpu" ]; }; then
  command -v taskset >/dev/null && pin_cores=1
fi
logs=$build/soak
mkdir -p "$logs"
total_cases=0 total_bad=0 broken=0
start_all=$(date +%s)
for backend in $backends; do
  case $backend in
    native) filter='Differential.RandomCasesOnTheNativeBackend' tag='differential (native):' ;;
    webgpu) filter='Differential.RandomCasesAgainstTheCpuTwin' tag='differential:' ;;
    *) echo "soak: unknown backend '$backend' (native or webgpu)"; exit 2 ;;
  esac
  t0=$(date +%s)
  pids=()
  for ((k = 0; k < shards; k++)); do
    # shard k: cases [k * cases / shards, (k + 1) * cases / shards) counted, its own seed
    n=$(( (k + 1) * cases / shards - k * cases / shards ))
    [ "$n" -gt 0 ] || continue
    # one core per shard (oneTBB and lavapipe follow the affinity mask): no oversubscription
    pin=()
    [ "$pin_cores" = 1 ] && pin=(taskset -c "$(( k % ncpu ))")
    WGPRIM_DIFF_SEED=$((seed + k)) WGPRIM_DIFF_CASES=$n WGPRIM_DIFF_NATIVE_CASES=$n WGPRIM_DIFF_OTHER_PERCENT=$other \
      "${pin[@]}" "$tests" --gtest_filter="$filter" >"$logs/$backend-$k.log" 2>&1 &
    pids+=("$!:$k")
  done
  got=0 bad=0
  for pk in "${pids[@]}"; do
    pid=${pk%%:*} k=${pk#*:}
    wait "$pid"
    rc=$?
    line=$(grep -F "[          ] $tag" "$logs/$backend-$k.log" | tail -1)
    if [ -z "$line" ]; then
      echo "soak: $backend shard $k (seed $((seed + k))) did not finish (exit $rc): $logs/$backend-$k.log"
      broken=$((broken + 1))
      continue
    fi
    c=$(sed -E 's/.*: ([0-9]+) cases.*/\1/' <<<"$line")
    m=$(sed -E 's/.* ([0-9]+) mismatches.*/\1/' <<<"$line")
    got=$((got + c)) bad=$((bad + m))
    [ "$m" -eq 0 ] || echo "soak: $backend shard $k (seed $((seed + k))): $m mismatches, see $logs/$backend-$k.log"
    [ "$rc" -eq 0 ] || [ "$m" -ne 0 ] || { echo "soak: $backend shard $k exit $rc: $logs/$backend-$k.log"; broken=$((broken + 1)); }
  done
  adapter=""
  [ "$backend" = webgpu ] && adapter=" (adapter: ${WGPRIM_ADAPTER:-default})"
  echo "soak: $backend$adapter: $got cases, $bad mismatches, ${#pids[@]} shards, seeds $seed..$((seed + ${#pids[@]} - 1)), $(( $(date +%s) - t0 )) s"
  total_cases=$((total_cases + got)) total_bad=$((total_bad + bad))
done
echo "soak: total $total_cases cases, $total_bad mismatches in $(( $(date +%s) - start_all )) s$([ $broken -eq 0 ] || echo ", $broken shards failed")"
[ "$total_bad" -eq 0 ] && [ "$broken" -eq 0 ]
