#!/usr/bin/env bash
# H200 run A: the whole GoogleTest suite, the CLI script, the MPI tests (carried OpenMPI), the examples.
set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
mkdir -p /tmp/libs /tmp/mpi && for f in .gl/libs/*.deb; do dpkg -x $f /tmp/libs; done; for f in .gl/mpi/*.deb; do dpkg -x $f /tmp/mpi; done
export LD_LIBRARY_PATH=/tmp/libs/usr/lib/x86_64-linux-gnu:/tmp/libs/lib/x86_64-linux-gnu:/tmp/mpi/usr/lib/x86_64-linux-gnu:/tmp/mpi/usr/lib/x86_64-linux-gnu/openmpi/lib:${LD_LIBRARY_PATH:-}
export OPAL_PREFIX=/tmp/mpi/usr PATH=/tmp/mpi/usr/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
B=devbuild
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; $B/wgprim info | head -6; date -u
  echo "=== gtest (all suites)"; timeout 400 $B/wgprim_tests --gtest_brief=1 2>&1 | grep -v "^\[ *OK\|^\[ RUN" | tail -40; echo "gtest rc=${PIPESTATUS[0]}"
  echo "=== mpi np=1..4"; for p in 1 2 4; do timeout 60 mpirun.openmpi --oversubscribe -np $p $B/wgprim_mpi_tests --gtest_brief=1 2>&1 | tail -3; echo "mpi np=$p rc=${PIPESTATUS[0]}"; done
  echo "=== cli"; timeout 120 bash tests/cli_test.sh $B/wgprim 2>&1 | tail -4
  for e in sum_floats scan_on_gpu custom_op; do timeout 20 $B/$e >/dev/null; echo "example $e rc=$?"; done; } > $OUT/suite.log 2>&1
cat $OUT/suite.log
