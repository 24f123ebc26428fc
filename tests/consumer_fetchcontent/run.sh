#!/usr/bin/env bash
# ctest consumer_fetchcontent: builds tests/consumer_fetchcontent (FetchContent of wgprim) against a clean copy of
# this checkout, as on a fresh machine: only the files git tracks (no build/, no .deps/), WGPU_NATIVE_DIR unset, so
# wgprim's CMake fetches the pinned wgpu-native itself. The wheel is kept in <build>/consumer_downloads so that
# repeated runs download it once. Usage: run.sh <wgprim source> <work folder in the build tree> [compiler launcher]
set -euo pipefail
src=$1 work=$2 launcher=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
# Fixed paths (not mktemp) so that a compiler cache recognises the sources from one run to the next.
rm -rf "$work/src" "$work/build"
mkdir -p "$work/src" "$work/downloads"

# The clean copy: tracked and new (not ignored) files of the working tree, as they are now.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z --cached --others --exclude-standard |
     while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
     tar --null -T - -cf -) | tar -xf - -C "$work/src"
else
  tar -C "$src" --exclude=./.deps --exclude='./build*' --exclude=./.git -cf - . | tar -xf - -C "$work/src"
fi
if [ -e "$work/src/.deps" ]; then echo "consumer_fetchcontent: the copy has .deps/" >&2; exit 1; fi

# No build type (no -O, no -g): the test is about configuring and linking wgprim as a subproject, not about its
# speed; unoptimised, the library's second build in `make test` takes about half the time of -O3.
args=(-S "$here" -B "$work/build" -DCMAKE_BUILD_TYPE= -DWGPRIM_SOURCE_DIR="$work/src"
      -DWGPRIM_DOWNLOAD_DIR="$work/downloads")
[ -n "$launcher" ] && args+=(-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher")
env -u WGPU_NATIVE_DIR cmake "${args[@]}"
grep -q "^WGPRIM_FETCH_WGPU_NATIVE:BOOL=ON" "$work/build/CMakeCache.txt"
ls "$work/build/_deps/wgprim-build/_deps/wgpu-native/lib/libwgpu_native.so" >/dev/null  # the fetch path ran
cmake --build "$work/build" -j 2
"$work/build/consumer"
echo "consumer_fetchcontent: 1 passed, 0 failed"
