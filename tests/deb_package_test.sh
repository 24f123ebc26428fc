#!/usr/bin/env bash
# The Debian package (cmake/packaging.cmake): `cpack -G DEB` of this build, then
#  - its control fields (name, version, architecture) and its file list;
#  - every library the packaged CLI loads is in the package or owned by a Debian package that the .deb depends on
#    (dpkg -S), and every package named in Depends is a real, installed package here;
#  - extracted into an empty folder (dpkg -x: a clean root), a find_package(wgprim) consumer (the program of
#    tests/consumer_fetchcontent) configures with CMAKE_PREFIX_PATH into that root, builds and runs, and so does
#    the packaged CLI.
# usage: deb_package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

for tool in cpack dpkg-deb dpkg readelf; do
  command -v "$tool" >/dev/null || { echo "deb_package_test: $tool is missing" >&2; exit 1; }
done

(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out" >"$tmp/cpack.log" 2>&1) \
  || { cat "$tmp/cpack.log" >&2; echo "deb_package_test: cpack failed" >&2; exit 1; }
debs=("$tmp"/out/*.deb)
[ "${#debs[@]}" = 1 ] && [ -f "${debs[0]}" ] || { echo "deb_package_test: expected one .deb: ${debs[*]}" >&2; exit 1; }
deb=${debs[0]}
version=$(sed -n 's/^project(wgprim VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = wgprim ] && ok || bad "Package is '$(field Package)'"
[ "$(field Version)" = "$version" ] && ok || bad "Version is '$(field Version)', CMakeLists.txt says $version"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] && ok || bad "Architecture '$(field Architecture)'"
[ "$(basename "$deb")" = "wgprim_${version}_$(dpkg --print-architecture).deb" ] && ok || bad "file name $deb"

dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$tmp/files"
for f in /usr/include/wgprim/wgprim.hpp /usr/include/webgpu/webgpu.h /usr/lib/libwgprim.a /usr/lib/libwgpu_native.so \
         /usr/lib/cmake/wgprim/wgprimConfig.cmake /usr/lib/cmake/wgprim/wgprimConfigVersion.cmake \
         /usr/lib/pkgconfig/wgprim.pc /usr/bin/wgprim; do
  grep -qx "$f" "$tmp/files" && ok || bad "the package lacks $f"
done
# nothing of the build or source tree leaks into the package
! grep -E '/(CMakeFiles|tests|build)/|\.o$' "$tmp/files" >/dev/null && ok || bad "build files in the package"

mkdir "$tmp/root"
dpkg -x "$deb" "$tmp/root"

# Depends: each name an installed package here; each library the CLI needs either shipped or owned by one of them.
depends=$(field Depends | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/[[:space:]]//g' | grep -v '^$')
for p in $depends; do
  [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" == *"install ok installed"* ]] && ok \
    || bad "Depends names '$p', which is not an installed package here"
done
for lib in $(readelf -d "$tmp/root/usr/bin/wgprim" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  if [ -e "$tmp/root/usr/lib/$lib" ]; then ok; continue; fi
  # the file the loader picks here (ldd), and the package that owns it (under either name of a merged /usr)
  path=$(ldd "$tmp/root/usr/bin/wgprim" | awk -v l="$lib" '$1 == l {print $3} $1 ~ ("/" l "$") {print $1}')
  alias=${path#/usr}
  [ "$alias" = "$path" ] && alias=/usr$path
  owner=$( { dpkg -S "$path" || dpkg -S "$alias"; } 2>/dev/null | sed -n 1p | cut -d: -f1)
  if [ -z "$path" ] || [ -z "$owner" ]; then bad "the CLI needs $lib ('$path'), which no package owns"; continue; fi
  grep -qx "$owner" <<<"$depends" && ok || bad "the CLI needs $lib from $owner, not in Depends: $(field Depends)"
done

# A consumer, configured only against the extracted root.
mkdir "$tmp/consumer"
cp "$src/tests/consumer_fetchcontent/main.cpp" "$tmp/consumer/"
cat >"$tmp/consumer/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.22)
project(deb_consumer LANGUAGES CXX)
find_package(wgprim 0.1 REQUIRED)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE wgprim::wgprim)
EOF
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$tmp/root/usr" \
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$tmp/cfg.log" 2>&1 \
  && ok || { cat "$tmp/cfg.log" >&2; bad "the consumer does not configure against the package"; }
grep -q "wgprim_DIR:PATH=$tmp/root/usr/lib/cmake/wgprim" "$tmp/consumer/build/CMakeCache.txt" && ok \
  || bad "find_package(wgprim) found another copy: $(grep wgprim_DIR "$tmp/consumer/build/CMakeCache.txt")"
cmake --build "$tmp/consumer/build" >"$tmp/build.log" 2>&1 && ok || { cat "$tmp/build.log" >&2; bad "consumer build"; }
"$tmp/consumer/build/consumer" >"$tmp/run.log" 2>&1 && ok || { cat "$tmp/run.log" >&2; bad "consumer run"; }
# It ran the packaged libwgpu_native.so, not the build's.
# (ldd's output is read whole first: `ldd | grep -q` under pipefail fails when grep exits before ldd has written.)
libs=$(ldd "$tmp/consumer/build/consumer")
grep -q "$tmp/root/usr/lib/libwgpu_native.so" <<<"$libs" && ok \
  || bad "the consumer does not load the packaged libwgpu_native.so: $(grep wgpu <<<"$libs")"

# The packaged CLI runs from the root (its RPATH finds the packaged libwgpu_native.so) and computes a right sum.
out=$("$tmp/root/usr/bin/wgprim" reduce --generate orders:1000 --json 2>&1) && ok || bad "packaged CLI: $out"
grep -q "\"matches_cpu\":true" <<<"$out" && ok || bad "packaged CLI result: $out"
# and draws a picture (PLplot's cairo driver, a dependency, found at run time)
"$tmp/root/usr/bin/wgprim" reduce --generate prices:1000 --plot "$tmp/p.png" >/dev/null 2>"$tmp/plot.err" \
  && [ "$(head -c 4 "$tmp/p.png" | od -An -c | tr -d ' ')" = "211PNG" ] && ok \
  || bad "packaged CLI --plot: $(cat "$tmp/plot.err")"

echo "deb_package: $passed passed, $failed failed"
[ "$failed" = 0 ]
