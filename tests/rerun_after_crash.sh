#!/usr/bin/env bash
# Runs one GoogleTest suite (ctest's command for it). If the process died of a signal rather than failing a
# test, it says so, adds a line to $WGPRIM_CRASH_LOG (ctest sets BUILD/crashes.log, which the ctest stage of
# `make test` prints at its end, also when everything passed) and runs the suite once more; the rerun's result is
# the suite's. A failed assertion, a sanitizer report or ctest's timeout (SIGKILL) is never rerun.
# Why: CI's run of 2026-12-03 (stop 42) died once inside Differential.RandomCasesAgainstTheCpuTwin with glibc's
# "free(): corrupted unsorted chunks" on lavapipe (Mesa 22.3), which neither 10,000 cases under ASan nor
# valgrind nor ~20 local reruns reproduced; tests/crash_report.cpp now prints the stack of such a crash.
#   tests/rerun_after_crash.sh TEST_BINARY ARGS...
set -u
log=${WGPRIM_CRASH_LOG:-crashes.log}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
if ((rc > 128 && rc != 137)); then  # 128 + signal; 137 = SIGKILL (ctest's timeout): not rerun
  line="$(date -u +%FT%TZ) $* died of signal $((rc - 128)); rerun once"
  echo "=== $line"
  { echo "$line"; echo "  its last lines:"; tail -n 90 "$out" | sed 's/^/    /'; } >> "$log"
  "$@"
  rc=$?
  echo "  the rerun exited $rc" >> "$log"
fi
exit $rc
