#!/usr/bin/env bash
# ctest consumer_pkgconfig: installs the build into a temporary prefix and compiles the consumer program
# (tests/consumer_fetchcontent/main.cpp) with -std=c++20 and nothing but `pkg-config --cflags --libs wgprim`, then
# runs it. The program fails to compile if a flag from wgprim.pc lowered the standard; the .pc must not carry one.
# Usage: run.sh <wgprim build folder> <wgprim source>
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
pkg-config --exists --print-errors wgprim
cflags=$(pkg-config --cflags wgprim) libs=$(pkg-config --libs wgprim)
if grep -q -- '-std=' <<<"$cflags $libs"; then
  echo "consumer_pkgconfig: wgprim.pc sets the language standard: $cflags" >&2; exit 1
fi
pkg-config --print-variables wgprim >/dev/null
pkg-config --modversion wgprim
# shellcheck disable=SC2086  # the flags are words
c++ -std=c++20 -DWGPRIM_CONSUMER_EXPECT_CXX20 -O1 -o "$tmp/consumer" "$src/tests/consumer_fetchcontent/main.cpp" \
  $cflags $libs
"$tmp/consumer"
echo "consumer_pkgconfig: 1 passed, 0 failed"
