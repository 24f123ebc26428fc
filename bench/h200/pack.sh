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
# ... and its data (fonts, colour maps: plinit reads them from PLPLOT_LIB).
for d in /usr/share/plplot5*; do [ -d "$d" ] && mkdir -p devbuild/plplot-data && cp -r "$d"/. devbuild/plplot-data/; done
# Fonts for the cairo driver's text (a bare machine may have none).
if [ -d /usr/share/fonts/truetype/dejavu ]; then
  mkdir -p devbuild/fonts && cp /usr/share/fonts/truetype/dejavu/DejaVuSans*.ttf devbuild/fonts/
  printf '<?xml version="1.0"?>\n<fontconfig><dir prefix="relative">.</dir><cachedir>/tmp/wgprim-fc</cachedir></fontconfig>\n' \
    > devbuild/fonts/fonts.conf
fi
# The vkstats layer (bench/vkstats: the driver's register and memory figures per pipeline), when built.
if [ -f bench/vkstats/build/libvkstats_layer.so ]; then
  mkdir -p devbuild/vkstats && cp bench/vkstats/build/libvkstats_layer.so bench/vkstats/build/VkLayer_wgprim_stats.json devbuild/vkstats/
fi
cp bench/h200/setup.sh devbuild/
du -sh devbuild
# The device tool carries at most 64 MiB: devbuild, .gl, and the tracked and untracked (not ignored) files of the
# work tree. Say how close this pack comes, so that a call's extra binaries (an A/B's old build, 3.6 MB each) can be
# made room for by leaving out what the call does not run (wgprim_calls, wgprim_floor, or the fonts, which only the
# CLI's --plot checks need).
total=$( { du -sb devbuild .gl 2>/dev/null | awk '{s += $1} END {print s}'; git ls-files -co --exclude-standard -z | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1; } | awk '{s += $1} END {print s}')
echo "carry: $((total / 1048576)) MiB of 64 (devbuild, .gl, the work tree's files)"
[ "$total" -le $((64 * 1048576)) ] || echo "carry: over 64 MiB; leave out what this call does not run" >&2
