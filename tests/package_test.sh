#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds the examples as a separate CMake project that finds
# the installed package (find_package(wgprim)), and runs them; also runs the installed CLI. (pkg-config: the test
# consumer_pkgconfig.) When the build has wgprim::mpi ($3 = 1), a consumer of find_package(wgprim COMPONENTS mpi)
# (tests/consumer_mpi) is built and runs a reduce on one rank.
set -euo pipefail
build=$1 src=$2 with_mpi=${3:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$src/examples" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/ex" -j 2 >/dev/null
for ex in sum_floats scan_on_gpu custom_op; do
  "$tmp/ex/$ex"
done
# the installed CLI finds its library through its RPATH
"$tmp/prefix/bin/wgprim" reduce --generate prices:1000 --json >/dev/null
if [ "$with_mpi" = 1 ]; then
  cmake -S "$src/tests/consumer_mpi" -B "$tmp/mpi" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
    >/dev/null
  cmake --build "$tmp/mpi" >/dev/null
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec --oversubscribe -np 1 "$tmp/mpi/mpi_consumer"
fi
echo "package: 1 passed, 0 failed"
