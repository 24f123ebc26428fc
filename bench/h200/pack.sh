#!/usr/bin/env bash
# Packs what an H200 call carries (device tool, carry [".gl", "devbuild"]): the stripped binaries of build/, the
# wgpu-native library, the shared libraries they link that a bare machine may lack, and setup.sh. Run from the
# repository root after `make build` (and `make -C bench/cub` for the CUB anchor). The Vulkan loader's .debs go in
# .gl (../.library/device/README.md). Each call's command then begins with `. devbuild/setup.sh`.
set -euo pipefail
rm -rf devbuild && mkdir -p devbuild/bin devbuild/lib
for b in wgprim wgprim_tests wgprim_calls wgprim_floor cub_bench; do
  [ -x build/$b ] && cp build/$b devbuild/bin/ && strip devbuild/bin/$b 2>/dev/null || true
done
cp build/libwgpu_native.so devbuild/bin/
ldd devbuild/bin/wgprim devbuild/bin/wgprim_tests | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' | grep -v devbuild | xargs -r -I{} cp -L {} devbuild/lib/
# PLplot loads its output drivers at run time (the CLI's pictures): carry them and the libraries they link.
for d in /usr/lib/x86_64-linux-gnu/plplot*/drivers; do
  [ -d "$d" ] || continue
  mkdir -p devbuild/plplot-drivers && cp "$d"/* devbuild/plplot-drivers/
  ldd "$d"/*.so | awk '$3 ~ /^\// {print $3}' | sort -u |
    grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' | xargs -r -I{} cp -Ln {} devbuild/lib/
done
cp bench/h200/setup.sh devbuild/
du -sh devbuild
