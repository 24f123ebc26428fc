#!/usr/bin/env bash
# Installs what wgprim needs on a fresh Debian 12 machine, and nothing that is already there:
# Debian packages through apt-get, and wgpu-native from the pinned PyPI `wgpu` wheel (version and sha256 below).
# Set WGPU_NATIVE_DIR to a folder holding lib/ (or the .so) and webgpu.h/wgpu.h to skip the wheel.
set -euo pipefail
cd "$(dirname "$0")/.."

WGPU_PY_VERSION=0.32.0   # bundles wgpu-native 29.0.1.1
WGPU_WHEEL=wgpu-${WGPU_PY_VERSION}-py3-none-manylinux_2_28_x86_64.whl
WGPU_WHEEL_SHA256=6499a31b5a29a10b4f1089fea4a0806411f42605fa86b6c0b543a07ca0de8568
DEPS=.deps

packages=(cmake g++ make pkg-config libcli11-dev libfmt-dev nlohmann-json3-dev libgtest-dev libbenchmark-dev
          libpng-dev libcairo2-dev libgmp-dev libtbb-dev mesa-vulkan-drivers libvulkan1 unzip python3-pip clang
          libclang-rt-14-dev python3-venv python3-dev libopenmpi-dev openmpi-bin ccache doxygen
          libplplot-dev plplot-driver-cairo ninja-build)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ -n "${WGPU_NATIVE_DIR:-}" ]; then
  echo "setup: using wgpu-native from WGPU_NATIVE_DIR=$WGPU_NATIVE_DIR"
  exit 0
fi
dest=$DEPS/wgpu-native
if [ -f "$dest/.stamp-$WGPU_WHEEL_SHA256" ]; then exit 0; fi
mkdir -p "$DEPS"
if [ ! -f "$DEPS/$WGPU_WHEEL" ]; then
  echo "setup: downloading $WGPU_WHEEL"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
    --python-version 3.11 -d "$DEPS" "wgpu==$WGPU_PY_VERSION"
fi
echo "$WGPU_WHEEL_SHA256  $DEPS/$WGPU_WHEEL" | sha256sum --check --quiet || {
  echo "setup: sha256 mismatch for $DEPS/$WGPU_WHEEL" >&2; rm -f "$DEPS/$WGPU_WHEEL"; exit 1; }
rm -rf "$dest" && mkdir -p "$dest/lib" "$dest/include/webgpu"
tmp=$(mktemp -d)
unzip -q -o "$DEPS/$WGPU_WHEEL" 'wgpu/resources/*' -d "$tmp"
cp "$tmp/wgpu/resources/libwgpu_native-release.so" "$dest/lib/libwgpu_native.so"
cp "$tmp/wgpu/resources/webgpu.h" "$tmp/wgpu/resources/wgpu.h" "$dest/include/webgpu/"
rm -rf "$tmp"
touch "$dest/.stamp-$WGPU_WHEEL_SHA256"
echo "setup: wgpu-native ready in $dest"
