#!/usr/bin/env bash
# H200 call 6 (session 10): part (3) of run_5.sh again (there the MPI runs passed --no-check, which the CLI's MPI
# mode does not take: exit 2): the distributed sort with its ranks sharing this one GPU, mpirun -np 1 and 2, 2^28
# u32 keys per rank, median of 3, the slowest rank's wall clock of the host-returning call.
set -u
. devbuild/setup.sh
R=/tmp/mpiroot; for f in devbuild/mpi/*.deb; do dpkg -x $f $R; done
export OPAL_PREFIX=$R/usr PATH=$R/usr/bin:$PATH OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
       LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu:$R/usr/lib/x86_64-linux-gnu/openmpi/lib:$LD_LIBRARY_PATH
for p in 1 2; do
  timeout 150 mpirun.openmpi --oversubscribe -np $p $B/wgprim sort --generate uniform:$((1<<28)) --per-rank --type u32 \
    --adapter "#0" --json --repeat 3 2> $OUT/mpi_$p.err | tail -1 > $OUT/mpi_$p.json; echo "mpi np=$p rc=$?"
  cat $OUT/mpi_$p.json | cut -c1-1500; tail -3 $OUT/mpi_$p.err
done
